# cli_test_reader7.sh -- the seventh reader's list: refusals that name the value and the limit
# (--window, a .hw file's sms, --sram's fractions, --rescale-threshold with --decode), the
# tutorial's prose against its outputs, Theorem 2's range, the legends of io --decode and the
# report, the plots' keys and lines.  Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail,
# expect_msg, oneline; $T, $FASIM).

R7_ROOT="$(dirname "$0")/.."
R7_M="$R7_ROOT/analysis/models"

# ---- 10: --rescale-threshold with --decode or --cu-seqlens is refused, as --softcap is ----
expect_msg "reader7: --rescale-threshold with --decode refused" \
    "--rescale-threshold is not modelled with --decode (its kernel is FlashAttention-2's split-KV one" \
    -- io --decode --kv-len 1024 --rescale-threshold 3
expect_msg "reader7: --rescale-threshold with --cu-seqlens refused" "--rescale-threshold is not modelled with --cu-seqlens" \
    -- io --cu-seqlens 0,512,1024 --rescale-threshold 3

# ---- 12: the refusals name the value and the limit ----
expect_msg -x "reader7: --window side over INT32_MAX names the limit" \
    "--window '2000000000000,0': LEFT = 2000000000000 exceeds 2147483647 (the largest window side taken)" \
    -- io --window 2000000000000,0
expect_msg "reader7: --window right side over INT32_MAX" "RIGHT = 3000000000 exceeds 2147483647" -- io --window 0,3000000000
expect_msg "reader7: --sram 1.5KiB: fractions are not taken" \
    "byte size '1.5KiB' has a fraction: fractions are not taken, the value must be a whole number of bytes" -- io --sram 1.5KiB
mkdir -p "$T/r7hw"
sed 's/^sms *=.*/sms = -5/' "$R7_ROOT/sim/hw/h200-sxm.hw" > "$T/r7hw/h200-sxm.hw"
hw_dir_save; export FASIM_HW_DIR="$T/r7hw"
expect_msg "reader7: sms = -5 in a .hw file names the range 1 to 1024" "sms = '-5' is negative: it must lie in 1 to 1024" -- io --hw h200
hw_dir_restore

# ---- 13: size suffixes: K and KiB are 1024, KB 1000 (as --help and the README say) ----
r7_k=$("$FASIM" io --sram 100K --format csv 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } NR == 2 { print $c["sram_bytes"] }')
r7_kb=$("$FASIM" io --sram 100KB --format csv 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } NR == 2 { print $c["sram_bytes"] }')
"$FASIM" io --help > "$T/r7_help" 2>&1
[ "$r7_k" = 102400 ] && [ "$r7_kb" = 100000 ] && grep -q "K = KiB = 1024, M = MiB, GiB binary; KB = 1000," "$T/r7_help" \
    && grep -qF '`100K` = 102400 and `100KB` = 100000' "$R7_ROOT/README.md" \
    && pass "reader7: --sram 100K = 102400 B, 100KB = 100000 B, as --help and the README say" \
    || fail "reader7: size suffixes: 100K '$r7_k', 100KB '$r7_kb'"

# ---- 5: check's rule: --help states the floor as numerics.md does; the .npy check names u ----
"$FASIM" check --help > "$T/r7_chk_help" 2>&1
"$FASIM" check --save-npy "$T/r7npy" --dtype bf16 --heads 2 --seqlen 48 --headdim 8 --causal --quiet
"$FASIM" check --q "$T/r7npy/q.npy" --k "$T/r7npy/k.npy" --v "$T/r7npy/v.npy" --out "$T/r7npy/o.npy" --bf16 --causal > "$T/r7_npy" 2>&1
grep -q "verdict err <= 2 x naive err + atol, err = max|out - ref|, atol the dtype's" "$T/r7_chk_help" \
    && ! grep -q "verdict max|out - ref| <= 2 max|naive - ref|$" "$T/r7_chk_help" \
    && grep -qF 'A row passes when `err <= F x naive + atol`' "$R7_ROOT/docs/numerics.md" \
    && grep -q "no rounding floor; the bound capped at 16 u max|ref|, u = 0.00391 the unit roundoff of bf16$" "$T/r7_npy" \
    && pass "reader7: check --help states err <= 2 x naive err + atol; the .npy rule names u = 0.00391 bf16's unit roundoff" \
    || fail "reader7: check rule: $(grep 'verdict' "$T/r7_chk_help" | head -1) | $(grep '^reference' "$T/r7_npy")"

