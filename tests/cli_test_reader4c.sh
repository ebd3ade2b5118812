# cli_test_reader4c.sh -- issue 18, the fourth fresh reader's findings 27-36 (/work/notes: plots,
# animate frames, check's output, the exercise judges, option handling): each check fails on the
# code before the fix.  Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip,
# expect_msg, svg_gnuplot, pl_text, pl_has; $T, $FASIM).

R4C_ROOT="$(dirname "$0")/.."

# ---- 27-29: the report's plots: no key cut off or over the curves, y ranges from the data ----
if ! command -v gnuplot >/dev/null 2>&1; then
    skip "reader4c: the report's plots" "no gnuplot"
else
R4C_SVG="$T/r4c_svg"
svg_gnuplot "$T/r4c_bin" "$R4C_SVG"
if PATH="$T/r4c_bin:$PATH" "$FASIM" report --quiet --out-dir "$T/r4c_rep" 2>"$T/r4c_err"; then
    # 27: gnuplot warned "difficulty fitting plot titles into key" on every run (hbm_vs_sram's last
    # key line was cut at the right edge); with the key's long lines in two, it says nothing
    grep -q "difficulty fitting" "$T/r4c_err" && fail "reader4c: gnuplot cannot fit a key: $(grep -m3 "difficulty" "$T/r4c_err" | tr '\n' '|')" \
        || pass "reader4c: every key of the report fits (no gnuplot 'difficulty fitting' warning)"
    pl_has "reader4c: hbm_vs_sram's last key entry whole, on three lines" "$R4C_SVG/hbm_vs_sram.0.svg" \
        "full attention (the counts are causal;" "its tile grows ∝ M; these tiles too while the B d terms dominate, ∝ √M only at multi-MiB M;" \
        "drawn up to M = N d e = 2 MiB: beyond it M" "N d e, outside Theorem 2's range d"
    # 28: hbm_vs_n's key below the plot (inside, its box hid curves); DeepSeek's lines all short
    r4c_ds=""
    for f in "$R4C_SVG"/hbm_vs_n.*.svg; do pl_text "$f" | grep -q "DeepSeek-V2: HBM bytes" && r4c_ds=$f; done
    r4c_long=$(pl_text "$r4c_ds" | awk 'length($0) > 130' | wc -l)
    grep -q '^set key below left' "$R4C_ROOT/plots/hbm_vs_n.gp" && [ -n "$r4c_ds" ] && [ "$r4c_long" = 0 ] \
        && pl_text "$r4c_ds" | grep -q "summed over B·H = 128 heads\$" \
        && pass "reader4c: hbm_vs_n's key below the curves, DeepSeek's title and key lines fit (none over 130 characters)" \
        || fail "reader4c: hbm_vs_n key placement or DeepSeek's long lines ($r4c_long): $(pl_text "$r4c_ds" | awk 'length($0) > 130' | head -2)"
    # 29: cp_time_vs_p: one key for the four panels (it was drawn four times, over the neighbours),
    # each panel's y range from its data (the data start at 93 ms: no tick of 1 .. 50 ms)
    r4c_cp="$R4C_SVG/cp_time_vs_p.0.svg"
    r4c_keys=$(pl_text "$r4c_cp" | grep -c "ring (contiguous chunks")
    r4c_low=$(pl_text "$r4c_cp" | grep -Ex ' *(1|2|5|10|20|50) ms *' | wc -l)
    [ "$r4c_keys" = 1 ] && [ "$r4c_low" = 0 ] && pl_text "$r4c_cp" | grep -qx ' *100 ms *' \
        && pass "reader4c: cp_time_vs_p has one key and y axes from the data (lowest tick 100 ms)" \
        || fail "reader4c: cp_time_vs_p: $r4c_keys keys, $r4c_low ticks below the data"
else
    fail "reader4c: report with the svg wrapper: $(tail -3 "$T/r4c_err")"
fi
fi

