#!/bin/bash
# run_tm10.sh -- the tenth session's time-model measurements in one device call: where SDPA's calls
# spend their time (kernels/sdpa_breakdown.py: every kernel of a flash / cuDNN forward and backward
# beside the call's CUDA-event time) and the bandwidth of the PyTorch kernels that the math path is
# made of (kernels/torch_ops_bw.py, synthetic 1 GiB tensors).  Writes under $OUT: breakdown.csv,
# torch_ops.csv, log.txt.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; python3 -c 'import torch; print(torch.__version__, torch.backends.cudnn.version())'; } >"$OUT/log.txt" 2>&1
timeout ${BD_S:-240} python3 kernels/sdpa_breakdown.py --csv "$OUT/breakdown.csv" >>"$OUT/log.txt" 2>&1; echo "breakdown exit $?" >>"$OUT/log.txt"
timeout ${OPS_S:-150} python3 kernels/torch_ops_bw.py --csv "$OUT/torch_ops.csv" >>"$OUT/log.txt" 2>&1; echo "ops exit $?" >>"$OUT/log.txt"
tail -5 "$OUT/log.txt"
