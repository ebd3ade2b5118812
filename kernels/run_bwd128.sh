#!/bin/bash
# run_bwd128.sh -- issue 16's d = 128 backward work on a lent H200 in one device call: fabench --check
# --bwd of the v5 backward configurations (the 3x rule on the odd shapes, deterministic runs bitwise
# repeatable; fp16 for v5_bwd), compute-sanitizer on two odd d = 128 shapes, then the backward sweep
# (bf16, hidden 2048, N = 2k..16k, causal 0, 1) at d = 128 and d = 64 and SDPA's flash and cuDNN
# backward in the same call, and the ratio table (kernels/bwd_ratios.py).
#   FAB=path/to/fabench bash kernels/run_bwd128.sh      (default ./build/gpu/fabench, carried;
#   RATIOS=path/to/bwd_ratios.py when kernels/ lacks it)
# K128, K64: the configurations swept at each d; CHK: those checked; SAN_KERNELS, SAN_SHAPES.
# Writes under $OUT: log.txt, check.txt, sweep128.csv, sweep64.csv, sdpa.csv, ratios.txt.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
F=${FAB:-./build/gpu/fabench}
NS=${NS:-2048,4096,8192,16384}
LOG="$OUT/log.txt"
rc=0
run() { echo "+ [$(date -u +%T)] $*" | tee -a "$LOG"; "$@" >>"$LOG" 2>&1 || { echo "exit $?" | tee -a "$LOG"; rc=1; }; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >>"$LOG" 2>&1
C=${CHK:-v5_bwd,v5_bwd_det,v5_bwd_atomic,v5_bwd_pers}
CHK="$OUT/check.txt"
echo "+ [$(date -u +%T)] $F --check --bwd --no-time --bwd-kernels $C" | tee -a "$LOG"
timeout ${CHECK_S:-150} $F --check --bwd --no-time --bwd-kernels "$C" >"$CHK" 2>&1; r=$?
echo "check exit $r, $(grep -c PASS "$CHK") PASS, $(grep -c FAIL "$CHK") FAIL, $(grep -cw yes "$CHK") yes, $(grep -cw NO "$CHK") NO" | tee -a "$LOG"
[ $r -ne 0 ] && rc=1
[ $r -eq 124 ] && { echo "check hung: stop" | tee -a "$LOG"; exit 1; }
timeout 60 $F --check --bwd --no-time --bwd-kernels v5_bwd --dtype fp16 >>"$CHK" 2>&1; r=$?
echo "[$(date -u +%T)] check fp16 exit $r" | tee -a "$LOG"; [ $r -ne 0 ] && rc=1
for shape in ${SAN_SHAPES:-1,2,1,203,113,128,1 1,2,2,300,77,128,0}; do
  for k in ${SAN_KERNELS:-v5_bwd v5_bwd_det}; do
    for tool in memcheck racecheck synccheck; do
      echo "== $tool $k $shape" >>"$CHK"
      timeout ${SAN_S:-40} compute-sanitizer --tool $tool --error-exitcode 3 $F --bwd --shape $shape --bwd-kernels $k --no-time >>"$CHK" 2>&1; r=$?
      echo "== [$(date -u +%T)] $tool $k $shape exit $r" | tee -a "$CHK" "$LOG"
      [ $r -ne 0 ] && rc=1
    done
  done
done
run timeout ${SWEEP_S:-200} $F --sweep --bwd --bwd-kernels ${K128:-v5_bwd,v5_bwd_det} --d 128 --n $NS --csv "$OUT/sweep128.csv"
run timeout ${SWEEP_S:-200} $F --sweep --bwd --bwd-kernels ${K64:-v5_bwd,v5_bwd_det} --d 64 --n $NS --csv "$OUT/sweep64.csv"
run env PYTHONUNBUFFERED=1 timeout ${SDPA_S:-200} python3 kernels/compare_sdpa.py --bwd --n $NS --csv "$OUT/sdpa.csv"
python3 ${RATIOS:-kernels/bwd_ratios.py} "$OUT/sdpa.csv" "$OUT/sweep128.csv" "$OUT/sweep64.csv" | tee "$OUT/ratios.txt"
echo "rc $rc" | tee -a "$LOG"
exit $rc
