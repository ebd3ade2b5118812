#!/bin/bash
# run_timemodel.sh -- the measurements the time model is judged against (docs/time-model.md),
# in as few device calls as possible: the pipe microbenchmarks, then every kernel timed beside
# PyTorch SDPA (flash, cuDNN, math) in the same call.
#   bash kernels/run_timemodel.sh [PHASES]   PHASES: any of ubench fwd sdpa_fwd small_fwd bwd
#                                            sdpa_bwd small_bwd ncu (default: all but ncu); a
#                                            kernel's timings and SDPA's go in the same call
# Needs build/gpu/fabench and build/gpu/ubench_pipes (make gpu ubench, here or carried).
# Writes under $OUT (default ./gpu_out): ubench.csv, tm_fwd.csv, tm_bwd.csv, tm_sdpa_fwd.csv,
# tm_sdpa_bwd.csv, tm_small_fwd.csv, tm_small_bwd.csv (one- and two-head shapes: a fraction of
# a wave), tm_ncu.tgz; SDPA timed as CUDA-graph replays (compare_sdpa.py --timing graph), its
# eager per-call times beside them in tm_sdpa_{fwd,bwd}_eager.csv and tm_small_{fwd,bwd}_sdpa_eager.csv
# (ncu phase: ncu_io.csv of the forward kernels at N = 4096, causal 0 and 1), log_tm.txt.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
PHASES=${*:-ubench fwd sdpa_fwd small_fwd bwd sdpa_bwd small_bwd}
FAB=./build/gpu/fabench
LOG="$OUT/log_tm.txt"
say() { echo "+ $*" | tee -a "$LOG"; }
run() { say "$@"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
has() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
rc=0
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv; } >>"$LOG" 2>&1
FWD=${FWD_KERNELS:-v0_low,v1,v2,v3,v3_mt2,v3_mt2_bc32,v3_br256,v4,v4_bc64}
BWD=${BWD_KERNELS:-v3_bwd_det,v3_bwd,v3_bwd_bc64,v3_bwd_occ2}
export PYTHONUNBUFFERED=1
if has ubench; then
  run ./build/gpu/ubench_pipes --csv "$OUT/ubench.csv" || rc=1
fi
if has fwd; then
  run $FAB --sweep --kernels $FWD --csv "$OUT/tm_fwd.csv" || rc=1
fi
if has bwd; then
  run $FAB --sweep --bwd --bwd-kernels $BWD --csv "$OUT/tm_bwd.csv" || rc=1
fi
if has sdpa_fwd; then
  run python3 kernels/compare_sdpa.py --math --csv "$OUT/tm_sdpa_fwd.csv" --eager-csv "$OUT/tm_sdpa_fwd_eager.csv" || rc=1
fi
if has sdpa_bwd; then
  run python3 kernels/compare_sdpa.py --bwd --csv "$OUT/tm_sdpa_bwd.csv" --eager-csv "$OUT/tm_sdpa_bwd_eager.csv" || rc=1
fi
# one and two heads, B = 1: 16 to 256 thread blocks on 132 SMs, a fraction of a wave
SHAPES="1,1,4096;1,2,4096;1,1,16384;1,2,16384"
small() { # small fwd|bwd: fabench's kernels and SDPA on SHAPES into tm_small_MODE.csv
  local mode=$1 dst="$OUT/tm_small_$1.csv" first=1 B H N f
  : >"$dst"
  for d in 64 128; do for c in 0 1; do for sh in ${SHAPES//;/ }; do
    IFS=, read -r B H N <<<"$sh"
    f="$OUT/small_${B}_${H}_${N}_${d}_${c}.csv"
    if [ "$mode" = fwd ]; then
      run $FAB --shape $B,$H,$H,$N,$N,$d,$c --kernels v3,v3_mt2,v4_bc64 --no-validate --csv "$f" || rc=1
    else
      run $FAB --shape $B,$H,$H,$N,$N,$d,$c --bwd --bwd-kernels v3_bwd --no-validate --csv "$f" || rc=1
    fi
    if [ -f "$f" ]; then
      if [ $first = 1 ]; then cat "$f" >>"$dst"; first=0; else tail -n +2 "$f" >>"$dst"; fi
      rm -f "$f"
    fi
  done; done; done
  run python3 kernels/compare_sdpa.py $([ "$mode" = bwd ] && echo --bwd) --shapes "$SHAPES" --csv "$OUT/sdpa_small.csv" \
    --eager-csv "$OUT/tm_small_${mode}_sdpa_eager.csv" || rc=1
  tail -n +2 "$OUT/sdpa_small.csv" >>"$dst"
  rm -f "$OUT/sdpa_small.csv"
}
has small_fwd && small fwd
has small_bwd && small bwd
if has ncu; then
  NCU_KERNELS=${NCU_KERNELS:-"v2 v3 v3_mt2 v4_bc64"} run sh kernels/ncu_io.sh $FAB "$OUT/ncu" 4096 "64 128" "0 1"
  tar czf "$OUT/tm_ncu.tgz" -C "$OUT" ncu && rm -rf "$OUT/ncu"
fi
{ date -u; nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv; } >>"$LOG" 2>&1
say "run_timemodel.sh: done, status $rc"
exit $rc
