#!/bin/bash
# diag_ncu.sh -- instruction-level comparison of one fasim kernel with PyTorch's FlashAttention-2
# forward on one shape (Nsight Compute, full set, clocks left alone):
#   bash kernels/diag_ncu.sh FABENCH OUTDIR KERNEL N d causal
# Writes OUTDIR/diag_<kernel>.txt and diag_sdpa_flash.txt (details page: throughput, issue
# slots, warp stall reasons, instruction mix) and OUTDIR/sass_<kernel>.csv, sass_sdpa_flash.csv
# (per-SASS-instruction execution counts and stall samples).
set -u
FAB=$1; OUT=$2; K=$3; N=$4; d=$5; c=$6
B=$((16384 / N)); H=$((2048 / d))
mkdir -p "$OUT"
NCU="ncu --clock-control none --set full --import-source no"
$NCU --kernel-name regex:fa_v._fwd_kernel -o "$OUT/rep_$K" -f "$FAB" --shape $B,$H,$H,$N,$N,$d,$c \
    --kernels $K --no-validate --reps 1 --warmup 0 >"$OUT/ncu_$K.log" 2>&1
$NCU --kernel-name regex:flash --launch-skip 3 --launch-count 1 -o "$OUT/rep_sdpa_flash" -f python3 -c "
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q,k,v=(torch.randn($B,$H,$N,$d,device='cuda',dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    for _ in range(4): F.scaled_dot_product_attention(q,k,v,is_causal=bool($c))
torch.cuda.synchronize()" >"$OUT/ncu_sdpa.log" 2>&1
for r in "$K" sdpa_flash; do
  ncu -i "$OUT/rep_$r.ncu-rep" --page details --print-details all >"$OUT/diag_$r.txt" 2>&1 \
    || ncu -i "$OUT/rep_$r.ncu-rep" --page details >"$OUT/diag_$r.txt" 2>&1
  ncu -i "$OUT/rep_$r.ncu-rep" --page source --csv --print-source sass >"$OUT/sass_$r.csv" 2>&1
  rm -f "$OUT/rep_$r.ncu-rep"
done