# ---- 11: io --decode's legend names partials, block tbl, waves and the '*' ----
"$FASIM" io --decode --kv-len 32768 --heads 32 --kv-heads 8 --headdim 128 --batch 4 > "$T/r7_dec" 2>&1
# partials: 8 B H N_q S (d_v + 1) = 8 * 4 * 32 * 1 * 4 * 129 = 528384 B = 516 KiB
grep -Eq "^packed +4\* +16 +128 +128 .* 516 KiB +0 B +4\.0 .* 1 +140\.7 us" "$T/r7_dec" \
    && grep -q "(a '\*', e.g. 4\*: S chosen by the wave model, --splits auto)" "$T/r7_dec" \
    && grep -q "partials: the fp32 partial outputs O_part, LSE_part the chunks write and the combine reads back, 8 B H N_q S (d_v + 1) bytes" "$T/r7_dec" \
    && grep -q "block tbl: the paged cache's block table read, int32 page numbers (0 B: a contiguous cache); waves: ceil(thread blocks / SMs)" "$T/r7_dec" \
    && pass "reader7: io --decode's legend: partials (516 KiB = 8 B H N_q S (d_v + 1)), block tbl, waves, the '*' of 4*" \
    || fail "reader7: io --decode legend: $(tail -1 "$T/r7_dec")"

# ---- 18, 19: the memory table's capacity column is 'memory'; the heatmap's header says what 'tile' is ----
"$FASIM" animate --heatmap --seqlen 256 --headdim 64 --out-dir "$T/r7_heat" > "$T/r7_heat.out" 2>&1
grep -q "^  tile        1   2   3   4   (the tile's index: row block i for Q, O, l, m, LSE; key block j for K, V; a count: its transfers)$" "$T/r7_heat.out" \
    && pass "reader7: animate --heatmap's header names the tile index (row block i, key block j) over 4 tiles" \
    || fail "reader7: heatmap header: $(sed -n 2p "$T/r7_heat.out")"

# ---- the report: 4 (the papers' misses; their Figure 6 ranges equal papers.csv's: cli_test_reader11.sh), 8 (a pointer to the legend), 9 (bound = report.csv's), 14 (no fa1 rows), 18 ----
"$FASIM" report --no-plots --out-dir "$T/r7_rep" > "$T/r7_rep.out" 2>&1
r7_one=$(oneline "$T/r7_rep.out")
case $r7_one in
*"FlashAttention-1 at long N (the fa1 profile runs one thread block per (batch, head), B H = (16k / N) x (2048 / d) blocks on 108 SMs: the forward's grid (2 blocks an SM) is under one wave from N = 2k at d = 128 (128 blocks) and 4k at d = 64;"*"without a mask d = 128 1.07 at 2k, 0.96 at 4k, 0.47 at 8k, 0.23 at 16k; d = 64 0.74 at 4k, 0.68 at 8k, 0.34 at 16k)"*"FlashAttention-3's backward in Figure 6 too fast ("[0-9].[0-9][0-9]-[0-9].[0-9][0-9]": its kernel was not run here"*"cuDNN's, with the count measured on the H200, "[0-9].[0-9][0-9]-[0-9].[0-9][0-9]", on both sides of 1"*)
    grep -Eq "^Figure 4 +a100 +FlashAttention +fwdbwd +128 +0 .* 8192: 82 -> 38\.48 \(0\.47\)" "$T/r7_rep.out" \
        && grep -Eq "^Figure 4 +a100 +FlashAttention +fwdbwd +64 +0 .* 4096: 108 -> 79\.87 \(0\.74\)  8192: 110 -> 75\.28 \(0\.68\)" "$T/r7_rep.out" \
        && ! grep -q "16 blocks on 108 SMs" "$T/r7_rep.out" && grep -q "so B H = (16k / N)(2048 / d) blocks on 108 SMs" "$R7_ROOT/docs/time-model.md" \
        && pass "reader7: the papers' misses list FlashAttention-1 at 8k d = 128 (0.47), d = 64 4k/8k (0.74, 0.68), FA3 and cuDNN backward" \
        || fail "reader7: papers' misses: the ratios quoted are not papers' rows" ;;
