# cli_test_reader8.sh -- the eighth reader's list: compare's bound is fasim io's (what sets the time)
# with the busiest pipe its own column, results.md's compare block and figures from the real command,
# FlashAttention-1's grid note, animate's and check's defaults in --help, the hbm_vs_n Theta line
# clipped to Theorem 2's range, the report's footnotes, --model's fp32 -> bf16, output folders.
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg, oneline; $T, $FASIM).

R8_ROOT="$(dirname "$0")/.."
R8_H200="$R8_ROOT/analysis/measured/h200"

# ---- 4: compare's bound = io's bound; busiest = the busiest pipe (v4, B 4, H 32, N 4096, d 64) ----
R8_FASIM=$(cd "$(dirname "$FASIM")" && pwd)/$(basename "$FASIM")
# from the repository root, as results.md and compare.txt run it (the first line names the path)
(cd "$R8_ROOT" && "$R8_FASIM" compare --measured analysis/measured/h200/compare_input.csv --hw h200) > "$T/r8_cmp" 2>&1
fasim_memo compare --measured "$R8_H200/compare_input.csv" --hw h200 --format csv > "$T/r8_cmp.csv" 2>&1
fasim_memo compare --measured "$R8_H200/compare_input.csv" --hw h200 --format json > "$T/r8_cmp.json" 2>&1
r8_io=$("$FASIM" io --hw h200 --profile v4 --batch 4 --heads 32 --seqlen 4096 --headdim 64 --dtype bf16 --format csv |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["bound"] " " $c["busiest_pipe"] }')
r8_cc=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "v4" && $c["d"] == 64 { print $c["bound"] " " $c["busiest_pipe"] }' "$T/r8_cmp.csv")
r8_cj=$(jq -r '.[] | select(.kernel == "v4" and .d == 64) | .bound + " " + .busiest_pipe' "$T/r8_cmp.json" 2>/dev/null)
[ "$r8_io" = "softmax exp" ] && [ "$r8_cc" = "softmax exp" ] && { [ -z "$r8_cj" ] || [ "$r8_cj" = "softmax exp" ]; } \
    && grep -Eq "^v4 +4 +32 +4096 +64 .* 1\.694 +1\.590 +1\.07 exp +softmax$" "$T/r8_cmp" \
    && grep -q "ratio busiest bound$" "$T/r8_cmp" \
    && grep -q " model's vs meas ms; busiest the busiest pipe of the time model" "$T/r8_cmp" \
    && "$FASIM" compare --help | grep -q "CSV and JSON: bound and" \
    && pass "reader8: compare's bound is io's (v4 d = 64: softmax), busiest the busiest pipe (exp), CSV busiest_pipe" \
    || fail "reader8: compare bound: io '$r8_io', csv '$r8_cc', json '$r8_cj'"

