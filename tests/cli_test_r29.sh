# cli_test_r29.sh -- sourced by tests/cli_test.sh: reader 29's findings (make plots, make run's tables).
R29_ROOT="$(dirname "$0")/.."
# r29_svg SCRIPT VARS OUT: renders a plots/ script as SVG (its pngcairo terminal swapped), for its text
r29_svg() { sed 's/^set terminal pngcairo/set terminal svg/' "$R29_ROOT/plots/$1" > "$T/r29_$1" && gnuplot -e "$2; outfile='$3'" "$T/r29_$1" 2>/dev/null; }
# 1, 2: the pipes CSV names the busiest pipe and the bound apart (fa1 at d = 128: smem, grid, as fasim
#    io says), and the dtype timed (v2: fp32); the plot's title no longer says a kernel takes its
#    busiest pipe's time, and each name carries both
sh "$R29_ROOT/plots/model_csv.sh" pipes "$FASIM" 128 "$T/r29_p128.csv" 2>/dev/null
r29_io=$("$FASIM" io --profile fa1 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200 --format csv 2>/dev/null \
    | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["busiest_pipe"] "," $c["bound"] }')
[ "$(head -1 "$T/r29_p128.csv")" = "profile,pred_ms,tensor_ms,smem_ms,exp_ms,fp32_ms,l2_ms,dram_ms,busy_sum_ms,busiest,bound,dtype" ] \
    && [ "$r29_io" = "smem,grid" ] && grep -q "^fa1,.*,smem,grid,bf16$" "$T/r29_p128.csv" && grep -q "^v2,.*,fp32$" "$T/r29_p128.csv" \
    && pass "reader29 #1-2: pipes_d128.csv: busiest and bound apart (fa1 smem, grid as fasim io), dtype (v2 fp32)" \
    || fail "reader29 #1-2: pipes csv: io '$r29_io'; $(head -3 "$T/r29_p128.csv" | tr '\n' '|')"
r29_svg pipes_stack.gp "infile='$T/r29_p128.csv'; hd=128" "$T/r29_pipes.svg"
pl_has "reader29 #1-2: the pipes plot says the time is at least the busiest pipe's, names v2's fp32, and prints each bound" "$T/r29_pipes.svg" \
    "The time is at least the busiest pipe's; what sets it is the bound under each name" "v2 fp32, the dtype it is built for" "grid" "its bound (fasim io)"
grep -qF "about its busiest pipe's time" "$R29_ROOT/plots/pipes_stack.gp" && fail "reader29 #1: pipes_stack.gp still says 'about its busiest pipe's time'" \
    || pass "reader29 #1: pipes_stack.gp no longer says a kernel takes about its busiest pipe's time"
grep -q '^## pipes_d\*.csv' "$R29_ROOT/docs/report-csv.md" && grep -q '^## model_tflops.csv' "$R29_ROOT/docs/report-csv.md" \
    && pass "reader29 #2: docs/report-csv.md defines pipes_d*.csv and model_tflops.csv" || fail "reader29 #2: report-csv.md lacks the plots' CSVs"
# 3: the predicted-vs-measured TFLOP/s plots take the s15 (CUDA graph) measurement the README quotes
grep -q "model_csv.sh tflops ./\$(BUILD)/fasim analysis/measured/h200/s15_timemodel_input.csv" "$R29_ROOT/Makefile" \
    && grep -qF "measured: analysis/measured/h200/s15_timemodel_input.csv" "$R29_ROOT/plots/tflops_model.gp" \
    && pass "reader29 #3: make plots' model_tflops plots read s15_timemodel_input.csv, and say so" \
    || fail "reader29 #3: model_tflops source"
# 4: SRAM peak's two rules written where the columns are explained
grep -qF "the flash rows count what the kernel keeps in" "$R29_ROOT/docs/io-model.md" && grep -qF "a flash row counts" "$R29_ROOT/README.md" \
    && pass "reader29 #4: io-model.md section 7 and the README say what SRAM peak counts under a kernel profile" \
    || fail "reader29 #4: SRAM peak's rule not in io-model.md / README"
# 5: kernels rows that tie on DRAM say why (DeepSeek-V3 on the H100: fa2, fa3, cudnn 2.741 s)
"$FASIM" report --model "$R29_ROOT/analysis/models/deepseek-v3.json" --hw h100 --out-dir "$T/r29_rep" --no-plots > "$T/r29_rep.out" 2>&1
grep -qF "(fa2, fa3, cudnn on H100-SXM5: the same time, 2.741 s, each DRAM-bound: their tiles move the same bytes past the L2, the model's table's DRAM est, and DRAM's rate sets the time)" "$T/r29_rep.out" \
    && pass "reader29 #5: the kernels table says why fa2, fa3 and cudnn tie on the H100 (DRAM-bound)" \
    || fail "reader29 #5: tie note: $(grep -A14 '^== kernels' "$T/r29_rep.out" | head -16 | tr '\n' '|')"
# 6: err_outliers' fp32 end-to-end curve: hidden under the solid fp32 line, and the key says so
grep -qF '(i == 1 ? " (= fp32 flash2: hidden under it)" : "")' "$R29_ROOT/plots/numerics_outliers.gp" \
    && pass "reader29 #6: err_outliers' key says the fp32 end-to-end curve lies under fp32 flash2" || fail "reader29 #6: outliers key"
# 7: the measured TFLOP/s plots name their files and what one call means, and draw v3
r29_svg tflops_vs_n.gp "ours='$R29_ROOT/analysis/measured/h200/fabench_sweep.csv'; sdpa='$R29_ROOT/analysis/measured/h200/sdpa_sweep.csv'; hd=64; causal=0" "$T/r29_tf.svg"
pl_has "reader29 #7: tflops_d64_causal0 names fabench_sweep.csv and sdpa_sweep.csv, says what one call means, draws v3" "$T/r29_tf.svg" \
    "kernels/ fabench_sweep.csv, PyTorch SDPA sdpa_sweep.csv" "all timed in one device call, so the curves' ratios hold" "v3 (tensor cores, bf16)"
# 8: the tutorial's slot: one block of 32 tiles at twice the tile time
grep -qF "the time is one slot's block of 32 tiles, each at twice" "$R29_ROOT/docs/tutorial.md" && ! grep -qF "one slot's 64 tiles" "$R29_ROOT/docs/tutorial.md" \
    && pass "reader29 #8: tutorial section 5 says a slot runs one block of 32 tiles at twice the tile time" || fail "reader29 #8: tutorial slot wording"