*) fail "reader7: papers' misses note: $(grep -A3 'FlashAttention-1 at' "$T/r7_rep.out" | head -4)" ;;
esac
# the first table points to the legend, once; the legend follows the last model's table
[ "$(grep -c "^(kernel: the profile timed; vs std: standard's bytes (time) / this row's; DRAM est: the bytes past the L2; bound: what sets the time -- the legend in full after the last model's table)$" "$T/r7_rep.out")" = 1 ] \
    && [ "$(sed -n 4p "$T/r7_rep.out" | cut -c1-8)" = "(kernel:" ] \
    && pass "reader7: the report's first table points to the legend (once, under its header)" \
    || fail "reader7: the first table's pointer: $(sed -n 4p "$T/r7_rep.out")"
# DeepSeek-V2 flash2 on the A100: the table's bound tensor is report.csv's bound; its busiest pipe DRAM beside it
r7_b=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["model"] == "deepseek-v2" && $c["hw"] == "a100" && $c["algo"] == "flash2" { print $c["bound"] " " $c["busiest_pipe"] " " ("model_bound" in c) }' "$T/r7_rep/report.csv")
[ "$r7_b" = "tensor DRAM 0" ] && sed -n '1,14p' "$T/r7_rep.out" | grep -Eq "^ +flash2 +fa2 +128 +64 +7\.831 TiB .* 6\.538 s +6\.30x +168\.2 +tensor$" \
    && case $r7_one in *"report.csv's bound is this column, its busiest_pipe the busiest pipe"*) true ;; *) false ;; esac \
    && pass "reader7: DeepSeek-V2 flash2 A100: the table's bound tensor = report.csv's bound; busiest_pipe DRAM; no model_bound column" \
    || fail "reader7: report bound vs CSV: '$r7_b'"
# kernels tables without fa1 rows say why (d > 128): DeepSeek-V2, V3 (d = 192), Gemma-2-9b, Gemma-3-1b, GPT-J (d = 256)
r7_nf=$(awk '/^== kernels: / { m = $3 } /^\(no fa1 rows: FlashAttention-1.s kernels take head dims d <= 128, and this model has d = / { printf "%s%s", sep, m; sep = " " }' "$T/r7_rep.out")
[ "$r7_nf" = "deepseek-ai/DeepSeek-V2, deepseek-ai/DeepSeek-V3, google/gemma-2-9b, google/gemma-3-1b-pt, EleutherAI/gpt-j-6b," ] \
    && grep -q "^(no fa1 rows: FlashAttention-1's kernels take head dims d <= 128, and this model has d = 192, d_v = 128)$" "$T/r7_rep.out" \
    && pass "reader7: the kernels tables without fa1 rows (DeepSeek-V2/V3, Gemma-2-9b, Gemma-3-1b, GPT-J) say fa1 takes d <= 128" \
    || fail "reader7: no-fa1 notes under: '$r7_nf'"
grep -Eq "^hardware +memory +standard OOM N +flash1 OOM N +flash2 OOM N$" "$T/r7_rep.out" && ! grep -Eq "^hardware +HBM +standard OOM" "$T/r7_rep.out" \
    && pass "reader7: the memory table's capacity column is headed 'memory'" || fail "reader7: memory table header"

# ---- 20: the report's overflow names the model, its table and its real shape ----
expect_msg "reader7: report overflow names gpt2-medium's table, H = 16" \
    "model openai-community/gpt2-medium, its table's standard row on A100-SXM4-80GB (B = 1, H = 16, H_kv = 16, N = 300000000, d = 64, d_v = 64): standard's closed-form matmul FLOPs exceed 64 bits" \
    -- report --seqlen 300000000 --model "$R7_M/gpt2-medium.json" --no-plots --out-dir "$T/r7_ov"
