#!/bin/bash
# run_cp.sh -- the context-parallel forward (kernels/cp_ring.cu, cpbench) on a lent machine: validation
# against the one-GPU kernel on shapes that fit one GPU (v3 and v5: v5 is what the scaling runs use), then
# the scaling runs of issue 19 (Llama-3-70B's attention shape: 64 query heads, 8 kv heads, d = 128, bf16,
# causal) for ring and allgather at every P the machine has, N = 128k .. 1M.  NCCL_NVLS_ENABLE=0 in every run.
#   bash kernels/run_cp.sh        (build/gpu/cpbench built here with `make cpbench` and carried)
# Environment: CP_PS (default "1 2 4 8"; P above the GPU count is skipped), CP_NS (default
# "131072 262144 524288 1048576"), CP_SCHEMES (default "ring zigzag allgather ulysses"), CP_KERNEL
# (default v5), CP_VALIDATE_KERNELS (default "v3 v5").
# The whole list does not fit one 10-minute command on 8 GPUs (~18 min of forwards): split it with
# CP_PS / CP_NS across calls.
# Writes $OUT/cp_log.txt; compare each time with `fasim io --cp P --cp-scheme S ...` (docs/context-parallel.md).
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
CP=./build/gpu/cpbench
LOG="$OUT/cp_log.txt"
[ -x "$CP" ] || { echo "run_cp.sh: $CP missing (make cpbench)" | tee -a "$LOG"; exit 1; }
G=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
[ "$G" -ge 1 ] || { echo "run_cp.sh: no GPU" | tee -a "$LOG"; exit 1; }
ldd "$CP" | grep -i nccl >>"$LOG" 2>&1
rc=0
run() { # label, timeout, args...
  local label=$1 t=$2
  shift 2
  echo "== $label" >>"$LOG"
  timeout "$t" "$CP" "$@" >>"$LOG" 2>&1 || { echo "exit $?" >>"$LOG"; rc=1; }
}
for P in ${CP_PS:-1 2 4 8}; do
  [ "$P" -gt "$G" ] && continue
  for k in ${CP_VALIDATE_KERNELS:-v3 v5}; do
    for sc in ring allgather zigzag ulysses; do
      for c in 0 1; do # validation: the whole sequence fits one GPU (H = 16, H_kv = 8: P | both for ulysses)
        run "validate P $P $sc causal $c $k" 120 --P "$P" --scheme $sc --shape 1,16,8,$((4096 * P)),128,$c --kernel $k --reps 3
      done
    done
  done
done
for P in ${CP_PS:-1 2 4 8}; do
  [ "$P" -gt "$G" ] && continue
  for N in ${CP_NS:-131072 262144 524288 1048576}; do
    for sc in ${CP_SCHEMES:-ring zigzag allgather ulysses}; do
      run "P $P $sc N $N" 300 --P "$P" --scheme $sc --shape 1,64,8,$N,128,1 --kernel ${CP_KERNEL:-v5} --reps 3 --no-validate
    done
  done
done
echo "rc $rc" | tee -a "$LOG"
exit $rc
