#!/bin/bash
# run_fp8.sh -- the v5 FP8 forward (kernels/attn_v5_fp8.cu, fabench --fp8) on the H200 in one call:
# validation on the odd shapes, the accuracy table (N(0,1) and outlier inputs x block/tensor scales x
# Hadamard off/on, beside fasim's emulation and the bf16 v5), compute-sanitizer, and the d = 128
# FlashAttention-2 sweep shapes with the bf16 v5 timed in the same process (interleaved launches).
#   bash kernels/run_fp8.sh       (build/gpu/fabench built here with `make gpu` and carried; FB=path for another)
# Writes $OUT/fp8_sweep.csv, $OUT/fp8_err.csv, $OUT/fp8_log.txt.
# Environment: FP8_NS (default "2048,4096,8192,16384"), FP8_VARIANTS (default "0 1": the sweep),
# FP8_CHECK_VARIANTS (default "0": --check and the sanitizers for each), SAN=0 skips the sanitizers,
# ACC_SHAPE (default 1,2,2,1024,1024,128,0: the oracle and the emulation run on the host), FP8_ACC_VARIANT
# (default 0: the variant of the accuracy table), FP8_SAME (unset: off; a variant V: every other variant's
# --check and sweep also compare O and LSE bit for bit with V's on the same inputs, fabench --fp8-same).
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
FB=${FB:-./build/gpu/fabench}
LOG="$OUT/fp8_log.txt"
rc=0
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv >>"$LOG" 2>&1
for v in ${FP8_CHECK_VARIANTS:-0}; do
  echo "== check variant $v" >>"$LOG"
  SAME=""; [ -n "${FP8_SAME:-}" ] && [ "$v" != "$FP8_SAME" ] && SAME="--fp8-same $FP8_SAME"
  timeout 300 $FB --fp8 --check --fp8-variant $v $SAME >>"$LOG" 2>&1 || rc=1
done
echo "== accuracy" >>"$LOG"
first=1
for inp in normal outliers; do
  for q in tensor block; do
    for h in "" --hadamard; do
      if [ $first = 1 ]; then E="$OUT/fp8_err.csv"; first=0; else E="$OUT/fp8_err_part.csv"; fi
      timeout 300 $FB --fp8 --shape ${ACC_SHAPE:-1,2,2,1024,1024,128,0} --inputs $inp --fp8-quant $q $h --no-time \
        --fp8-variant ${FP8_ACC_VARIANT:-0} \
        --fp8-err-csv "$E" >>"$LOG" 2>&1 || rc=1
      [ "$E" = "$OUT/fp8_err_part.csv" ] && tail -n +2 "$E" >>"$OUT/fp8_err.csv" && rm -f "$E"
    done
  done
done
if [ "${SAN:-1}" = 1 ]; then
  for v in ${FP8_CHECK_VARIANTS:-0}; do
    for tool in memcheck racecheck synccheck; do
      echo "== compute-sanitizer $tool variant $v" >>"$LOG"
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 3 $FB --fp8 --shape 1,2,1,203,300,128,1 --reps 1 --warmup 0 \
        --fp8-variant $v >>"$LOG" 2>&1 || { echo "sanitizer $tool variant $v rc $?" >>"$LOG"; rc=1; }
    done
  done
fi
echo "== sweep" >>"$LOG"
for v in ${FP8_VARIANTS:-0 1}; do
  SAME=""; [ -n "${FP8_SAME:-}" ] && [ "$v" != "$FP8_SAME" ] && SAME="--fp8-same $FP8_SAME"
  timeout 400 $FB --fp8 --sweep --n ${FP8_NS:-2048,4096,8192,16384} --fp8-variant $v --no-validate --reps 20 $SAME \
    --csv "$OUT/fp8_sweep_v$v.csv" >>"$LOG" 2>&1 || rc=1
done
echo "rc $rc" | tee -a "$LOG"
exit $rc