[ ! -e "$T/r7_ov" ] && pass "reader7: the refused report leaves no directory" || fail "reader7: the refused report left $T/r7_ov"

# ---- 2: Theorem 2's range: outside d <= M <= N d the line says so and gives the compulsory bytes ----
"$FASIM" io --algo flash2 --seqlen 1 --seqlen-k 32768 --headdim 128 --heads 32 --kv-heads 8 > "$T/r7_th_dec" 2>&1
"$FASIM" io --sram 10GiB > "$T/r7_th_big" 2>&1
"$FASIM" io --seqlen 4096 > "$T/r7_th_in" 2>&1
"$FASIM" explain --algo flash2 --seqlen 1024 > "$T/r7_th_x" 2>&1
# decode: K, V of 8 kv heads x 32768 x 128 x 2 B = 128 MiB; FlashAttention-2 runs the 4 query heads of a K,V head as 4 rows (seqlenq_ngroups_swapped): read once
grep -Eq "^flash2 +64 +128 +1 +256 +128\.7 MiB .* 288\.7 KiB +458 " "$T/r7_th_dec" \
    && grep -q "^note: Theta bound: M = 232448 B is outside Theorem 2's range d <= M <= N d (in bytes d e = 256 to N d e = 256, N = min(N_q, N_k) = 1), where the Theta expression is no lower bound: every algorithm moves at least the compulsory bytes, Q, K, V, O once, 128 MiB (total / compulsory: flash2 1.01)$" "$T/r7_th_dec" \
    && grep -Eq "^flash1 .* 2 B +1274880 " "$T/r7_th_big" \
    && grep -q "^note: Theta bound: M = 10737418240 B is outside Theorem 2's range .* Q, K, V, O once, 512 KiB (total / compulsory: standard 24.5, flash1 3.89, flash2 13.3)$" "$T/r7_th_big" \
    && ! grep -q "Theta bound: M = .* is outside" "$T/r7_th_in" \
    && grep -q "^  compulsory bytes, Q, K, V, O once, 524288 B (512 KiB): counted / compulsory = 13.3$" "$T/r7_th_x" \
    && ! grep -q "e+0" "$T/r7_th_dec" && grep -qF "**Theorem 2's range.**" "$R7_ROOT/docs/io-model.md" \
    && pass "reader7: outside d <= M <= N d (decode, --sram 10GiB, N = 1024) io and explain name the compulsory bytes (128 MiB, 512 KiB); inside (N = 4096) no note; total/Θ 458, not 4.58e+02" \
    || fail "reader7: Theorem 2's range: $(grep 'Theta bound: M' "$T/r7_th_dec" | cut -c1-200)"

# ---- 21: tiles not multiples of 16: the fused kernels fall back to the roofline, standard's library GEMMs are timed ----
"$FASIM" io --block-r 17 --block-c 64 > "$T/r7_17" 2>&1
grep -Eq "^standard +17 +64 .* 18\.79 us +launch$" "$T/r7_17" && grep -Eq "^flash2 +17 +64 .* \(3\.387 us\) +memory$" "$T/r7_17" \
    && grep -q "^note: standard (eager) is timed on these tiles all the same: its kernels are library GEMMs, which take any size" "$T/r7_17" \
    && pass "reader7: --block-r 17: eager timed (18.79 us), fa2 on the roofline (3.387 us), and the note says why" \
    || fail "reader7: 17 x 64 tiles: $(grep '^note: standard' "$T/r7_17")"

