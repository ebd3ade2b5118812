#!/bin/bash
# run_tm14.sh -- ubench_pipes' ldsm_mma rows (one block of 4, 8, 16 warps an SM and two blocks of 4
# and of 8), and Nsight Compute's pipe counters, local-memory (spill) traffic and warp stalls of the
# four-warp mma.sync forwards (kernels/ v3_mt2, v3_mt2_bc32, FlashAttention-2's flash_fwd_kernel
# through PyTorch SDPA), of v3 at d = 64 (two blocks of 8 warps) and of v3_bwd_bc64 at d = 64
# (docs/time-model.md section 5).  B 4, N 4096, hidden 2048 (H = 2048 / d), bf16, non-causal.
#   UB=path/ubench_pipes FAB=path/fabench bash kernels/run_tm14.sh      (writes under $OUT)
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
UB=${UB:-./build/gpu/ubench_pipes}; FAB=${FAB:-./build/gpu/fabench}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$OUT/smi.txt" 2>&1
timeout 200 $UB --only ldsm_mma --csv "$OUT/ldsm_mma.csv" > "$OUT/ldsm_log.txt" 2>&1; echo "ubench rc $?"
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
M=$M,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_hmma.sum
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,launch__registers_per_thread,launch__grid_size,launch__block_size
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
S="--section WarpStateStats --section SchedulerStats"
ours() { # name kernel-regex shape fabench-kernel-options...
  local name=$1 rx=$2 shape=$3; shift 3
  timeout 120 ncu --clock-control none $S --metrics $M --csv --page details --kernel-name regex:"$rx" --launch-count 4 \
    $FAB --shape $shape "$@" --dtype bf16 --no-validate --reps 1 --warmup 0 > "$OUT/ncu_$name.csv" 2>&1
  echo "ncu $1 rc $?"
}
ours v3_mt2_d128 v3 4,16,16,4096,4096,128,0 --kernels v3_mt2
ours v3_mt2_d64 v3 4,32,32,4096,4096,64,0 --kernels v3_mt2
ours v3_mt2_bc32_d64 v3 4,32,32,4096,4096,64,0 --kernels v3_mt2_bc32
ours v3_d64 v3 4,32,32,4096,4096,64,0 --kernels v3
ours v3_bwd_bc64_d64 bwd 4,32,32,4096,4096,64,0 --bwd --kernels v3 --bwd-kernels v3_bwd_bc64
for d in 64 128; do
  h=$((2048 / d))
  timeout 150 ncu --clock-control none $S --metrics $M --csv --page details --kernel-name regex:flash_fwd --launch-count 1 \
    python3 kernels/compare_sdpa.py --csv "$OUT/sdpa_d$d.csv" --shapes 4,$h,4096 --d $d --causal 0 --reps 1 \
    > "$OUT/ncu_fa2_d$d.csv" 2>&1
  echo "ncu fa2 d$d rc $?"
done
