#!/bin/bash
# run_clock_ncu.sh -- the SM clock during the attention kernels (Nsight Compute's
# smsp__cycles_elapsed.avg.per_second with --clock-control none) beside their tensor pipe's activity:
# the time model's wgmma_clock_by_load (docs/time-model.md section 1) says a wgmma kernel runs at the
# clock of its tensor share; this checks it on the kernels it times, forward and backward.
# B 4, N 4096, hidden 2048 (d = 64: 32 heads, d = 128: 16), non-causal.
#   bash kernels/run_clock_ncu.sh    (build/gpu/fabench built here with `make gpu` and carried)
# Writes $OUT/clock_ncu.tgz (one CSV a kernel and d) and $OUT/clock_ncu_log.txt.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
F=./build/gpu/fabench
LOG="$OUT/clock_ncu_log.txt"
M=gpu__time_duration.sum,smsp__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active
N="timeout 150 ncu --clock-control none --csv --page raw --metrics $M"
rc=0
for d in 64 128; do
  H=$((2048 / d))
  $N --kernel-name regex:fa_v5_fwd_kernel $F --shape 4,$H,$H,4096,4096,$d,0 --kernels v5 --no-validate --reps 1 --warmup 0 \
    > "$OUT/clk_v5_fwd_d$d.csv" 2>>"$LOG" || rc=1
  $N --kernel-name regex:fa_v5_bwd_kernel $F --bwd --shape 4,$H,$H,4096,4096,$d,0 --bwd-kernels v5_bwd --no-validate --reps 1 --warmup 0 \
    > "$OUT/clk_v5_bwd_d$d.csv" 2>>"$LOG" || rc=1
  $N --kernel-name regex:fa_v3_fwd_kernel $F --shape 4,$H,$H,4096,4096,$d,0 --kernels v3 --no-validate --reps 1 --warmup 0 \
    > "$OUT/clk_v3_fwd_d$d.csv" 2>>"$LOG"
  for be in CUDNN_ATTENTION FLASH_ATTENTION; do
    $N --kernel-name regex:"cudnn|sm90|fmha|bprop|fprop|flash" --launch-skip 2 --launch-count 4 \
      python3 kernels/sdpa_fwdbwd.py --shape 4,$H,4096,$d --backend $be --iters 2 --warm-fwd --grad randn \
      > "$OUT/clk_sdpa_${be}_d$d.csv" 2>>"$LOG" || rc=1
  done
done
tar czf "$OUT/clock_ncu.tgz" -C "$OUT" $(cd "$OUT" && ls clk_*.csv) && rm -f "$OUT"/clk_*.csv
echo "rc $rc" | tee -a "$LOG"
exit $rc