# ---- 30: err_outliers.png: every dtype (fp32 was left out unsaid), err_vs_n's colours, x to the data ----
if command -v gnuplot >/dev/null 2>&1; then
    if PATH="$T/r4c_bin:$PATH" "$FASIM" check --study "$T/r4c_st" --seqlen 32 --headdim 16 --quiet 2>"$T/r4c_err"; then
        r4c_out="$R4C_SVG/numerics_outliers.0.svg"
        pl_has "reader4c: err_outliers draws fp32 too" "$r4c_out" "fp32 flash2" "fp32 naive" "fp16 flash2" "fp8_e5m2 flash2 end to end"
        # one colour per dtype in the three plots: the same dtype list, coloured lc i by its place
        r4c_dts=$(grep -h '^dts = ' "$R4C_ROOT/plots/numerics_outliers.gp" "$R4C_ROOT/plots/numerics_vs_n.gp" "$R4C_ROOT/plots/numerics_vs_d.gp" | sort -u)
        [ "$r4c_dts" = 'dts = "fp32 fp16 bf16 fp8_e4m3 fp8_e5m2"' ] && [ "$(grep -c 'lc i ' "$R4C_ROOT/plots/numerics_outliers.gp")" = 3 ] \
            && pass "reader4c: err_outliers colours each dtype as err_vs_n and err_vs_d do" \
            || fail "reader4c: the study plots' dtype lists differ: $r4c_dts"
        pl_text "$r4c_out" | grep -qx ' *1024 *' && ! pl_text "$r4c_out" | grep -qx ' *10000 *' \
            && pass "reader4c: err_outliers' x axis ends at the last magnitude (1024)" \
            || fail "reader4c: err_outliers' x axis: $(pl_text "$r4c_out" | grep -x ' *[0-9]* *' | tr '\n' ' ')"
    else
        fail "reader4c: check --study with the svg wrapper: $(tail -3 "$T/r4c_err")"
    fi
fi

# ---- 31: the heatmap: the colour bar's label clear of its tick numbers; heatmap.csv names its rows ----
if "$FASIM" animate --heatmap --out-dir "$T/r4c_hm" >/dev/null 2>"$T/r4c_err"; then
    head -2 "$T/r4c_hm/heatmap.csv" | tr '\n' '|' | grep -qx 'algo,row,tile,count,transfer|flash1,1,1,4,Q read|' \
        && grep -q '^flash2,10,4,1,LSE write$' "$T/r4c_hm/heatmap.csv" \
        && "$FASIM" animate --help | grep -q "row 1..10 the table's line (1 Q read" \
        && tr '\n' ' ' < "$R4C_ROOT/docs/tutorial.md" | grep -q '`row` the table.s line from 1 (`Q read`) to 10 (`LSE write`)' \
        && pass "reader4c: heatmap.csv names each row (transfer), its row column defined in animate --help and the tutorial" \
        || fail "reader4c: heatmap.csv's rows: $(head -2 "$T/r4c_hm/heatmap.csv" | tr '\n' '|')"
else
    fail "reader4c: animate --heatmap: $(cat "$T/r4c_err")"
fi
if command -v gnuplot >/dev/null 2>&1; then
    # the SVG of the same script: the rotated label's x against the colour bar's tick numbers'
    # (left-aligned at one x): at gnuplot's default place the label ran over them in the PNG
    PATH="$T/r4c_bin:$PATH" "$FASIM" animate --heatmap --out-dir "$T/r4c_hm2" >/dev/null 2>&1
    r4c_gap=$(tr '\n' ' ' < "$R4C_SVG/anim_heatmap.0.svg" | sed 's/<g transform/\n<g transform/g' \
        | grep -o 'translate([0-9.]*,[0-9.]*)[^<]*text-anchor="[a-z]*">[^<]*<text><tspan[^>]*>[^<]*<' \
        | sed 's/translate(\([0-9.]*\),[0-9.]*).*>\([^<]*\)<$/\1 \2/' \
        | awk '$2 == "transfers" && !lab { lab = $1 } $2 ~ /^[0-9]+$/ && $1 < 600 && $1 > 450 { t = $1 } END { printf "%.0f", lab - t }')
    [ -n "$r4c_gap" ] && [ "$r4c_gap" -ge 25 ] && pass "reader4c: heatmap's colour-bar label $r4c_gap px right of its tick numbers" \
        || fail "reader4c: heatmap's colour-bar label only ${r4c_gap:-?} px right of its tick numbers (over them)"
