#!/bin/bash
# run_v5.sh -- v5 (attn_v5_fa3.cu) on a lent H200 in one device call: SASS facts, validation
# against the fp64 oracle (fabench --check, v4 and v5), compute-sanitizer memcheck / racecheck /
# synccheck on odd shapes, then the FlashAttention-2 sweep shapes (bf16, d = 64, 128, causal 0, 1,
# N = 2k..16k) for v4_bc64 and the v5 variants beside PyTorch SDPA flash and cuDNN, in the same
# call; then Nsight Compute on v5 and cuDNN (DRAM bytes, the tensor pipe) at N = 4096.
#   bash kernels/run_v5.sh            (build/gpu/fabench built here with `make gpu` and carried)
# V5_KERNELS: the v5 variants checked and swept; V5_SAN: those sanitized (default the same);
# NCU_V5: those profiled.  Writes under $OUT: log.txt, check.txt, v5_sweep.csv, v5_sdpa.csv, ncu.tgz.
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
V5K=${V5_KERNELS:-v5,v5_bc176,v5_wg3,v5_nopp}
say "timeout ${CHECK_S:-60} $FAB --check --no-time --kernels v4,$V5K"
timeout ${CHECK_S:-60} $FAB --check --no-time --kernels v4,$V5K >"$CHK" 2>&1; r=$?
echo "check exit $r" | tee -a "$LOG"; grep -E "FAIL|fail|error" "$CHK" | head -20 | tee -a "$LOG"; tail -3 "$CHK" | tee -a "$LOG"
[ $r -ne 0 ] && rc=1
[ $r -eq 124 ] && { echo "check hung: stop" | tee -a "$LOG"; exit 1; }
timeout ${CHECK_S:-60} $FAB --check --no-time --kernels $V5K --dtype fp16 >>"$CHK" 2>&1; r=$?
echo "check fp16 exit $r" | tee -a "$LOG"; [ $r -ne 0 ] && rc=1
for shape in ${SAN_SHAPES:-1,4,2,100,130,64,1 1,2,1,70,45,128,1 1,2,2,300,300,128,0 1,1,1,64,200,64,1}; do
  d=$(echo $shape | cut -d, -f6)
  for k in $(echo ${V5_SAN:-$V5K} | tr , ' '); do
    case $k in *wg3) [ $d != 64 ] && continue ;; esac
    for tool in memcheck racecheck synccheck; do
      echo "== $tool $k $shape" >>"$CHK"
      timeout ${SAN_S:-40} compute-sanitizer --tool $tool --error-exitcode 3 $FAB --shape $shape --kernels $k --no-time >>"$CHK" 2>&1; r=$?
      echo "== $tool $k $shape exit $r" | tee -a "$CHK" "$LOG"
      [ $r -ne 0 ] && rc=1
      [ $r -eq 124 ] && { echo "sanitizer run hung: stop" | tee -a "$LOG"; exit 1; }
    done
  done
done
if [ $rc -eq 0 ] || [ "${FORCE_BENCH:-0}" = 1 ]; then
  run timeout ${SWEEP_S:-240} $FAB --sweep --kernels ${SWEEP_KERNELS:-v4_bc64,$V5K} --n 2048,4096,8192,16384 --csv "$OUT/v5_sweep.csv" || rc=1
  run env PYTHONUNBUFFERED=1 timeout 200 python3 kernels/compare_sdpa.py --n 2048,4096,8192,16384 --csv "$OUT/v5_sdpa.csv" || rc=1
fi
# Nsight Compute: DRAM bytes and the tensor pipe's activity of v5 beside cuDNN's kernel (N = 4096, hidden 2048)
if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
  ncu --query-metrics 2>/dev/null | grep -iE "gmma|pipe_tensor" > "$OUT/ncu_tensor_metrics.txt"
  M=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
  for m in sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active sm__pipe_tensor_cycles_active sm__inst_executed_pipe_tensor_op_gmma; do
    grep -q "^$m " "$OUT/ncu_tensor_metrics.txt" && M="$M,$m.avg.pct_of_peak_sustained_active"
  done
  NCUC="ncu --clock-control none --csv --page raw --metrics $M"
  for d in 64 128; do
    H=$((2048 / d))
    for k in ${NCU_V5:-v5 v5_wg3 v5_bc176}; do
      case $k in *wg3) [ $d != 64 ] && continue ;; esac
      timeout 120 $NCUC --kernel-name regex:fa_v5_fwd_kernel $FAB --shape 4,$H,$H,4096,4096,$d,0 --kernels $k --no-validate --reps 1 --warmup 0 \
          > "$OUT/ncu_${k}_d$d.csv" 2> "$OUT/ncu_${k}_d$d.log"
    done
    timeout 120 $NCUC --kernel-name regex:"sdpa|fprop|fmha|flash" --launch-skip 3 --launch-count 1 python3 -c "
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q,k,v=(torch.randn(4,$H,4096,$d,device='cuda',dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(4): F.scaled_dot_product_attention(q,k,v)
torch.cuda.synchronize()" > "$OUT/ncu_cudnn_d$d.csv" 2> "$OUT/ncu_cudnn_d$d.log"
  done
fi
# few files come back: the Nsight Compute output and the SASS as one archive
tar czf "$OUT/ncu.tgz" -C "$OUT" $(cd "$OUT" && ls ncu_* v5.sass.gz 2>/dev/null) && (cd "$OUT" && rm -f ncu_*.csv ncu_*.log ncu_tensor_metrics.txt v5.sass.gz)
echo "rc $rc" | tee -a "$LOG"
exit $rc