# ---- 1: results.md's compare block is the command's output; the Time bullet and L2 figures say what it says ----
r8_blk=$(awk '/^fasim compare: analysis\/measured\/h200\/compare_input.csv on H200-SXM/ { on = 1 } on && /^```/ { exit } on' "$R8_ROOT/docs/results.md")
r8_cmd=$(sed '/^(columns/,$d' "$T/r8_cmp" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
[ -n "$r8_blk" ] && [ "$r8_blk" = "$r8_cmd" ] \
    && grep -q "^time               18 rows:   17 within 15 %, median |fasim / measured - 1| = 5.6 %" "$T/r8_cmp" \
    && grep -q "17 of the 18 rows within 15 % of the measured time, median |fasim / measured - 1| = 5.6 %" "$R8_ROOT/docs/results.md" \
    && grep -q "roofline time (max(compute, bytes / bandwidth)) was 0.33-0.67x" "$R8_ROOT/docs/results.md" \
    && grep -Eq "^v1 +4 512/32 +256/4096 +64 .* 30740\.1 +30000\.7 +1\.02 " "$T/r8_cmp" \
    && grep -q "within 3 % for v1, v2, every v3" "$R8_ROOT/docs/results.md" \
    && grep -q "1.3 % but v1 at d = 64: 30740 MB against 30001 MB, 1.025" "$R8_ROOT/docs/results.md" \
    && ! grep -q "roofline time is 0.33-0.46x" "$R8_ROOT/docs/results.md" \
    && cmp -s "$T/r8_cmp" "$R8_H200/compare.txt" \
    && pass "reader8: results.md's compare block and compare.txt are the command's output; 17 of 18 within 15 %, median 5.6 %; L2 within 3 %" \
    || fail "reader8: results.md compare block differs from the command's output"

# ---- 2: the v5 forward figures of results.md are today's ----
fasim_memo compare --measured "$R8_H200/v5_compare_input.csv" --hw h200 --format csv > "$T/r8_v5.csv" 2>&1
r8_v5=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "v5" { r = $c["pred_ms"] / $c["meas_ms"]; d = $c["d"];
    if (!(d in lo) || r < lo[d]) lo[d] = r; if (r > hi[d]) hi[d] = r }
    END { printf "%.2f-%.2f %.2f-%.2f", lo[64], hi[64], lo[128], hi[128] }' "$T/r8_v5.csv")
fasim_memo compare --measured "$R8_H200/v5_compare_input.csv" --hw h200 > "$T/r8_v5" 2>&1
[ "$r8_v5" = "1.12-1.19 1.04-1.10" ] && grep -q "^time               32 rows:   25 within 15 %, median |fasim / measured - 1| = 5.7 %" "$T/r8_v5" \
    && grep -q "h200\`): 1.12-1.19 of the measured time at d = 64, 1.04-1.10 at d = 128 -- too slow; 25 of the" "$R8_ROOT/docs/results.md" \
    && grep -q "the model of the seventh session, before the load" "$R8_ROOT/docs/results.md" \
    && grep -q "^The current model (with the load clock, the issue slots, the dQacc clear in the pre-pass, PyTorch's" "$R8_ROOT/docs/results.md" \
    && pass "reader8: v5 forward 1.12-1.19 (d = 64), 1.04-1.10 (d = 128), 25 of 32 within 15 %, as results.md says" \
    || fail "reader8: v5 compare: '$r8_v5'"
# today's v5_bwd figure in results.md: min / median / max at d = 64
"$FASIM" compare --measured "$R8_H200/v5_bwd_sweep.csv" --hw h200 --format csv > "$T/r8_v5b.csv" 2>&1
r8_v5b=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "v5_bwd" && $c["d"] == 64 { print $c["pred_ms"] / $c["meas_ms"] }' "$T/r8_v5b.csv" |
    sort -n | awk '{ v[NR] = $1 } END { printf "%.2f / %.2f / %.2f", v[1], (v[4] + v[5]) / 2, v[NR] }')
# (the v5_bwd profile is the tenth session's kernel, s10_issue.csv: this older file's rows are predicted faster)
[ "$r8_v5b" = "0.84 / 0.88 / 0.89" ] && grep -q "the same three commands, min / median / max (d = 64, d = 128): v5_bwd 0.84 / 0.88 / 0.89, 0.87 / 0.93 /" "$R8_ROOT/docs/results.md" \
    && pass "reader8: today's v5_bwd ratios at d = 64 (0.84 / 0.88 / 0.89) as results.md lists them" \
    || fail "reader8: v5_bwd today: '$r8_v5b'"

