#!/bin/bash
# run_issue_ncu.sh -- where the attention kernels' SM time goes beyond their pipes' busy time:
# Nsight Compute's instruction statistics (warp instructions executed and issued, issue-slot
# use), warp-state statistics (the stall reasons per issued instruction) and pipe utilization, for
# the kernels whose times the time model misses most (docs/time-model.md "Validation"): kernels/
# v5_bwd, v3 and v5 forward, PyTorch SDPA's cuDNN and FlashAttention-2 backward and forward.
# B 4, N 4096, hidden 2048 (d = 64: 32 heads, d = 128: 16), non-causal, bf16.
#   bash kernels/run_issue_ncu.sh    (build/gpu/fabench built here with `make gpu` and carried;
#   FAB=path/to/fabench for another build)
# ISSUE_BWD_EXTRA="v5_bwd_pers v5_bwd_atomic" profiles those backward variants too; ISSUE_ONLY_EXTRA=1
# profiles only them.
# Writes $OUT/issue_ncu.tgz (one details-page CSV a kernel and d) and $OUT/issue_ncu_log.txt.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
F=${FAB:-./build/gpu/fabench}
LOG="$OUT/issue_ncu_log.txt"
SEC="--section InstructionStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section SpeedOfLight"
MET="--metrics smsp__inst_executed.sum,smsp__cycles_elapsed.avg.per_second,sm__cycles_elapsed.avg,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_uniform.sum"
N="timeout 200 ncu --clock-control none --csv --page details $SEC $MET"
rc=0
for d in 64 128; do
  H=$((2048 / d))
  $N --kernel-name regex:fa_v5_bwd_kernel $F --bwd --shape 4,$H,$H,4096,4096,$d,0 --bwd-kernels v5_bwd --no-validate --reps 1 --warmup 0 \
    > "$OUT/iss_v5_bwd_d$d.csv" 2>>"$LOG" || rc=1
  for kb in ${ISSUE_BWD_EXTRA:-}; do
    $N --kernel-name regex:fa_v5_bwd_kernel $F --bwd --shape 4,$H,$H,4096,4096,$d,0 --bwd-kernels $kb --no-validate --reps 1 --warmup 0 \
      > "$OUT/iss_${kb}_d$d.csv" 2>>"$LOG" || rc=1
  done
  [ "${ISSUE_ONLY_EXTRA:-0}" = 1 ] && continue
  $N --kernel-name regex:fa_v5_fwd_kernel $F --shape 4,$H,$H,4096,4096,$d,0 --kernels v5 --no-validate --reps 1 --warmup 0 \
    > "$OUT/iss_v5_fwd_d$d.csv" 2>>"$LOG" || rc=1
  $N --kernel-name regex:fa_v3_fwd_kernel $F --shape 4,$H,$H,4096,4096,$d,0 --kernels v3 --no-validate --reps 1 --warmup 0 \
    > "$OUT/iss_v3_fwd_d$d.csv" 2>>"$LOG" || rc=1
  for be in CUDNN_ATTENTION FLASH_ATTENTION; do
    $N --kernel-name regex:"sdpa_sm90|flash_fwd_kernel|flash_bwd_dq_dk_dv" --launch-skip 2 --launch-count 2 \
      python3 kernels/sdpa_fwdbwd.py --shape 4,$H,4096,$d --backend $be --iters 2 --grad ones \
      > "$OUT/iss_sdpa_${be}_d$d.csv" 2>>"$LOG" || rc=1
  done
done
tar czf "$OUT/issue_ncu.tgz" -C "$OUT" $(cd "$OUT" && ls iss_*.csv) && rm -f "$OUT"/iss_*.csv
echo "rc $rc" | tee -a "$LOG"
exit $rc
