#!/bin/bash
# run_tm15.sh -- the time model's validation measurement again (run_timemodel.sh's phases), with
# PyTorch SDPA timed as CUDA-graph replays of each call (compare_sdpa.py --timing graph; the eager
# per-call times beside them), and cuDNN's and FlashAttention-2's forward on one head's grid and a
# few (B 1, H 1-8, N 16384, causal 0/1, d 64/128: sched.csv) to see how a persistent kernel's
# scheduler spreads causal row blocks over the SMs (docs/time-model.md section 6).
#   bash kernels/run_tm15.sh a|b      a: fwd sdpa_fwd small_fwd + sched;  b: bwd sdpa_bwd small_bwd
# Needs build/gpu/fabench (carried).  Writes under $OUT.
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
export OUT
case "${1:-a}" in
  a) bash kernels/run_timemodel.sh fwd sdpa_fwd small_fwd; rc=$?
     python3 kernels/compare_sdpa.py --shapes "1,1,16384;1,2,16384;1,3,16384;1,4,16384;1,6,16384;1,8,16384" \
       --csv "$OUT/sched.csv" --eager-csv "$OUT/sched_eager.csv" >> "$OUT/log_tm.txt" 2>&1 || rc=1 ;;
  b) bash kernels/run_timemodel.sh bwd sdpa_bwd small_bwd; rc=$? ;;
  *) echo "run_tm15.sh: a or b" >&2; exit 2 ;;
esac
exit $rc