# ---- 1: the tutorial's prose matches its outputs (grid and launch bounds, the measured FLOP/B, L2 sizes) ----
r7_tut="$R7_ROOT/docs/tutorial.md"
! grep -q "enough for the 132 SMs\|because it fills the GPU\|still says \"memory\"\|50–60 MB\|^## 1. Standard attention is memory-bound" "$r7_tut" \
    && grep -q "^## 1. Standard attention moves Θ(N²) bytes$" "$r7_tut" \
    && grep -q "866.8 / 3.94 ≈ 220 FLOP/B" "$r7_tut" && grep -q "datasheet ratio is 989 TFLOP/s / 4.8 TB/s ≈ 206 FLOP/B" "$r7_tut" \
    && grep -q "^flash2    fa2 split      64x256 .* 29\.85 us    143\.9 grid$" "$r7_tut" \
    && grep -q "time 125.6 us, 273.6 TFLOP/s, bound by the grid" "$r7_tut" && grep -q "256 blocks are 0.97 waves" "$r7_tut" \
    && grep -q "^flash2    fa2            128x64 .* 385\.2 us    356\.8 tensor$" "$r7_tut" && grep -q "The time model's bound column says tensor instead" "$r7_tut" \
    && grep -q "^flash2    L2 model (50 MiB L2 in 2 partitions" "$r7_tut" && grep -q "(50 MiB on the H100, 60 MiB on the H200)" "$r7_tut" \
    && grep -Eq "^standard +64 +64 +16 +16 .* 15\.79 us +launch$" "$r7_tut" && grep -q "Standard's 15.79 us is mostly its three" "$r7_tut" \
    && grep -Eq "^flash1 +64 +64 +16 +16 .* 131\.8 us +grid$" "$r7_tut" && grep -q "does all 256 tiles (131.8 us)" "$r7_tut" \
    && pass "reader7: the tutorial's prose names the grid and launch bounds its outputs print, 206 (datasheet) and 220 FLOP/B (measured), 50/60 MiB L2" \
    || fail "reader7: tutorial prose and outputs disagree"

