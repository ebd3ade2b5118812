# cli_test_reader13b.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail; $T, $FASIM).
# The thirteenth fresh readings' docs, exercises and plots: the README's second io example as the
# tool prints it, no project-history words in the README and the docs a reader is sent to, the
# teacher's guide (its mistakes list, the DRAM figures compare prints), the L2 sizes in MiB, the
# trace CSV's columns, the report's files, hbm_vs_sram's Θ line inside Theorem 2's range, the
# hardware keys of conventions.md, and the exercise judges.
R13_ROOT=$(dirname "$0")/..
R13_H200=$R13_ROOT/analysis/measured/h200

# ---- reader13 #7: the README's second fasim io example is what the command prints ----
"$FASIM" io --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200 \
    | grep -A2 '^TFLOP/s:' > "$T/r13_ex2_out"
awk '/^\$ \.\/build\/fasim io --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200$/ {on = 1; next}
     on && /^```/ {exit} on && $0 != "..." {print}' "$R13_ROOT/README.md" > "$T/r13_ex2_readme"
[ -s "$T/r13_ex2_out" ] && cmp -s "$T/r13_ex2_out" "$T/r13_ex2_readme" \
    && pass "reader13: README's second io example (time-model table) matches the output byte for byte" \
    || fail "reader13: README's second io example differs from the output (regenerate it): $(diff "$T/r13_ex2_readme" "$T/r13_ex2_out" | head -c 600)"

# ---- reader13 #6 / reader13b #15: no session numbers or issue numbers where a reader is sent ----
r13_hist=$(grep -EniH "(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)('s)? session|sessions'|issue (1[0-9]|[0-9])\b|Every \`--dtype\` row now|\(before, standard" \
    "$R13_ROOT/README.md" "$R13_ROOT/docs/numerics.md" "$R13_ROOT/docs/io-model.md" "$R13_ROOT/docs/context-parallel.md" \
    "$R13_ROOT/docs/teacher.md" "$R13_ROOT/docs/conventions.md" "$R13_ROOT/docs/report-csv.md" "$R13_ROOT/docs/l2-model.md" \
    "$R13_ROOT"/docs/exercises/README.md "$R13_ROOT"/docs/exercises/*/README.md)
"$FASIM" explain --profile v5_bwd_cfg0 --pass bwd --dtype bf16 --batch 1 --heads 16 --seqlen 4096 --headdim 64 > "$T/r13_cfg0" 2>&1
"$FASIM" explain --profile v5_bwd_lean --pass bwd --dtype bf16 --batch 1 --heads 16 --seqlen 4096 --headdim 64 > "$T/r13_lean" 2>&1
[ -z "$r13_hist" ] && ! grep -qi "session\|issue 17" "$T/r13_cfg0" "$T/r13_lean" \
    && grep -q "v5_bwd_cfg0: v5_bwd without its instruction cuts (CFG 0" "$T/r13_cfg0" \
    && grep -q "v5_bwd_lean: v5_bwd with descriptors advanced and no division per step only" "$T/r13_lean" \
    && grep -q "v5_bwd_lean (v5_bwd with its operand descriptors advanced and no integer division per step" "$R13_ROOT/README.md" \
    && pass "reader13: README, the docs a reader is sent to and the profiles' names describe variants, not sessions or issue numbers" \
    || fail "reader13: history words: $r13_hist $(grep -i "session\|issue 17" "$T/r13_cfg0" "$T/r13_lean" | head -3)"

# ---- reader13 #8 / reader13b #12: teacher.md's Common mistakes: one bullet an exercise, 01-09 in turn, each a sentence ----
r13_bul=$(awk '/^## Common mistakes/ {on = 1; next} on && /^## / {exit}
    on && /^- \*\*[0-9][0-9]:\*\*/ {if (t != "") print t; t = $0; next}
    on && /^  / {t = t " " $0; next} END {if (t != "") print t}' "$R13_ROOT/docs/teacher.md")
r13_nums=$(echo "$r13_bul" | sed -n 's/^- \*\*\([0-9][0-9]\):\*\*.*/\1/p' | tr '\n' ' ')
r13_unended=$(echo "$r13_bul" | grep -v '\.$' | cut -c1-60)
r13_stray=$(awk '/^## Common mistakes/ {on = 1; next} on && /^## / {exit} on && NF && !/^- \*\*[0-9][0-9]:\*\*/ && !/^  / {print}' "$R13_ROOT/docs/teacher.md")
[ "$r13_nums" = "01 02 03 04 05 06 07 08 09 " ] && [ -z "$r13_unended" ] && [ -z "$r13_stray" ] \
    && pass "reader13: teacher.md's Common mistakes: bullets 01-09 in order, each ends its sentence" \
    || fail "reader13: teacher.md's Common mistakes: numbers '$r13_nums', unended: $r13_unended, stray: $r13_stray"

# ---- reader13 #9 / reader13b #11: teacher.md's v1 DRAM figures are what compare prints; v0_low / v3 from the sweep ----
fasim_memo compare --measured "$R13_H200/compare_input.csv" --hw h200 > "$T/r13_cmp" 2>&1
r13_v1_64=$(awk '$1 == "v1" && $5 == 64 {for (i = 1; i <= NF; i++) if ($i == "|") k++; print; exit}' "$T/r13_cmp")
r13_v1_128=$(awk '$1 == "v1" && $5 == 128 {print; exit}' "$T/r13_cmp")
r13_v2_64=$(awk '$1 == "v2" && $5 == 64 {print; exit}' "$T/r13_cmp")
r13_tm="$R13_ROOT/docs/teacher.md"
r13_ok=1
for r13_f in "$(echo "$r13_v1_64" | awk -F'|' '{split($3, a, " "); print a[1] " MB predicted"}')" \
             "$(echo "$r13_v1_64" | awk -F'|' '{split($3, a, " "); print a[2] " MB"}')" \
             "$(echo "$r13_v1_128" | awk -F'|' '{split($3, a, " "); print a[1] " MB predicted"}')" \
             "$(echo "$r13_v1_128" | awk -F'|' '{split($3, a, " "); print a[2] " MB measured"}')" \
             "$(echo "$r13_v2_64" | awk -F'|' '{split($3, a, " "); print "v2'"'"'s " a[2] " MB"}')"; do
    tr '\n' ' ' < "$r13_tm" | sed 's/  */ /g' | grep -qF "$r13_f" || { r13_ok=0; echo "  teacher.md lacks '$r13_f'"; }
done
r13_v0=$(awk -F, 'NR > 1 && ($1 == "v0_low" || $1 == "v3") {k = $2 "," $3 "," $5 "," $6 "," $7 "," $8; t[$1, k] = $10}
    END {lo = 1e9; hi = 0; for (x in t) {split(x, p, SUBSEP); if (p[1] == "v0_low" && (("v3", p[2]) in t)) {
         r = t[x] / t["v3", p[2]]; if (r < lo) lo = r; if (r > hi) hi = r}}; printf "%.1f–%.1f×", lo, hi}' "$R13_H200/fabench_sweep.csv")
[ "$r13_ok" = 1 ] && grep -qF "v0_low is $r13_v0 slower" "$r13_tm" \
    && pass "reader13: teacher.md quotes compare's v1/v2 DRAM bytes (read + write) and v0_low / v3 = $r13_v0 of fabench_sweep.csv" \
    || fail "reader13: teacher.md's measured figures (v0_low / v3 is $r13_v0 in fabench_sweep.csv)"

# ---- reader13 #15: the README's list of report files names every file the report writes ----
"$FASIM" report --out-dir "$T/r13rep" --no-plots > "$T/r13_rep_out" 2>&1
r13_missing=""
for r13_f in $(sed -n 's,^  .*/r13rep/\([^/]*\)$,\1,p' "$T/r13_rep_out" | sed 's/^hbm_vs_n_.*\./hbm_vs_n_<model>./' | sort -u) cp_time_vs_p.png; do
    # a plot's CSV is named by its PNG ("each beside the CSV it was drawn from")
    grep -qF "\`$r13_f\`" "$R13_ROOT/README.md" || grep -qF "\`${r13_f%.csv}.png\`" "$R13_ROOT/README.md" \
        || r13_missing="$r13_missing $r13_f"
done
grep -q "cp.csv" "$T/r13_rep_out" && [ -z "$r13_missing" ] \
    && pass "reader13: README's report section names every file the report lists as written (cp.csv, cp_time_vs_p.png too)" \
    || fail "reader13: README lacks report files:$r13_missing"

# ---- reader13 #12: docs/l2-model.md gives the L2 sizes in MiB, as the hardware profiles hold them ----
grep -q "(40 MiB on the A100, 50 MiB on the H100, 60 MiB on the H200)" "$R13_ROOT/docs/l2-model.md" \
    && grep -q "^l2_bytes = 41943040$" "$R13_ROOT/sim/hw/a100-sxm4-80gb.hw" && grep -q "^l2_bytes = 52428800$" "$R13_ROOT/sim/hw/h100-sxm5.hw" \
    && ! grep -q "[0-9] MB on the A100\|50 MB on the H100" "$R13_ROOT/docs/l2-model.md" \
    && pass "reader13: l2-model.md: 40 MiB, 50 MiB, 60 MiB (= the .hw files' l2_bytes)" \
    || fail "reader13: l2-model.md's L2 sizes"

# ---- reader13 #14: the --trace CSV's columns are documented as the trace has them ----
"$FASIM" io --trace "$T/r13_tr.csv" --algo flash2 --seqlen 200 --batch 2 --heads 2 --kv-heads 1 --block-r 64 --block-c 64 > /dev/null 2>&1
"$FASIM" io --algo flash2 --seqlen 200 --batch 2 --heads 2 --kv-heads 1 --block-r 64 --block-c 64 --breakdown > "$T/r13_trb" 2>&1
r13_first=$(sed -n 2p "$T/r13_tr.csv" | cut -d, -f1)
r13_khead=$(awk -F, '$2 == "K" {print $10}' "$T/r13_tr.csv" | sort -u | tr '\n' ' ')
r13_tail=$(awk -F, '$2 == "K" && $4 == 192 {print $5; exit}' "$T/r13_tr.csv")
r13_ksum=$(awk -F, '$2 == "K" && $3 == "read" {s += $8} END {print s}' "$T/r13_tr.csv")
r13_kbrk=$(awk '$1 == "flash2" && $2 == "K" {print $3}' "$T/r13_trb")
r13_io="$R13_ROOT/docs/io-model.md"
[ "$(head -1 "$T/r13_tr.csv")" = "step,tensor,direction,row0,rows,col0,cols,bytes,batch,head" ] && [ "$r13_first" = 0 ] \
    && [ "$r13_khead" = "0 " ] && [ "$r13_tail" = 8 ] && [ -n "$r13_ksum" ] && [ "$r13_ksum" = "$r13_kbrk" ] \
    && grep -q '^| `step` | the transfer.s sequence number in the run, \*\*from 0\*\* (`fasim animate` counts its steps from 1' "$r13_io" \
    && grep -q '^| `row0`, `rows` | .*in \*\*elements\*\*' "$r13_io" && grep -q '^| `batch`, `head` | .*the K/V head' "$r13_io" \
    && grep -q 'the byte counts of$' "$r13_io" \
    && pass "reader13: io-model.md documents the trace's columns (step from 0, row0/col0 element offsets, K/V head), as a GQA trace has them" \
    || fail "reader13: trace columns: first step '$r13_first', K heads '$r13_khead', tail rows '$r13_tail', K bytes $r13_ksum vs --breakdown $r13_kbrk"

# ---- reader13b #1-#4, #19-#21: the exercise judges ----
# built as tests/exercises.sh builds them, against the library of $FASIM's build
R13_LIB=$(dirname "$FASIM")/libfasim.a
R13_J="$R13_ROOT/docs/exercises/judge.sh"
r13_judge() { # r13_judge NN FILE OUT: runs the judge (EX_SEED from the environment)
    LIB=$R13_LIB EXOUT=$T/r13_ex EXFLAGS="-O1 -g -Wall -Wextra -Wno-unused-parameter -Wno-unused-function -fsanitize=address,undefined -fno-omit-frame-pointer" \
        ASAN_OPTIONS=detect_leaks=0 sh "$R13_J" "$1" "$2" > "$3" 2>&1
}
r13_total() { tail -1 "$1" | sed -n 's/.*: all \([0-9]*\) checks passed.*/\1/p; s/.*: [0-9]* of \([0-9]*\) checks passed.*/\1/p'; }
if [ ! -f "$R13_LIB" ]; then
    skip "reader13b: exercise judges" "no library $R13_LIB"
else
    mkdir -p "$T/r13_ex"
    # #1: a submission whose call aborts reports the judge's own count (04: tiles that do not fit;
    # 03: one SRAM buffer too many), every FAIL with a hint
    sed 's/^    while (bk.block_r + 16 <= cap \&\& need(s, bk.block_r + 16, 16) <= M) bk.block_r += 16;/    bk.block_r = cap; (void)M;/' \
        "$R13_ROOT/docs/exercises/solutions/04.c" > "$T/r13_ex/04big.c"
    sed '0,/TRY(fa_sram_alloc(mem, &Qi, "Q_i", Br, d, e));/s//TRY(fa_sram_alloc(mem, \&Qi, "Q_i", Br, d, e)); fa_buf extra = {0}; TRY(fa_sram_alloc(mem, \&extra, "x", Br, d, e));/' \
        "$R13_ROOT/docs/exercises/solutions/03.c" > "$T/r13_ex/03x.c"
    r13_judge 04 "$T/r13_ex/04big.c" "$T/r13_j04big"
    r13_judge 03 "$T/r13_ex/03x.c" "$T/r13_j03x"
    grep -q "cap; (void)M" "$T/r13_ex/04big.c" && grep -q '"x"' "$T/r13_ex/03x.c" \
        && [ "$(r13_total "$T/r13_j04big")" = 17 ] && [ "$(grep -c '^\(PASS\|FAIL\|SKIP\)' "$T/r13_j04big")" = 17 ] \
        && [ "$(r13_total "$T/r13_j03x")" = 24 ] && [ "$(grep -c '^\(PASS\|FAIL\|SKIP\)' "$T/r13_j03x")" = 24 ] \
        && grep -q "^FAIL .*tiles 4096x16: the buffers need 1871872 B of SRAM (M = 232448) -- fa_sram_need" "$T/r13_j04big" \
        && grep -q "^FAIL .*returned 'SRAM capacity exceeded'.* -- M is exactly the seven buffers" "$T/r13_j03x" \
        && grep -q "^SKIP .*not judged: ex_flash2_forward returned an error" "$T/r13_j03x" \
        && pass "reader13b: a submission whose tiles do not fit (04) or whose call fails (03) gets the judge's own count, 17 and 24" \
        || fail "reader13b: fixed check counts: 04 $(tail -1 "$T/r13_j04big" | cut -c1-100); 03 $(tail -1 "$T/r13_j03x" | cut -c1-100)"
    # #2 / #19: every FAIL line of 04 and 08 (wrong file, stub, the big tiles) carries a hint; 04's
    # 64 x 64 line names only its own tiles; 08 says "you said"
    r13_judge 08 "$R13_ROOT/docs/exercises/wrong/08.c" "$T/r13_j08w"
    r13_judge 08 "$R13_ROOT/docs/exercises/08-flash1-vs-flash2/student.c" "$T/r13_j08s"
    r13_judge 04 "$R13_ROOT/docs/exercises/04-block-sizes/student.c" "$T/r13_j04s"
    r13_nohint=$(cat "$T/r13_j08w" "$T/r13_j08s" "$T/r13_j04s" "$T/r13_j04big" | grep '^FAIL' | grep -v ' -- ' | grep -v '^FAIL  hidden case' | head -3)
    [ -z "$r13_nohint" ] && grep -q "^FAIL  flash1 .*: O: you said read 2097152, written 2097152; counted read 2097152, written 2228224 -- .*line 2 writes O once more" "$T/r13_j08w" \
        && grep -q "^FAIL  M = 232448 B, B=1 H=1 H_kv=1 N_q=4096 N_k=4096 d=64 d_v=64 fp16, tiles 64x64: predicted 0 B" "$T/r13_j04s" \
        && ! grep -q "with 64 x 64 tiles" "$T/r13_j04s" \
        && pass "reader13b: every FAIL line of judges 04 and 08 carries a hint; 04's 64 x 64 check names its own tiles only" \
        || fail "reader13b: FAIL lines without a hint: $r13_nohint"
    # #3: the shape label names H_kv (02's GQA case)
    r13_judge 02 "$R13_ROOT/docs/exercises/02-standard-io/student.c" "$T/r13_j02s"
    grep -q "^FAIL  B=1 H=8 H_kv=2 N_q=512 N_k=512 d=128 d_v=128 bf16, tiles 128x16: K read" "$T/r13_j02s" \
        && pass "reader13b: the judges' shape label names H_kv (02's GQA case: H=8 H_kv=2)" \
        || fail "reader13b: no H_kv in 02's GQA label: $(grep 'H=8' "$T/r13_j02s" | head -1 | cut -c1-120)"
    # #20: the hidden case: a shape drawn per run (EX_SEED repeats it), its expected numbers never
    # printed; the reference solution passes whatever the seed
    r13_hok=1
    for r13_s in 1 2 3 4 5 6; do
        for r13_nn in 02 04 08; do
            EX_SEED=$r13_s r13_judge $r13_nn "$R13_ROOT/docs/exercises/solutions/$r13_nn.c" "$T/r13_jh"
            tail -1 "$T/r13_jh" | grep -q "checks passed -- solved" || { r13_hok=0; echo "  seed $r13_s, exercise $r13_nn: $(grep '^FAIL' "$T/r13_jh" | head -1 | cut -c1-200)"; }
        done
    done
    EX_SEED=7 r13_judge 02 "$R13_ROOT/docs/exercises/02-standard-io/student.c" "$T/r13_jh7"
    EX_SEED=8 r13_judge 02 "$R13_ROOT/docs/exercises/02-standard-io/student.c" "$T/r13_jh8"
    r13_h7=$(grep '^FAIL  hidden case' "$T/r13_jh7"); r13_h8=$(grep '^FAIL  hidden case' "$T/r13_jh8")
    [ "$r13_hok" = 1 ] && echo "$r13_h7" | grep -q "seed 7; EX_SEED=7 repeats it" && [ "${r13_h7#*: }" != "${r13_h8#*: }" ] \
        && ! echo "$r13_h7" | grep -q "counter says\|counted read" && grep -q "^FAIL  hidden case" "$T/r13_j08s" \
        && grep -q "^FAIL  hidden case" "$T/r13_j04s" \
        && pass "reader13b: 02, 04 and 08 judge a hidden shape drawn per run (EX_SEED repeats it), printing no expected value; the solutions pass 6 seeds" \
        || fail "reader13b: hidden cases: $r13_h7 / $r13_h8"
    # #4: exercise 09 says which clock it uses, and its note prints fasim's own v4_bc64 clock, which
    # is the one fasim explain prints
    r13_judge 09 "$R13_ROOT/docs/exercises/solutions/09.c" "$T/r13_j09"
    "$FASIM" explain --algo flash2 --profile v4_bc64 --hw h200 --heads 66 --seqlen 16384 --headdim 64 --dtype bf16 > "$T/r13_x09" 2>&1
    r13_xclk=$(sed -n 's/.*the GPU holds \([0-9]*\) MHz at that load.*/\1/p' "$T/r13_x09" | head -1)
    r13_xtile=$(sed -n 's/.*tile = max(G, S) + min(G, S) \/ w_phase\( + W \/ w_phase\)* = \([0-9.]* [nu]s\).*/\2/p' "$T/r13_x09" | head -1)
    [ -n "$r13_xclk" ] && grep -q "^note  (not a check) fasim's v4_bc64 .*run at $r13_xclk MHz, the clock the GPU holds at that kernel's tensor load (wgmma_clock_by_load), not the full-load 1620 MHz" "$T/r13_j09" \
        && grep -q "*Which clock this exercise uses:\* those" "$R13_ROOT/docs/exercises/09-kernel-time/README.md" \
        && grep -q "wgmma_clock_by_load" "$R13_ROOT/docs/exercises/09-kernel-time/README.md" \
        && tail -1 "$T/r13_j09" | grep -q "all 28 checks passed" \
        && pass "reader13b: exercise 09 says it uses the full-load clocks; its note gives fasim's v4_bc64 clock, $r13_xclk MHz as explain prints (tile $r13_xtile)" \
        || fail "reader13b: exercise 09's clock: explain '$r13_xclk', note: $(grep '^note' "$T/r13_j09" | cut -c1-200)"
fi

# ---- reader13b #22: conventions.md's hardware-key table names every key the loader knows ----
mkdir -p "$T/r13_hw"
sed 's/^sms = /smz = /' "$R13_ROOT/sim/hw/h200-sxm.hw" > "$T/r13_hw/h200-sxm.hw"
FASIM_HW_DIR=$T/r13_hw "$FASIM" io --hw h200 > /dev/null 2> "$T/r13_hwerr"
r13_known=$(sed -n "s/.*unknown key 'smz' (known: \([^;)]*\).*/\1/p" "$T/r13_hwerr" | tr -d ',')
r13_undoc=""
for r13_k in $r13_known; do grep -q "^| .*\`$r13_k\`" "$R13_ROOT/docs/conventions.md" || r13_undoc="$r13_undoc $r13_k"; done
[ -n "$r13_known" ] && [ -z "$r13_undoc" ] && grep -q '^| `wgmma_wait_cycles` | SM clocks, 1e-3 to 1e4 | no |' "$R13_ROOT/docs/conventions.md" \
    && grep -q '^| `barrier_cycles` | SM clocks, 1e-3 to 1e4 | no |' "$R13_ROOT/docs/conventions.md" \
    && pass "reader13b: conventions.md's hardware-key table lists every key the loader knows (tcgen05, tmem too), and wgmma_wait_cycles, barrier_cycles" \
    || fail "reader13b: hardware keys not in conventions.md:$r13_undoc ($(head -c 200 "$T/r13_hwerr"))"

# ---- reader13b #7: the busy times are the average SM's (work over the GPU's rate), as the docs say ----
# fa2 at B 4, H 16, N 4096, d 128 on the H200: explain's tensor time a tile x the tiles / SMs = io's tensor busy time
"$FASIM" io --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200 --format csv > "$T/r13_busy.csv" 2>&1
r13_busy=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "busy_tensor_s") c = i} NR > 1 && c {print $c; exit}' "$T/r13_busy.csv")
r13_avg=$("$FASIM" explain --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200 \
    | sed -n 's/.*a tile: tensor [^=]*= \([0-9.]*\) ns;.*/\1/p' | head -1)
# 32 x 64 tiles a head (128 x 64 tiles), B H = 64 heads, 132 SMs
r13_ok=$(awk -v b="$r13_busy" -v t="$r13_avg" 'BEGIN {s = t * 1e-9 * 32 * 64 * 64 / 132; print (b > 0 && s / b > 0.999 && s / b < 1.001) ? 1 : 0}')
[ "$r13_ok" = 1 ] && grep -q "which is the busy time summed over the SMs divided by the SMs -- the average SM's busy time, not the sum" "$R13_ROOT/docs/report-csv.md" \
    && grep -q "the average SM's busy time, not the sum over SMs" "$R13_ROOT/README.md" \
    && pass "reader13b: busy_tensor_s = a tile's tensor time x tiles / SMs (the average SM's), as report-csv.md and README say" \
    || fail "reader13b: busy time: io $r13_busy s, explain tile tensor $r13_avg ns"

# ---- reader13 #11: hbm_vs_sram.png draws FlashAttention's Θ line only up to M = N d e (Theorem 2's range), and says so ----
# the report passes mthm = N d e (N = min(N_q, N_k)) to the script, which drops the Θ points beyond it
# and names the limit in the key; the CSV has M beyond N d e = 2 MiB (Llama-3-8B, N 8192, d 128, bf16)
r13_gp="$R13_ROOT/plots/hbm_vs_sram.gp"
r13_beyond=$(awk -F, 'NR > 1 && $1 > 8192 * 128 * 2' "$T/r13rep/hbm_vs_sram.csv" | wc -l)
grep -qF 'using 1:(mthm <= 0 || $1 <= mthm ? $6 : 1/0) skip 1 with lines dt 3' "$r13_gp" \
    && grep -qF "drawn up to M = N d e = %s: beyond it M > N d e, outside Theorem 2's range d <= M <= N d)" "$r13_gp" \
    && grep -q "mthm=%.17g" "$R13_ROOT/analysis/cli/cmd_report.c" && [ "$r13_beyond" -gt 0 ] \
    && grep -q "FlashAttention's Θ line stops at M = N d e,$" "$R13_ROOT/README.md" \
    && pass "reader13: hbm_vs_sram's Θ(N²d²/M) line stops at M = N d e ($r13_beyond CSV rows beyond it), and its key and the README say so" \
    || fail "reader13: hbm_vs_sram's Θ line past Theorem 2's range ($r13_beyond rows beyond N d e)"
# reader16 #3: the line ended at the last sampled M below N d e (1746220 B) while the key said "up to
# M = N d e = 2 MiB": N d e is sampled too, in its place, so the line reaches it; its Θ value there
# is B H N^2 d^2 e^2 / M with B H = 32 heads (Llama-3-8B, B = 1): 32 x 8192^2 x 128^2 x 4 / 2^21 = 2^26
r13_at=$(awk -F, 'NR > 1 && $1 == 8192 * 128 * 2 { printf "%s %.7g", prev, $6 } NR > 1 { prev = $1 }' "$T/r13rep/hbm_vs_sram.csv")
[ "$r13_at" = "1746220 6.710886e+07" ] && grep -qF "1.25^k and M = N d e;" "$r13_gp" \
    && pass "reader16: hbm_vs_sram.csv samples M = N d e = 2097152 after 1746220 (Θ = 2^26 B there), so the Θ line ends where its key says" \
    || fail "reader16: hbm_vs_sram.csv has no row at N d e: '$r13_at'"
