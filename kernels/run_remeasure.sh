#!/bin/bash
# run_remeasure.sh -- one device call: the v5 forward and the v5 backward on the FlashAttention-2 sweep
# shapes (bf16, d = 64, 128, causal 0, 1, N = 2k..16k) beside PyTorch SDPA (flash, cuDNN) in the same
# call (issues 15, 16), and Nsight Compute's pipe utilization and SM clock of the v5 FP8 forward beside the
# bf16 v5 at B = 4, H = 16, N = 4096, d = 128 (issue 17).
#   bash kernels/run_remeasure.sh     (build/gpu/fabench built here with `make gpu` and carried)
# Writes under $OUT: remeasure_log.txt, v5_fwd_sweep.csv, v5_fwd_sdpa.csv, v5_bwd_sweep.csv,
# v5_bwd_sdpa.csv, fp8_ncu.csv.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
F=./build/gpu/fabench
LOG="$OUT/remeasure_log.txt"
NS=${NS:-2048,4096,8192,16384}
rc=0
run() { echo "+ $*" >>"$LOG"; "$@" >>"$LOG" 2>&1 || { echo "exit $?" >>"$LOG"; rc=1; }; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv >>"$LOG" 2>&1
run timeout 150 $F --sweep --kernels v5 --n $NS --csv "$OUT/v5_fwd_sweep.csv"
run env PYTHONUNBUFFERED=1 timeout 150 python3 kernels/compare_sdpa.py --n $NS --csv "$OUT/v5_fwd_sdpa.csv"
run timeout 200 $F --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --n $NS --csv "$OUT/v5_bwd_sweep.csv"
run env PYTHONUNBUFFERED=1 timeout 200 python3 kernels/compare_sdpa.py --bwd --n $NS --csv "$OUT/v5_bwd_sdpa.csv"
if command -v ncu >/dev/null; then
  M=gpu__time_duration.sum,smsp__cycles_elapsed.avg.per_second,dram__bytes_read.sum
  for m in sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active sm__inst_executed_pipe_xu sm__pipe_fma_cycles_active \
           sm__pipe_alu_cycles_active sm__inst_executed_pipe_fma sm__inst_executed_pipe_alu; do
    M="$M,$m.avg.pct_of_peak_sustained_active"
  done
  run timeout 150 ncu --clock-control none --csv --page raw --metrics $M --kernel-name regex:"fa_v5_fp8_kernel|fa_v5_fwd_kernel" \
      --log-file "$OUT/ncu_fp8.log" -o /tmp/ncu_fp8 -f $F --fp8 --shape 4,16,16,4096,4096,128,0 --no-validate --reps 2 --warmup 0
  ncu --import /tmp/ncu_fp8.ncu-rep --csv --page raw > "$OUT/fp8_ncu.csv" 2>>"$LOG" || rc=1
fi
echo "rc $rc" | tee -a "$LOG"
exit $rc
