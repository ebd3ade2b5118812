#!/bin/bash
# run_tm14b.sh -- Nsight Compute's warp-stall breakdown (smsp__average_warps_issue_stalled_*_per_issue_active)
# beside the pipe counters of run_tm14.sh, for the four-warp forwards that do (v3_mt2 at d = 64) and do not
# (v3_mt2_bc32 at d = 64, FlashAttention-2 through PyTorch SDPA at d = 64) hide their softmax behind the other
# block, and kernels/ v3 at d = 64 (two blocks of 8 warps); B 4, H 32, N 4096, bf16, non-causal
# (docs/time-model.md section 5).  Writes $OUT/tm14b.tgz.
#   FAB=path/fabench bash kernels/run_tm14b.sh
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT/tm14b"
FAB=${FAB:-./build/gpu/fabench}
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
M=$M,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_elapsed
M=$M,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,launch__registers_per_thread
M=$M,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active
M="$M,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for k in v3_mt2 v3_mt2_bc32 v3; do
  timeout 120 ncu --clock-control none --metrics "$M" --csv --kernel-name regex:fa_v3 --launch-count 1 \
    $FAB --shape 4,32,32,4096,4096,64,0 --kernels $k --dtype bf16 --no-validate --reps 1 --warmup 0 > "$OUT/tm14b/ncu_${k}_d64.csv" 2>&1
  echo "ncu $k rc $?"
done
timeout 150 ncu --clock-control none --metrics "$M" --csv --kernel-name regex:flash_fwd --launch-count 1 \
  python3 kernels/compare_sdpa.py --csv "$OUT/tm14b/sdpa_d64.csv" --shapes 4,32,4096 --d 64 --causal 0 --reps 1 \
  > "$OUT/tm14b/ncu_fa2_d64.csv" 2>&1
echo "ncu fa2 rc $?"
tar czf "$OUT/tm14b.tgz" -C "$OUT" tm14b && rm -rf "$OUT/tm14b"
