#!/bin/bash
# run_variant.sh -- one device call for a new forward variant: build (sm_90), odd-shape checks and
# compute-sanitizer of the variant, then the N >= 2k sweep of the variant and the incumbent beside
# PyTorch SDPA in the same call.  Writes under $OUT: log.txt, check.txt, fwd.csv, sdpa_fwd.csv.
#   NEW (default v3_bc128), FK (default v3_mt2,$NEW), FWD_D (default 64,128), NS (2048..16384)
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
LOG="$OUT/log.txt"; CHK="$OUT/check.txt"; FAB=./build/gpu/fabench
NEW=${NEW:-v3_bc128}; FK=${FK:-v3_mt2,$NEW}
NS=${NS:-2048,4096,8192,16384}; FWD_D=${FWD_D:-64,128}
run() { echo "+ $*" | tee -a "$LOG"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >>"$LOG" 2>&1
run make gpu -j16 GPU_ARCH="-gencode arch=compute_90,code=sm_90" >/dev/null || { echo build failed; exit 1; }
rc=0
echo "+ $FAB --check --no-time --kernels $NEW" | tee -a "$LOG"
$FAB --check --no-time --kernels $NEW >>"$CHK" 2>&1 || rc=1
for shape in 1,4,2,100,130,64,1 1,2,1,70,45,128,1 1,2,2,64,64,128,0; do
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape $shape --no-time --kernels $NEW >>"$CHK" 2>&1 || rc=1
    echo "== $tool $shape $NEW rc=$?" | tee -a "$LOG"
  done
done
grep -E "FAIL|ERROR SUMMARY: [1-9]|hazard" "$CHK" | head -5 | tee -a "$LOG"
echo "check rc=$rc" | tee -a "$LOG"
run $FAB --sweep --kernels $FK --n $NS --d $FWD_D --causal 0,1 --csv "$OUT/fwd.csv"
run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --n $NS --d $FWD_D --csv "$OUT/sdpa_fwd.csv"
echo "run_variant.sh done rc=$rc" | tee -a "$LOG"
