#!/bin/bash
# issue 16 det10 (s10_det_*): v5_bwd_det with the rotated dQ order -- check, extra shapes, sanitizers, sweep.
# Run as `bash build-det/carry/det.sh` (carry build-det/carry: this script beside the fabench built in /work/wt-det)
set -u
D=$(cd "$(dirname "$0")" && pwd); F=$D/fabench; LOG=$OUT/log.txt; CHK=$OUT/check.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >>"$LOG" 2>&1
echo "+ [$(date -u +%T)] fabench --check --bwd --no-time --bwd-kernels v5_bwd,v5_bwd_det" | tee -a "$LOG"
timeout 60 $F --check --bwd --no-time --bwd-kernels v5_bwd,v5_bwd_det >"$CHK" 2>&1; r=$?
echo "check exit $r, $(grep -c PASS "$CHK") PASS, $(grep -c FAIL "$CHK") FAIL, $(grep -cw yes "$CHK") yes, $(grep -cw NO "$CHK") NO" | tee -a "$LOG"
[ $r -eq 124 ] && { echo "check hung: stop" | tee -a "$LOG"; exit 1; }
for shape in 1,4,2,389,263,64,0 1,4,1,700,650,128,0 2,2,2,1024,1024,64,0 1,3,3,2000,1900,128,0; do
  echo "== shape $shape" >>"$CHK"
  timeout 30 $F --bwd --shape $shape --bwd-kernels v5_bwd,v5_bwd_det --no-time >>"$CHK" 2>&1; r=$?
  echo "== [$(date -u +%T)] shape $shape exit $r" | tee -a "$CHK" "$LOG"
  [ $r -eq 124 ] && { echo "shape hung: stop" | tee -a "$LOG"; exit 1; }
done
for tool in memcheck racecheck synccheck; do
  echo "== $tool v5_bwd_det 1,4,2,389,263,64,0" >>"$CHK"
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 3 $F --bwd --shape 1,4,2,389,263,64,0 --bwd-kernels v5_bwd_det --no-time >>"$CHK" 2>&1; r=$?
  echo "== [$(date -u +%T)] $tool v5_bwd_det 1,4,2,389,263,64,0 exit $r" | tee -a "$CHK" "$LOG"
done
echo "+ [$(date -u +%T)] fabench --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 64 --n 2048,4096,8192,16384" | tee -a "$LOG"
timeout 70 $F --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 64 --n 2048,4096,8192,16384 --csv $OUT/sweep64.csv >>"$LOG" 2>&1; echo "exit $?" | tee -a "$LOG"
echo "+ [$(date -u +%T)] fabench --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 128 --n 2048,4096" | tee -a "$LOG"
timeout 35 $F --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 128 --n 2048,4096 --csv $OUT/sweep128.csv >>"$LOG" 2>&1; echo "exit $?" | tee -a "$LOG"
echo "+ [$(date -u +%T)] fabench --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 128 --n 8192,16384" | tee -a "$LOG"
timeout 35 $F --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 128 --n 8192,16384 --csv $OUT/sweep128b.csv >>"$LOG" 2>&1; echo "exit $?" | tee -a "$LOG"
echo "[$(date -u +%T)] done" | tee -a "$LOG"
