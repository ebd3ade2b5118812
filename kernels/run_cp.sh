#!/bin/bash
# run_cp.sh -- the context-parallel forward (kernels/cp_ring.cu, cpbench) on a lent machine: validation
# against the one-GPU kernel on shapes that fit one GPU, then the scaling runs of issue 19 (Llama-3-70B's
# attention shape: 64 query heads, 8 kv heads, d = 128, bf16, causal) for ring and allgather at every P
# the machine has (1, 2, 4, 8), N = 128k .. 1M where the memory allows.  NCCL_NVLS_ENABLE=0 in every run.
#   bash kernels/run_cp.sh        (build/gpu/cpbench built here with `make cpbench` and carried)
# Writes $OUT/cp_log.txt; compare each time with `fasim io --cp P --cp-scheme S ...` (docs/context-parallel.md).
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
CP=./build/gpu/cpbench
LOG="$OUT/cp_log.txt"
G=$(nvidia-smi -L | wc -l)
rc=0
for P in 1 2 4 8; do
  [ $P -gt $G ] && continue
  for sc in ring allgather; do
    for c in 0 1; do # validation: the whole sequence fits one GPU
      timeout 120 $CP --P $P --scheme $sc --shape 1,8,2,$((4096 * P)),128,$c --kernel v3 --reps 3 >>"$LOG" 2>&1 || rc=1
    done
  done
done
for P in 1 2 4 8; do
  [ $P -gt $G ] && continue
  for N in 131072 262144 524288 1048576; do
    for sc in ring allgather; do
      timeout 300 $CP --P $P --scheme $sc --shape 1,64,8,$N,128,1 --kernel ${CP_KERNEL:-v5} --reps 3 --no-validate >>"$LOG" 2>&1 || rc=1
    done
  done
done
echo "rc $rc" | tee -a "$LOG"
exit $rc