# ---- 3: hbm_vs_sram: the tile grows ~ M at practical M (the CSV's numbers), ~ sqrt(M) only at multi-MiB M ----
r7_sr=$(awk -F, '$1 == 49152 { b0 = $2; f0 = $5 } $1 == 234375 { b1 = $2; f1 = $5 } $1 == 1117581 { b2 = $2 } $1 == 3410585 { b3 = $2 }
    END { printf "%d %d %.2f %d %d", b0, b1, f0 / f1, b2, b3 }' "$T/r7_rep/hbm_vs_sram.csv")
[ "$r7_sr" = "32 128 3.87 384 768" ] \
    && grep -q "(hbm_vs_sram.csv: M 49152 -> 234375 B, tile 32 -> 128, flash2's bytes / 3.87, close to the Θ" "$R7_ROOT/README.md" \
    && grep -q "line's / 4.77), and like √M only at multi-MiB M (1117581 -> 3410585 B: tile 384 -> 768)" "$R7_ROOT/README.md" \
    && grep -q "these tiles too while the B d terms dominate, ∝ √M only at multi-MiB M" "$R7_ROOT/plots/hbm_vs_sram.gp" \
    && pass "reader7: README and hbm_vs_sram's key: tile 32 -> 128 over M 49152 -> 234375 (bytes / 3.87), 384 -> 768 at multi-MiB M, as the CSV" \
    || fail "reader7: hbm_vs_sram CSV '$r7_sr' against the README"

# ---- 6, 7, 17: citations a reader can open; the inference table whole; the time model's median error ----
! grep -rq "FACTS" "$R7_ROOT/docs" "$R7_ROOT/sim/hw" "$R7_ROOT/analysis" "$R7_ROOT/README.md" \
    && grep -q "sdpa_flash,4096,64,0,.*,2.01551e+08," "$R7_ROOT/analysis/measured/h200/ncu_io.csv" \
    && grep -q "from DRAM, 1.001 x Q + K + V once (3 x 128 x 4096 x 64 x 2 = 201,326,592 B)" "$R7_ROOT/docs/l2-model.md" \
    && grep -q '"(132, 1, 1)","(384, 1, 1)"' "$R7_ROOT/analysis/measured/h200/v5_bwd_ncu.csv" \
    && pass "reader7: no citation of shared/FACTS.md; l2-model.md cites ncu_io.csv's 201,550,848 B, profiles.c v5_bwd_ncu.csv's 132 x 384" \
    || fail "reader7: FACTS.md still cited: $(grep -rl FACTS "$R7_ROOT/docs" "$R7_ROOT/sim/hw" "$R7_ROOT/analysis" | head -3)"
awk '/^\| batch \| kv-len \| packed, S = 1/ { t = 1; next } t && /^\|/ { rows++; next } t { exit } END { exit rows != 5 }' "$R7_ROOT/docs/inference.md" \
    && grep -A1 '^| 64 | any | 512 blocks fill 132 SMs' "$R7_ROOT/docs/inference.md" | tail -1 | grep -q '^$' \
    && pass "reader7: inference.md's decoding table has its 5 rows together, the worked example below it" \
    || fail "reader7: inference.md's table is split"
fasim_memo compare --measured "$R7_ROOT/analysis/measured/h200/s15_timemodel_input.csv" --hw h200 > "$T/r7_cmp" 2>&1
fasim_memo compare --measured "$R7_ROOT/analysis/measured/h200/timemodel_input.csv" --hw h200 > "$T/r7_cmp0" 2>&1
grep -Eq "^time +512 rows: +471 within 15 %, median \|fasim / measured - 1\| = 6\.2 %, largest 55\.0 %" "$T/r7_cmp" \
    && grep -Eq "^time +512 rows: +436 within 15 %, median \|fasim / measured - 1\| = 6\.2 %" "$T/r7_cmp0" \
    && grep -q "median error 6.2 %, 471 of the 512 within 15 %" "$R7_ROOT/README.md" && ! grep -q "median error 10 %\|median error of 10 %" "$R7_ROOT/README.md" \
    && grep -q "(471 of 512 within 15 %, the largest 55.0 %)" "$R7_ROOT/README.md" && grep -q "before each launch: 436, 6.2 %" "$R7_ROOT/README.md" \
    && pass "reader7: README's median time error 6.2 % (471 of 512 within 15 %; 436 on the eager-timed file) is fasim compare's" \
    || fail "reader7: compare: $(grep '^time' "$T/r7_cmp" "$T/r7_cmp0")"

# ---- 15: cp_time_vs_p's ideal line is the plot's last element, dotted, black and wider than the schemes' ----
r7_cp="$R7_ROOT/plots/cp_time_vs_p.gp"
r7_last=$(awk '/^    plot for/ { p = 1 } p { l = $0 } p && !/\\$/ { print l; exit }' "$r7_cp")
case $r7_last in
*'with lines dt 3 lw 3 lc rgb "#000000" title "ideal: one GPU'"'"'s time / P (dotted, drawn last: on top)"'*)
    grep -q '^dts = "1 1 1 2"$' "$r7_cp" && [ "$(grep -c 'dt 3' "$r7_cp")" = 1 ] \
        && pass "reader7: cp_time_vs_p draws the ideal line last, dotted (dt 3, no scheme's), black, lw 3" \
        || fail "reader7: cp_time_vs_p: a scheme shares the ideal line's dash style" ;;
*) fail "reader7: cp_time_vs_p's last plot element: $r7_last" ;;
esac

# ---- 16: hbm_vs_n_<model>.csv has the model's own N, whose counted / Theta the key quotes ----
r7_n=$(awk -F, '$1 == 163840 { printf "%.4g %.4g", $4 / $6, $2 / $5 }' "$T/r7_rep/hbm_vs_n_deepseek-v2.csv")
r7_rows=$(awk -F, 'NR > 1' "$T/r7_rep/hbm_vs_n_deepseek-v2.csv" | wc -l)
r7_rows_p2=$(awk -F, 'NR > 1' "$T/r7_rep/hbm_vs_n_llama-3-8b.csv" | wc -l)
[ "$r7_n" = "4.514 7.85" ] && [ "$r7_rows" -eq 15 ] && [ "$r7_rows_p2" -eq 14 ] \
    && awk -F, 'NR > 2 && $1 <= p { exit 1 } { p = $1 }' "$T/r7_rep/hbm_vs_n_deepseek-v2.csv" \
    && pass "reader7: hbm_vs_n_deepseek-v2.csv has N = 163840 in order (flash2 / Θ 4.514, standard / Θ 7.85); Llama-3-8B's 8192 is a power of two: 14 rows" \
    || fail "reader7: hbm_vs_n model N row: '$r7_n', $r7_rows rows, llama $r7_rows_p2"
