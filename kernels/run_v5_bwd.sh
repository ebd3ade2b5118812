#!/bin/bash
# run_v5_bwd.sh -- the v5 backward (attn_v5_bwd.cu) on a lent H200 in one device call: register
# and spill facts, validation against the fp64 backward (fabench --check --bwd: the 3x rule on the
# odd shapes, deterministic runs bitwise repeatable), compute-sanitizer memcheck / racecheck /
# synccheck on odd shapes, then the FlashAttention-2 sweep shapes (bf16, d = 64, 128, causal 0, 1,
# N = 2k..16k) for v3_bwd and the v5 backward beside PyTorch SDPA's flash and cuDNN backward in
# the same call; Nsight Compute on v5_bwd and cuDNN's backward at N = 4096 when NCU=1.
#   bash kernels/run_v5_bwd.sh        (build/gpu/fabench built here with `make gpu` and carried)
# BWD_KERNELS: the backward configurations swept (default v3_bwd,v5_bwd,v5_bwd_det,v5_bwd_atomic);
# SAN_SHAPES: the sanitized shapes.  Writes under $OUT: log.txt, check_bwd.txt, v5_bwd_sweep.csv,
# v5_bwd_sdpa.csv (and ncu_bwd.tgz).
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
FAB=./build/gpu/fabench
LOG="$OUT/log.txt"
say() { echo "+ $*" | tee -a "$LOG"; }
run() { say "$@"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
rc=0
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >>"$LOG" 2>&1
CHK="$OUT/check_bwd.txt"
say "timeout ${CHECK_S:-120} $FAB --check --bwd --no-time --bwd-kernels v5_bwd,v5_bwd_det,v5_bwd_atomic"
timeout ${CHECK_S:-120} $FAB --check --bwd --no-time --bwd-kernels v5_bwd,v5_bwd_det,v5_bwd_atomic >"$CHK" 2>&1; r=$?
echo "check exit $r" | tee -a "$LOG"; grep -E "FAIL|NO$|error|rror" "$CHK" | head -20 | tee -a "$LOG"; tail -3 "$CHK" | tee -a "$LOG"
[ $r -ne 0 ] && rc=1
[ $r -eq 124 ] && { echo "check hung: stop" | tee -a "$LOG"; exit 1; }
timeout ${CHECK_S:-120} $FAB --check --bwd --no-time --bwd-kernels v5_bwd --dtype fp16 >>"$CHK" 2>&1; r=$?
echo "check fp16 exit $r" | tee -a "$LOG"; [ $r -ne 0 ] && rc=1
for shape in ${SAN_SHAPES:-1,2,1,203,113,128,1 1,6,2,77,300,64,1 1,2,2,300,77,128,0}; do
  for k in ${SAN_KERNELS:-v5_bwd v5_bwd_det v5_bwd_atomic}; do
    for tool in memcheck racecheck synccheck; do
      echo "== $tool $k $shape" >>"$CHK"
      timeout ${SAN_S:-60} compute-sanitizer --tool $tool --error-exitcode 3 $FAB --bwd --shape $shape --bwd-kernels $k --no-time >>"$CHK" 2>&1; r=$?
      echo "== $tool $k $shape exit $r" | tee -a "$CHK" "$LOG"
      [ $r -ne 0 ] && rc=1
      [ $r -eq 124 ] && { echo "sanitizer run hung: stop" | tee -a "$LOG"; exit 1; }
    done
  done
done
if [ $rc -eq 0 ] || [ "${FORCE_BENCH:-0}" = 1 ]; then
  run timeout ${SWEEP_S:-240} $FAB --sweep --bwd --bwd-kernels ${BWD_KERNELS:-v3_bwd,v5_bwd,v5_bwd_det,v5_bwd_atomic} --n ${NS:-2048,4096,8192,16384} --csv "$OUT/v5_bwd_sweep.csv" || rc=1
  run env PYTHONUNBUFFERED=1 timeout 200 python3 kernels/compare_sdpa.py --bwd --n ${NS:-2048,4096,8192,16384} --csv "$OUT/v5_bwd_sdpa.csv" || rc=1
fi
if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
  M=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum
  for d in 64 128; do
    H=$((2048 / d))
    timeout 120 ncu --clock-control none --csv --page raw --metrics $M --kernel-name regex:fa_v5_bwd_kernel \
      $FAB --bwd --shape 4,$H,$H,4096,4096,$d,0 --bwd-kernels v5_bwd --no-validate --reps 1 --warmup 0 > "$OUT/ncu_bwd_v5_d$d.csv" 2>&1
  done
  for d in 64 128; do # cuDNN's backward kernel on the same shape
    H=$((2048 / d))
    timeout 120 ncu --clock-control none --csv --page raw --metrics $M --kernel-name regex:"cudnn|sm90|fmha|bprop|dgrad|flash" --launch-skip 2 --launch-count 3 python3 -c "
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q,k,v=(torch.randn(4,$H,4096,$d,device='cuda',dtype=torch.bfloat16,requires_grad=True) for _ in range(3))
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    o=F.scaled_dot_product_attention(q,k,v)
    g=torch.randn_like(o)
    for _ in range(2): torch.autograd.grad(o,(q,k,v),g,retain_graph=True)
torch.cuda.synchronize()" > "$OUT/ncu_bwd_cudnn_d$d.csv" 2>&1
  done
  tar czf "$OUT/ncu_bwd.tgz" -C "$OUT" $(cd "$OUT" && ls ncu_bwd_*.csv) && rm -f "$OUT"/ncu_bwd_*.csv
fi
echo "rc $rc" | tee -a "$LOG"
exit $rc
