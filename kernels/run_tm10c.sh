#!/bin/bash
# run_tm10c.sh -- ubench_pipes' ldsm_mma rows with each mode's clock, and Nsight Compute's pipe counters
# of kernels/ v3 and v3_mt2 (forward, bf16, B 4, H 16, N 4096, d 128): shared-memory wavefronts and
# LDSM instructions (the a factors of docs/time-model.md section 4), the tensor pipe's active cycles.
#   UB=path/ubench_pipes FAB=path/fabench bash kernels/run_tm10c.sh      (writes under $OUT)
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
UB=${UB:-./build/gpu/ubench_pipes}; FAB=${FAB:-./build/gpu/fabench}
timeout 150 $UB --only ldsm_mma --csv "$OUT/ldsm_mma.csv" > "$OUT/ldsm_log.txt" 2>&1; echo "ubench rc $?"
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_hmma.sum,smsp__issue_active.avg.pct_of_peak_sustained_elapsed
for k in v3 v3_mt2 v3_br256; do
  timeout 120 ncu --clock-control none --kernel-name regex:'fa_v3|flash2_tc|v3' --metrics $M --csv \
    $FAB --shape 4,16,16,4096,4096,128,0 --kernels $k --dtype bf16 --no-validate --reps 1 --warmup 0 > "$OUT/v3_ncu_$k.csv" 2>&1
  echo "ncu $k rc $?"
done
