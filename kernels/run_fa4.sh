#!/bin/bash
# run_fa4.sh -- FlashAttention-4's two softmax changes in the v5 forward (v5_exp2poly: 3/8 of the
# exponentials on the FMA pipe; v5_cresc: conditional rescaling; v5_fa4: both) on a lent H200 in
# one device call: exp2_fma on every fp32 of [-125, 8] and the kernels against the fp64 oracle
# (fabench --check), compute-sanitizer memcheck on odd shapes, the FlashAttention-2 sweep shapes
# (bf16, d = 64, 128, causal 0, 1, N = 2k..16k) for v5 and the three variants, then Nsight Compute's
# pipe utilization (tensor, FMA, ALU, XU = MUFU) of v5 and v5_exp2poly at d = 64 and 128, N = 4096.
#   bash kernels/run_fa4.sh          (build/gpu/fabench built here with `make gpu` and carried)
# Writes under $OUT: fa4_log.txt, fa4_check.txt, fa4_sweep.csv, ncu_fa4.tgz.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
FAB=./build/gpu/fabench
LOG="$OUT/fa4_log.txt"
say() { echo "+ $*" | tee -a "$LOG"; }
run() { say "$@"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
rc=0
K=${FA4_KERNELS:-v5,v5_exp2poly,v5_cresc,v5_fa4}
CHK="$OUT/fa4_check.txt"
say "timeout 90 $FAB --check --no-time --kernels $K"
timeout 90 $FAB --check --no-time --kernels $K >"$CHK" 2>&1; r=$?
echo "check exit $r" | tee -a "$LOG"; grep -E "exp2_fma|FAIL" "$CHK" | head -20 | tee -a "$LOG"
[ $r -ne 0 ] && rc=1
[ $r -eq 124 ] && { echo "check hung: stop" | tee -a "$LOG"; exit 1; }
for shape in 1,4,2,100,130,64,1 1,2,2,300,300,128,0; do
  for k in v5_exp2poly v5_fa4; do
    timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $FAB --shape $shape --kernels $k --no-time >>"$CHK" 2>&1; r=$?
    echo "== memcheck $k $shape exit $r" | tee -a "$CHK" "$LOG"
    [ $r -ne 0 ] && rc=1
  done
done
run timeout 200 $FAB --sweep --kernels $K --n 2048,4096,8192,16384 --csv "$OUT/fa4_sweep.csv" || rc=1
if command -v ncu >/dev/null; then
  ncu --query-metrics 2>/dev/null | grep -E "^sm__(inst_executed_pipe_(fma|alu|xu|fmaheavy|fmalite)|pipe_(fma|alu|xu|fmaheavy)_cycles_active|pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active) " > "$OUT/ncu_fa4_metrics.txt"
  M=gpu__time_duration.sum
  for m in $(awk '{print $1}' "$OUT/ncu_fa4_metrics.txt"); do M="$M,$m.avg.pct_of_peak_sustained_active"; done
  for d in 64 128; do
    H=$((2048 / d))
    for k in v5 v5_exp2poly v5_cresc; do
      timeout 90 ncu --clock-control none --csv --page raw --metrics $M --kernel-name regex:fa_v5_fwd_kernel \
        $FAB --shape 4,$H,$H,4096,4096,$d,0 --kernels $k --no-validate --reps 1 --warmup 0 > "$OUT/ncu_fa4_${k}_d$d.csv" 2>&1
    done
  done
  tar czf "$OUT/ncu_fa4.tgz" -C "$OUT" $(cd "$OUT" && ls ncu_fa4_*) && rm -f "$OUT"/ncu_fa4_*.csv "$OUT/ncu_fa4_metrics.txt"
fi
echo "rc $rc" | tee -a "$LOG"
exit $rc