# ---- 3: FlashAttention-1's grid: under a wave from N = 2k at d = 128 (128 blocks, 2 an SM forward) ----
"$FASIM" io --pass fwdbwd --hw a100 --algo flash1 --batch 8 --heads 16 --seqlen 2048 --headdim 128 --dtype fp16 > "$T/r8_fa1" 2>&1
"$FASIM" report --no-plots --out-dir "$T/r8_rep" > "$T/r8_rep.out" 2>&1
r8_fa1=$(awk -F, '$4 == "FlashAttention" && $2 == "Figure 4" && $7 == 128 && $8 == 0 { printf "%s:%.2f ", $9, $13 }' "$T/r8_rep/papers.csv")
grep -Eq "^flash1 +fa1 fwd +16x128 .* 2 \(shared memory\)$" "$T/r8_fa1" && grep -Eq "^flash1 +fwd \+ bwd: .* grid$" "$T/r8_fa1" \
    && [ "$r8_fa1" = "512:1.58 1024:1.37 2048:1.07 4096:0.96 8192:0.47 16384:0.23 " ] \
    && oneline "$T/r8_rep.out" | grep -qF "the forward's grid (2 blocks an SM) is under one wave from N = 2k at d = 128 (128 blocks) and 4k at d = 64" \
    && grep -q "wave from N = 2k at d = 128 (128 blocks, 0.59 waves" "$R8_ROOT/docs/time-model.md" \
    && ! grep -q "at d = 128 from 8k (32" "$R8_ROOT/docs/time-model.md" \
    && pass "reader8: fa1 at d = 128 is grid-bound from N = 2k (128 blocks, 2 an SM); the ratio halves at 8k (0.96 -> 0.47)" \
    || fail "reader8: fa1 grid: '$r8_fa1'"

# ---- 5, 6: animate's default tiles, check's default precision, io-model.md section 8 ----
"$FASIM" animate --help > "$T/r8_anim_help" 2>&1
"$FASIM" check --help > "$T/r8_chk_help" 2>&1
"$FASIM" check --seqlen 64 --headdim 16 --format csv > "$T/r8_chk.csv" 2>&1
grep -q "(no --blocks, --block-r, --block-c): 4 x 4 tiles," "$T/r8_anim_help" && ! grep -q "of 16 that fit M, the default" "$T/r8_anim_help" \
    && grep -q "it check runs fp64 throughout against the fp64 reference" "$T/r8_chk_help" && ! grep -q "(default fp16" "$T/r8_chk_help" \
    && grep -q "max_rel_err" "$T/r8_chk.csv" && ! grep -q "dtype" "$T/r8_chk.csv" \
    && grep -q '^### `--blocks fit`$' "$R8_ROOT/docs/io-model.md" && ! grep -q 'blocks fit` (the default)' "$R8_ROOT/docs/io-model.md" \
    && pass "reader8: animate --help: 4 x 4 tiles by default; check --help: fp64 without --dtype; io-model.md 8 says whose default fit is" \
    || fail "reader8: animate/check help defaults"

# ---- 7: hbm_vs_n: FlashAttention's Theta line from N = M / (d e) on (Theorem 2's range), said in the key ----
grep -q 'using 1:(\$1 >= nthm ? \$6 : 1/0) skip 1 with lines dt 3' "$R8_ROOT/plots/hbm_vs_n.gp" \
    && grep -q 'using 1:(win > 0 && \$1 >= nthm ? \$7 : 1/0)' "$R8_ROOT/plots/hbm_vs_n.gp" \
    && pass "reader8: hbm_vs_n.gp draws the Theta(N^2 d^2 / M) and window lines for N >= nthm only" \
    || fail "reader8: hbm_vs_n.gp does not clip the Theta line"
if command -v gnuplot >/dev/null 2>&1; then
    svg_gnuplot "$T/r8_bin" "$T/r8_svg"
    if PATH="$T/r8_bin:$PATH" "$FASIM" report --quiet --model "$R8_ROOT/analysis/models/gpt2-medium.json" --hw h200 \
        --out-dir "$T/r8_pl" 2>"$T/err"; then
        # M = 232448 B, d = 64, e = 2: N = 232448 / 128 = 1816
        pl_has "reader8: hbm_vs_n's key: the Theta line is drawn from N = M / (d e) = 1816" "$(ls "$T/r8_svg"/hbm_vs_n.*.svg | head -1)" \
            "(drawn from N = 2k, the first sampled N >= M / (d e) = 1816: below it M" "outside Theorem 2"
    else
        fail "reader8: report with plots: $(head -3 "$T/err")"
    fi