fi

# ---- 32: animate's frames: a read replaces its column's tile in SRAM in its own frame, and
# standard's kernels free their buffers (docs/io-model.md section 7) ----
# r4c_held FRAMES: "frames columns" where a column (x = 0.5 Q, 2.1 K, 3.7 V, 5.3 O, 6.9 statistics)
# shows more than one tile in SRAM (0x9ecae1) or being read (0x2171b5), one frame a block
r4c_held() { awk 'BEGIN { f = 1 } NF == 0 { if (++blank == 2) { f++; blank = 0; delete c } next } { blank = 0 }
    $1 < 8 && ($5 == 10406625 || $5 == 2191797) && ++c[$1] == 2 { print f, $1 }' "$1"; }
if "$FASIM" animate --algo flash2 --out-dir "$T/r4c_a2" >/dev/null 2>"$T/r4c_err" \
   && "$FASIM" animate --algo standard --out-dir "$T/r4c_as" >/dev/null 2>>"$T/r4c_err"; then
    r4c_h2=$(r4c_held "$T/r4c_a2/frames.dat" | head -3 | tr '\n' ';')
    r4c_hs=$(r4c_held "$T/r4c_as/frames.dat" | head -3 | tr '\n' ';')
    [ -z "$r4c_h2" ] && [ -z "$r4c_hs" ] && pass "reader4c: animate shows one tile of a column in SRAM, the replaced one not in its replacement's frame" \
        || fail "reader4c: animate frames with two tiles of a column in SRAM (frame x): flash2 $r4c_h2 standard $r4c_hs"
    # standard, 4 x 4 tiles: the QK^T kernel makes 4 + 16 + 16 = 36 transfers, the softmax kernel
    # (frames 37 .. 84) holds S_ij, m_i, l_i only: no tile of Q or K in SRAM there
    r4c_qk=$(awk 'BEGIN { f = 1 } NF == 0 { if (++blank == 2) { f++; blank = 0 } next } { blank = 0 }
        f >= 37 && f <= 84 && ($1 == 0.5 || $1 == 2.1) && $5 == 10406625 { n++ } END { print n + 0 }' "$T/r4c_as/frames.dat")
    sed -n '/step 36\/120/p; /step 37\/120/p' "$T/r4c_as/labels.dat" | tr '\n' '|' | grep -q 'write S_4,4 (score tile i = 4, j = 4.*read S_1,1 ' && [ "$r4c_qk" = 0 ] \
        && pass "reader4c: standard's softmax kernel frames show no Q or K tile in SRAM (its kernel's buffers freed)" \
        || fail "reader4c: standard's softmax kernel frames: $r4c_qk Q/K tiles drawn in SRAM"
else
    fail "reader4c: animate: $(cat "$T/r4c_err")"
fi

# ---- 33: fasim check's rows: the mask column wide enough, the --dtype rule in one unit ----
"$FASIM" check > "$T/r4c_chk" 2>&1
# every row's B_r= at one column, causal (bottom-right) rows too
r4c_cols=$(grep -E '^(standard|flash1|flash2) ' "$T/r4c_chk" | awk '{ print index($0, "B_r=") }' | sort -u | wc -l)
grep -q "causal (bottom-right) B_r=" "$T/r4c_chk" && [ "$r4c_cols" = 1 ] \
    && pass "reader4c: check's rows keep B_r in one column (the mask column fits causal (bottom-right))" \
    || fail "reader4c: check's B_r column starts at $r4c_cols places"
"$FASIM" check --dtype bf16 > "$T/r4c_chk" 2>&1
r4c_cols=$(grep -E '^(standard|flash1|flash2) ' "$T/r4c_chk" | awk '{ print index($0, " bf16 ") }' | sort -u | wc -l)
# each verdict: err E <= F x naive N + atol A = B, and B is F N + A (to the printed digits)
r4c_bad=$(grep -E '^(standard|flash1|flash2) ' "$T/r4c_chk" | awk '{
    for (i = 1; i <= NF; i++) if ($i == "err") break
    if ($(i + 2) != "<=" || $(i + 4) != "x" || $(i + 5) != "naive" || $(i + 7) != "+" || $(i + 8) != "atol" || $(i + 10) != "=") { bad++; next }
    b = $(i + 3) * $(i + 6) + $(i + 9); if (b / $(i + 11) > 1.001 || b / $(i + 11) < 0.999 || $(i + 1) > $(i + 11)) bad++ }
    END { print bad + 0 }')
[ "$r4c_cols" = 1 ] && [ "$r4c_bad" = 0 ] && ! grep -q "ratio .* <= 2 + atol" "$T/r4c_chk" \
    && grep -q "[0-9] x naive)  rel err " "$T/r4c_chk" && grep -q '`err 8.201e-03 <= 2 x naive 5.095e-03 + atol 7.814e-03 = 1.800e-02' "$R4C_ROOT/docs/numerics.md" \
    && pass "reader4c: check --dtype states err <= F x naive + atol = bound in absolute errors, the ratio apart (as docs/numerics.md)" \
    || fail "reader4c: check --dtype verdicts ($r4c_cols dtype columns, $r4c_bad rows not 'err <= F x naive + atol = bound'): $(sed -n 2p "$T/r4c_chk")"

# ---- 34: the exercise judges (tests/exercises.sh checks every judge's count; here the message) ----
sh "$R4C_ROOT/docs/exercises/judge.sh" 01 "$T" >"$T/out" 2>"$T/err"; r4c_rc=$?
[ "$r4c_rc" = 2 ] && grep -q "is a directory; expected one C file with exercise 01's functions (the default: docs/exercises/01-online-softmax/student.c)" "$T/err" \
    && pass "reader4c: judge.sh given a directory exits 2 and names the file it expected" \
    || fail "reader4c: judge.sh on a directory: exit $r4c_rc, $(cat "$T/err")"

# ---- 35: check --study's progress: \r lines on a terminal only (stderr a file here: none) ----
rm -rf "$T/r4c_st2"
"$FASIM" check --study "$T/r4c_st2" --seqlen 32 --headdim 16 --no-plots >"$T/out" 2>"$T/err"
r4c_cr=$(tr -cd '\r' < "$T/err" | wc -c)
[ "$r4c_cr" = 0 ] && [ ! -s "$T/err" ] && grep -q "^wrote " "$T/out" \
    && pass "reader4c: check --study writes no progress to a stderr that is a file" \
    || fail "reader4c: check --study wrote $r4c_cr carriage returns to a file: $(od -c "$T/err" | head -2)"
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
    rm -rf "$T/r4c_st3"
    script -qec "\"$FASIM\" check --study \"$T/r4c_st3\" --seqlen 32 --headdim 16 --no-plots" /dev/null >"$T/out" 2>&1
    tr -cd '\r' < "$T/out" | wc -c | grep -qv '^0$' && grep -q "study: fp32 N = 16" "$T/out" \
        && pass "reader4c: check --study shows its progress on a terminal (script's pty)" \
        || fail "reader4c: check --study on a terminal: no progress: $(od -c "$T/out" | head -2)"
else
    skip "reader4c: check --study's progress on a terminal" "no script(1) to make a pty"
fi

# ---- 36: option handling ----
# check --save-npy in bf16: the "wrote" lines say the files hold bf16 bits as <u2 and give the
# command that reads them back (with --bf16); that command passes
"$FASIM" check --save-npy "$T/r4c_npy" --seqlen 48 --headdim 8 > "$T/r4c_sv" 2>&1
r4c_cmd=$(sed -n 's/.*so reading them back needs --bf16: fasim \(check .*\)$/\1/p' "$T/r4c_sv")
# shellcheck disable=SC2086
[ -n "$r4c_cmd" ] && grep -q "hold bf16 bit patterns as dtype '<u2' (valid .npy" "$T/r4c_sv" \
    && "$FASIM" $r4c_cmd > "$T/out" 2>"$T/err" && grep -q "^verdict: PASS" "$T/out" \
    && pass "reader4c: check --save-npy bf16 says its files need --bf16, and its round-trip command passes" \
    || fail "reader4c: check --save-npy bf16 round trip: $(cat "$T/r4c_sv") $(tail -2 "$T/err")"
"$FASIM" check --save-npy "$T/r4c_npy16" --dtype fp16 --seqlen 16 --headdim 8 > "$T/r4c_sv" 2>&1
[ "$(wc -l < "$T/r4c_sv")" = 1 ] && pass "reader4c: check --save-npy fp16 (a NumPy dtype) has no --bf16 line" \
    || fail "reader4c: check --save-npy fp16 output: $(cat "$T/r4c_sv")"
# --seed without --dropout: refused by every command whose counts it cannot change; check keeps it
for r4c_c in io sweep explain animate; do
    expect_msg -x "reader4c: $r4c_c --seed without --dropout refused" \
        "$r4c_c uses --seed only as the dropout mask's seed (its counts do not depend on it): add --dropout p or drop --seed" \
        -- $r4c_c --seed 5
done
"$FASIM" io --seed 5 --dropout 0.1 --algo flash2 --seqlen 64 --headdim 16 >/dev/null 2>&1 \
    && "$FASIM" check --seed 5 --seqlen 16 --headdim 8 >/dev/null 2>&1 \
    && pass "reader4c: io --seed with --dropout and check --seed alone still run" || fail "reader4c: --seed with --dropout or check --seed refused"
# --help beside a word that is no option: that word refused, exit 2; --help among options: the help
for r4c_c in io sweep check compare explain animate report; do
    expect_msg -x "reader4c: $r4c_c --help extra: exit 2" "unexpected argument 'extra': fasim $r4c_c takes options only (see fasim $r4c_c --help)" \
        -- $r4c_c --help extra
done
expect_msg "reader4c: help io extra: exit 2" "unexpected argument 'extra': fasim help takes one command" -- help io extra
"$FASIM" io --seqlen 64 --causal top-left --dtype=bf16 --help > "$T/out" 2>&1 && head -1 "$T/out" | grep -q "^usage: fasim io" \
    && "$FASIM" io -h > "$T/out" 2>&1 && pass "reader4c: --help among options and their values prints the help" \
    || fail "reader4c: io --help with options: $(head -2 "$T/out")"
# a UTF-8 byte order mark first in config.json: skipped, as compare skips it; a second one quoted printably
printf '\357\273\277{"num_attention_heads": 12, "hidden_size": 768}\n' > "$T/r4c_bom.json"
"$FASIM" io --model "$T/r4c_bom.json" --algo flash2 > "$T/out" 2>"$T/err" && grep -q "H=12 H_kv=12 .* d=64 " "$T/out" \
    && pass "reader4c: io --model skips a UTF-8 BOM at the start of config.json" || fail "reader4c: config.json with a BOM: $(cat "$T/err")"
printf '\357\273\277\357\273\277{}\n' > "$T/r4c_bom2.json"
expect_msg -p "reader4c: config.json with a BOM twice: the bytes quoted printably" "expected near '\\xef\\xbb\\xbf'" -- io --model "$T/r4c_bom2.json"
