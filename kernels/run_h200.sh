#!/bin/bash
# run_h200.sh -- everything fasim's GPU side does on a lent H200, in one device call.
#   bash kernels/run_h200.sh [PHASES]      PHASES: any of build check check_bwd sanitize preview
#                                          bench bench_fwd bench_bwd sdpa sdpa_fwd sdpa_bwd ncu
#                                          (default: build check sanitize bench sdpa ncu)
# Writes under $OUT (default ./gpu_out): log.txt, check.txt (validation + sanitizers),
# fabench_sweep.csv, fabench_bwd.csv, sdpa_sweep.csv, sdpa_bwd.csv, ncu_io.csv, ncu_raw.tgz.
# Exact commands are echoed into log.txt.  The build phase may be left out when build/gpu/fabench
# was built elsewhere (make gpu needs only nvcc) and carried along.  FWD_KERNELS, BWD_KERNELS:
# the kernels of the bench sweep (defaults below; the variants measured earlier without gain,
# v3_lazy, v3_bc128, v3_mt2_bc48 and v3_bwd_ma, are left out of it).
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
CHK="$OUT/check.txt"
if has check || has check_bwd; then
  for extra in "" "--bwd"; do
    has check || [ -n "$extra" ] || continue   # check_bwd: the backward only
    say "$FAB --check --no-time $extra"
    echo "== fabench --check --no-time $extra" >>"$CHK"
    $FAB --check --no-time $extra >>"$CHK" 2>&1; r=$?
    grep -E "FAIL|failure" "$CHK" | tail -3 | tee -a "$LOG"
    [ $r -ne 0 ] && rc=1
  done
fi
if has sanitize; then
  for shape in 1,4,2,100,130,64,1 1,2,1,70,45,128,1 1,2,2,64,64,128,0; do
    for extra in "" "--bwd"; do
      # SAN_BWD_ONLY=1: only the backward (when the forwards were sanitized on the same code)
      [ "${SAN_BWD_ONLY:-0}" = 1 ] && [ -z "$extra" ] && continue
      for tool in memcheck racecheck; do
        say "compute-sanitizer --tool $tool $FAB --shape $shape --no-time $extra"
        echo "== $tool $shape $extra" >>"$CHK"
        compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape $shape --no-time $extra \
            >>"$CHK" 2>&1; r=$?
        echo "== $tool $shape $extra exit $r" | tee -a "$CHK" "$LOG"
        [ $r -ne 0 ] && rc=1
      done
    done
  done
fi
if has preview_bwd; then
  run $FAB --sweep --bwd --n ${PREVIEW_N:-4096} --causal 0,1 --csv "$OUT/preview_bwd.csv"
  run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --bwd --n ${PREVIEW_N:-4096} --csv "$OUT/preview_sdpa_bwd.csv"
fi
if has preview; then
  run $FAB --sweep --kernels v3,v3_mt2,v3_mt2_bc32 --n ${PREVIEW_N:-2048,8192} --causal 0,1 --csv "$OUT/preview.csv"
  run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --n ${PREVIEW_N:-2048,8192} --csv "$OUT/preview_sdpa.csv"
fi
FWD_KERNELS=${FWD_KERNELS:-v0,v0_low,v1,v2,v3,v3_mt2,v3_mt2_bc32,v3_br256,v4,v4_bc64,v5}
BWD_KERNELS=${BWD_KERNELS:-v3_bwd_det,v3_bwd,v3_bwd_bc64,v3_bwd_occ2}
# bench = bench_fwd + bench_bwd, sdpa = sdpa_fwd + sdpa_bwd (a backward-only call: bench_bwd sdpa_bwd)
if has bench || has bench_fwd; then
  run $FAB --sweep --kernels $FWD_KERNELS --csv "$OUT/fabench_sweep.csv" || rc=1
fi
if has bench || has bench_bwd; then
  run $FAB --sweep --bwd --bwd-kernels $BWD_KERNELS --csv "$OUT/fabench_bwd.csv" || rc=1
fi
if has sdpa || has sdpa_fwd; then
  run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --csv "$OUT/sdpa_sweep.csv" || rc=1
fi
if has sdpa || has sdpa_bwd; then
  run env PYTHONUNBUFFERED=1 python3 kernels/compare_sdpa.py --bwd --csv "$OUT/sdpa_bwd.csv" || rc=1
fi
if has ncu; then
  run sh kernels/ncu_io.sh $FAB "$OUT/ncu" "${NCU_N:-4096}" "${NCU_D:-64 128}" "${NCU_C:-0 1}"
  cp "$OUT/ncu/ncu_io.csv" "$OUT/" 2>/dev/null
  tar czf "$OUT/ncu_raw.tgz" -C "$OUT" ncu && rm -rf "$OUT/ncu"
fi
say "run_h200.sh: done, status $rc"
exit $rc