else
    skip "reader8: hbm_vs_n's rendered key" "no gnuplot"
fi

# ---- 8, 9: the report's footnotes: H100 vs H200 named in order; which models have no fa1 row ----
r8_rep1=$(oneline "$T/r8_rep.out")
case $r8_rep1 in
*"No row: fa1 on A100-SXM4-80GB, H100-SXM5, H200-SXM for the models deepseek-v2 (d = 192), deepseek-v3 (d = 192), gemma-2-9b (d = 256), gemma-3-1b (d = 256), gpt-j-6b (d = 256) only (their config files' names under analysis/models/);"*"(L2: H200 8.76 vs H100 8.1 TB/s; DRAM: H200 3.94 vs H100 2.75 TB/s)"*)
    ! grep -qF "8.76 against 8.1" "$T/r8_rep.out" \
        && pass "reader8: report: 'H200 8.76 vs H100 8.1 TB/s'; 'No row: fa1 ...' names the d > 128 models" \
        || fail "reader8: report: the old 'against' wording is still printed" ;;
*) fail "reader8: report footnotes: $(echo "$r8_rep1" | grep -o 'No row: .\{0,200\}')" ;;
esac

# ---- 10: a model stored in fp32 is counted in bf16 without --causal too (unless --dtype) ----
r8_dt=$("$FASIM" io --model "$R8_ROOT/analysis/models/gemma-2-9b.json" --algo flash2 --format csv 2>/dev/null |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["dtype"] }')
r8_dt32=$("$FASIM" io --model "$R8_ROOT/analysis/models/gemma-2-9b.json" --algo flash2 --dtype fp32 --format csv 2>/dev/null |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["dtype"] }')
[ "$r8_dt" = bf16 ] && [ "$r8_dt32" = fp32 ] \
    && grep -q "is counted in bf16 unless \`--dtype\` is given (with or without \`--causal\`)" "$R8_ROOT/README.md" \
    && pass "reader8: --model of an fp32 model counts bf16 without --causal, fp32 with --dtype fp32; the README says so" \
    || fail "reader8: fp32 model: '$r8_dt' / '$r8_dt32'"

# ---- 11: output folders: sweep --out names the missing directory; --out-dir / --study create theirs
#      (the last folder only, its parent must exist: reader23 #9) ----
expect_msg -x "reader8: sweep --out into a missing directory says it does not exist" \
    "cannot write $T/r8_none/x.csv: the directory $T/r8_none does not exist (a file option -- sweep --out, io --trace -- does not create its folder: make it first; the folder options report --out-dir, animate --out-dir, check --study and --save-npy create their last folder only)" \
    -- sweep --vary seqlen=512 --out "$T/r8_none/x.csv"
"$FASIM" animate --out-dir "$T/r8_new" > /dev/null 2>&1
"$FASIM" animate --out-dir "$T/r8_new2/a/b" > /dev/null 2>&1; r8_ab=$?
"$FASIM" report --help > "$T/r8_rep_help" 2>&1
[ -d "$T/r8_new" ] && [ "$r8_ab" = 2 ] && [ ! -e "$T/r8_new2" ] && grep -q "where the frames go (required; created if missing," "$T/r8_anim_help" \
    && grep -q "where the CSV and plots go (default build/report;" "$T/r8_rep_help" && grep -q "created if missing, its parent must exist" "$T/r8_rep_help" \
    && grep -q "DIR is created" "$T/r8_chk_help" \
    && "$FASIM" sweep --help | grep -q "its folder" \
    && pass "reader8: animate/report --out-dir and check --study say they create the folder (animate made r8_new, refused r8_new2/a/b); sweep --out's must exist" \
    || fail "reader8: output folder help"
