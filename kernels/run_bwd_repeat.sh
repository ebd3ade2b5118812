#!/bin/bash
# run_bwd_repeat.sh -- issue 16's d = 128 shapes at the edge of the bar, measured REPS times in turn
# (fabench's v5_bwd sweep, then SDPA's backward, then again), so that each ratio to cuDNN has a
# spread: the machine is shared and one call's cuDNN time moved 4 % between calls.
#   FAB=path/to/fabench REPS=3 bash kernels/run_bwd_repeat.sh     (writes under $OUT: sweepR.csv,
#   sdpaR.csv, ratiosR.txt for R = 1..REPS, log.txt)
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
F=${FAB:-./build/gpu/fabench}
NS=${NS:-4096,8192,16384}; REPS=${REPS:-3}
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv; } > "$OUT/log.txt" 2>&1
for r in $(seq 1 $REPS); do
  timeout 150 $F --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 128 --n $NS --csv "$OUT/sweep$r.csv" >> "$OUT/log.txt" 2>&1
  echo "rep $r fabench rc $?" | tee -a "$OUT/log.txt"
  env PYTHONUNBUFFERED=1 timeout 150 python3 kernels/compare_sdpa.py --bwd --d 128 --n $NS --csv "$OUT/sdpa$r.csv" >> "$OUT/log.txt" 2>&1
  echo "rep $r sdpa rc $?" | tee -a "$OUT/log.txt"
  python3 kernels/bwd_ratios.py "$OUT/sdpa$r.csv" "$OUT/sweep$r.csv" > "$OUT/ratios$r.txt" 2>&1
  cat "$OUT/ratios$r.txt"
done
