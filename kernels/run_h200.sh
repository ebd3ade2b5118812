#!/bin/bash
# run_h200.sh -- everything fasim's GPU side does on a lent H200, in one device call.
#   bash kernels/run_h200.sh [PHASES]      PHASES: any of build check sanitize preview bench sdpa ncu
#                                          (default: build check sanitize bench sdpa ncu)
# Writes under $OUT (default ./gpu_out): log.txt, check.txt, sanitize.txt, fabench_sweep.csv,
# sdpa_sweep.csv, ncu_io.csv, ncu_raw.tgz.  Exact commands are echoed into log.txt.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
PHASES=${*:-build check sanitize bench sdpa ncu}
FAB=./build/gpu/fabench
LOG="$OUT/log.txt"
say() { echo "+ $*" | tee -a "$LOG"; }
run() { say "$@"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
has() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
rc=0
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; nvcc --version | tail -2; } >>"$LOG" 2>&1

if has build; then
  run make gpu -j16 || { echo "build failed" | tee -a "$LOG"; exit 1; }
fi
if has check; then
  say "$FAB --check --no-time"
  $FAB --check --no-time >"$OUT/check.txt" 2>&1; r=$?
  grep -E "check|failure" "$OUT/check.txt" | grep -E "FAIL|failure" | tee -a "$LOG"
  [ $r -ne 0 ] && rc=1
fi
if has sanitize; then
  : >"$OUT/sanitize.txt"
  for shape in 1,4,2,100,130,64,1 1,2,1,70,45,128,1 1,2,2,64,64,128,0; do
    for tool in memcheck racecheck; do
      say "compute-sanitizer --tool $tool $FAB --shape $shape --no-time"
      echo "== $tool $shape" >>"$OUT/sanitize.txt"
      compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape $shape --no-time \
          >>"$OUT/sanitize.txt" 2>&1; r=$?
      echo "== $tool $shape exit $r" | tee -a "$OUT/sanitize.txt" "$LOG"
      [ $r -ne 0 ] && rc=1
    done
  done
fi
if has preview; then
  run $FAB --sweep --kernels v3,v3_mt2,v3_mt2_bc32 --n ${PREVIEW_N:-2048,8192} --causal 0,1 --csv "$OUT/preview.csv"
  run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --n ${PREVIEW_N:-2048,8192} --csv "$OUT/preview_sdpa.csv"
fi
if has bench; then
  run $FAB --sweep --csv "$OUT/fabench_sweep.csv" || rc=1
fi
if has sdpa; then
  run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --csv "$OUT/sdpa_sweep.csv" || rc=1
fi
if has ncu; then
  run sh kernels/ncu_io.sh $FAB "$OUT/ncu" "${NCU_N:-4096}" "${NCU_D:-64 128}" "${NCU_C:-0 1}"
  cp "$OUT/ncu/ncu_io.csv" "$OUT/" 2>/dev/null
  tar czf "$OUT/ncu_raw.tgz" -C "$OUT" ncu && rm -rf "$OUT/ncu"
fi
say "run_h200.sh: done, status $rc"
exit $rc
