#!/bin/bash
# run_v5.sh -- v5 (attn_v5_fa3.cu) on a lent H200 in one device call: SASS facts, validation
# against the fp64 oracle (fabench --check, v4 and v5), compute-sanitizer memcheck / racecheck /
# synccheck on odd shapes, then the FlashAttention-2 sweep shapes (bf16, d = 64, 128, causal 0, 1,
# N = 2k..16k) for v4_bc64 and v5 beside PyTorch SDPA flash and cuDNN, in the same call.
#   bash kernels/run_v5.sh            (build/gpu/fabench built here with `make gpu` and carried)
# Writes under $OUT: log.txt, check.txt, v5_sweep.csv, v5_sdpa.csv.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
FAB=./build/gpu/fabench
LOG="$OUT/log.txt"
say() { echo "+ $*" | tee -a "$LOG"; }
run() { say "$@"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
rc=0
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >>"$LOG" 2>&1
# SASS: HGMMA present, no local memory, setmaxnreg kept
cuobjdump -sass build/gpu/attn_v5_fa3.o > "$OUT/v5.sass" 2>/dev/null
echo "HGMMA $(grep -c HGMMA "$OUT/v5.sass") LDL/STL $(grep -cE 'LDL|STL' "$OUT/v5.sass") SETMAXNREG $(grep -c SETMAXNREG "$OUT/v5.sass") UTMALDG $(grep -c UTMALDG "$OUT/v5.sass")" | tee -a "$LOG"
gzip -f "$OUT/v5.sass"
CHK="$OUT/check.txt"
say "timeout 120 $FAB --check --no-time --kernels v4,v5"
timeout 120 $FAB --check --no-time --kernels v4,v5 >"$CHK" 2>&1; r=$?
echo "check exit $r" | tee -a "$LOG"; grep -E "FAIL|fail|error" "$CHK" | head -20 | tee -a "$LOG"; tail -3 "$CHK" | tee -a "$LOG"
[ $r -ne 0 ] && rc=1
timeout 60 $FAB --check --no-time --kernels v5 --dtype fp16 >>"$CHK" 2>&1; r=$?
echo "check fp16 exit $r" | tee -a "$LOG"; [ $r -ne 0 ] && rc=1
for shape in 1,4,2,100,130,64,1 1,2,1,70,45,128,1 1,2,2,300,300,128,0 1,1,1,64,200,64,1; do
  for tool in memcheck racecheck synccheck; do
    echo "== $tool $shape" >>"$CHK"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape $shape --kernels v5 --no-time >>"$CHK" 2>&1; r=$?
    echo "== $tool $shape exit $r" | tee -a "$CHK" "$LOG"
    [ $r -ne 0 ] && rc=1
  done
done
if [ $rc -eq 0 ] || [ "${FORCE_BENCH:-0}" = 1 ]; then
  run timeout 300 $FAB --sweep --kernels v4_bc64,v5 --n 2048,4096,8192,16384 --csv "$OUT/v5_sweep.csv" || rc=1
  run env PYTHONUNBUFFERED=1 timeout 200 python3 kernels/compare_sdpa.py --n 2048,4096,8192,16384 --csv "$OUT/v5_sdpa.csv" || rc=1
fi
echo "rc $rc" | tee -a "$LOG"
exit $rc
