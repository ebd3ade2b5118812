#!/bin/bash
# run_ab.sh -- one device call that sets changed kernels beside the committed ones (A/B in the
# same call) and beside PyTorch SDPA.  Both fabench binaries are built beforehand on a machine
# without a GPU and carried along (no build on the device):
#   make gpu GPU_ARCH="-gencode arch=compute_90,code=sm_90" \
#            GPU_ARCH_V4="-gencode arch=compute_90a,code=sm_90a"      -> build/gpu/fabench (new)
#   the same in a worktree of BASE_COMMIT, copied to build/gpu_base/fabench (base)
# Runs: fabench --check (every forward kernel, every backward configuration) on the 11 odd
# shapes, compute-sanitizer memcheck + racecheck of the changed kernels on small shapes, the
# N >= 2k forward and backward sweeps of new and base, SDPA forward and backward, and the SASS
# of the new forward/backward objects' spills.  Writes under $OUT: log.txt, check.txt,
# fwd_new.csv, fwd_base.csv, bwd_new.csv, bwd_base.csv, sdpa_fwd.csv, sdpa_bwd.csv, spills.txt.
#   FK (new forward kernels), FKB (base forward kernels), BK / BKB (backward configurations),
#   NS (default 2048,4096,8192,16384), FWD_D (default 64,128), BWD_D (default 64,128),
#   QUICK=1: check and sanitize only the FK forward kernels and skip the backward
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
LOG="$OUT/log.txt"; CHK="$OUT/check.txt"; FAB=./build/gpu/fabench; BASE=./build/gpu_base/fabench
NS=${NS:-2048,4096,8192,16384}; FWD_D=${FWD_D:-64,128}; BWD_D=${BWD_D:-64,128}
FK=${FK:-v3_mt2,v3_mt2_bc48}; FKB=${FKB:-v3_mt2}
BK=${BK:-v3_bwd,v3_bwd_occ2}; BKB=${BKB:-v3_bwd}
run() { echo "+ $*" | tee -a "$LOG"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >>"$LOG" 2>&1
rc=0
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then CK="--kernels $FK"; else CK=""; fi
echo "+ $FAB --check --no-time $CK" | tee -a "$LOG"
$FAB --check --no-time $CK >>"$CHK" 2>&1 || rc=1
if [ "$QUICK" != 1 ]; then
  echo "+ $FAB --check --no-time --bwd" | tee -a "$LOG"
  $FAB --check --no-time --bwd >>"$CHK" 2>&1 || rc=1
fi
for shape in 1,4,2,100,130,64,1 1,2,1,70,45,128,1 1,2,2,64,64,128,0; do
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape $shape --no-time --kernels $FK >>"$CHK" 2>&1 || rc=1
    echo "== $tool $shape fwd $FK rc=$?" | tee -a "$LOG"
    [ "$QUICK" = 1 ] && continue
    compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape $shape --no-time --bwd >>"$CHK" 2>&1 || rc=1
    echo "== $tool $shape bwd (all configurations) rc=$?" | tee -a "$LOG"
  done
done
grep -E "FAIL|ERROR SUMMARY: [1-9]|hazard" "$CHK" | head -5 | tee -a "$LOG"
echo "check rc=$rc" | tee -a "$LOG"
# spills in the SASS: local loads/stores per kernel
cuobjdump -sass $FAB 2>/dev/null | awk '/Function :/ {f=$3} /STL|LDL/ {n[f]++} END {for (k in n) print n[k], k}' \
  | sort -rn > "$OUT/spills.txt"
run $FAB --sweep --kernels $FK --n $NS --d $FWD_D --causal 0,1 --csv "$OUT/fwd_new.csv"
run $BASE --sweep --kernels $FKB --n $NS --d $FWD_D --causal 0,1 --csv "$OUT/fwd_base.csv"
run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --n $NS --d $FWD_D --csv "$OUT/sdpa_fwd.csv"
[ "$QUICK" = 1 ] && { echo "run_ab.sh done rc=$rc" | tee -a "$LOG"; exit 0; }
run $FAB --sweep --bwd --bwd-kernels $BK --n $NS --d $BWD_D --causal 0,1 --csv "$OUT/bwd_new.csv"
run $BASE --sweep --bwd --bwd-kernels $BKB --n $NS --d $BWD_D --causal 0,1 --csv "$OUT/bwd_base.csv"
run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --bwd --n $NS --d $BWD_D --csv "$OUT/sdpa_bwd.csv"
echo "run_ab.sh done rc=$rc" | tee -a "$LOG"
