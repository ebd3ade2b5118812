#!/bin/bash
# run_tune.sh -- one device call for the v3_pipe forward and v3_bwd_2x2 backward variants:
# build (sm_90), odd-shape checks + sanitizers of the new variants, then the N >= 2k sweep of
# the new and the incumbent variants beside PyTorch SDPA in the same call.  Writes under $OUT:
# log.txt, check.txt, fwd.csv, sdpa_fwd.csv, bwd.csv, sdpa_bwd.csv, v3_fwd.sass.gz.
#   FWD_D (default "64,128"), BWD (default 1), NS (default 2048,4096,8192,16384)
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
LOG="$OUT/log.txt"; CHK="$OUT/check.txt"; FAB=./build/gpu/fabench
NS=${NS:-2048,4096,8192,16384}; FWD_D=${FWD_D:-64,128}; FK=${FK:-v3_mt2,v3_pipe}
run() { echo "+ $*" | tee -a "$LOG"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >>"$LOG" 2>&1
run make gpu -j16 GPU_ARCH="-gencode arch=compute_90,code=sm_90" >/dev/null || { echo build failed; exit 1; }
cuobjdump -sass build/gpu/attn_v3_flash2_tc.o 2>&1 | gzip > "$OUT/v3_fwd.sass.gz"
rc=0
echo "+ $FAB --check --no-time --kernels $FK" | tee -a "$LOG"
$FAB --check --no-time --kernels $FK >>"$CHK" 2>&1 || rc=1
echo "+ $FAB --check --no-time --bwd --bwd-kernels v3_bwd_2x2" | tee -a "$LOG"
$FAB --check --no-time --bwd --bwd-kernels v3_bwd_2x2 >>"$CHK" 2>&1 || rc=1
for shape in 1,4,2,100,130,64,1 1,2,1,70,45,128,1; do
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape $shape --no-time --kernels v3_pipe >>"$CHK" 2>&1 || rc=1
    echo "== $tool $shape fwd v3_pipe rc=$?" | tee -a "$LOG"
  done
done
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape 1,4,2,100,130,64,1 --no-time --bwd --bwd-kernels v3_bwd_2x2 >>"$CHK" 2>&1 || rc=1
  echo "== $tool bwd v3_bwd_2x2 rc=$?" | tee -a "$LOG"
done
grep -E "FAIL|ERROR SUMMARY: [1-9]|hazard" "$CHK" | head -5 | tee -a "$LOG"
echo "check rc=$rc" | tee -a "$LOG"
run $FAB --sweep --kernels $FK --n $NS --d $FWD_D --causal 0,1 --csv "$OUT/fwd.csv"
run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --n $NS --d $FWD_D --csv "$OUT/sdpa_fwd.csv"
if [ "${BWD:-1}" = 1 ]; then
  run $FAB --sweep --bwd --bwd-kernels v3_bwd,v3_bwd_2x2 --n $NS --d 64 --causal 0,1 --csv "$OUT/bwd.csv"
  run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --bwd --n $NS --d 64 --csv "$OUT/sdpa_bwd.csv"
fi
echo "run_tune.sh done rc=$rc" | tee -a "$LOG"
