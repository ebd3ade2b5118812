#!/usr/bin/env python3
"""math_ops.py -- the kernels PyTorch's SDPA math backend launches, and each one's time.

    python3 kernels/math_ops.py [--csv FILE]

For bf16 inputs at B = 4, N = 4096 (d = 64, H = 32; d = 128, H = 16), causal 0 and 1, runs
scaled_dot_product_attention under sdpa_kernel(SDPBackend.MATH) in torch.profiler and prints one
row per CUDA kernel: its name (shortened), how many launches, and the mean time.  This shows the
math path's op sequence (fp32 casts, the scale, the causal mask, _safe_softmax, the casts back)
that fasim's "math" profile follows (docs/time-model.md, "PyTorch's math path"); the times are a
diagnostic, not an input of the model.  Also prints the value of
torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp (False: the math path computes in fp32).
"""
import argparse
import csv
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv")
    a = ap.parse_args()
    red = torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    print(f"math_ops: torch {torch.__version__}, {torch.cuda.get_device_name()}, "
          f"allow_fp16_bf16_reduction_math_sdp = {red}, allow_tf32 = {torch.backends.cuda.matmul.allow_tf32}")
    rows = []
    for d, H in ((64, 32), (128, 16)):
        for causal in (0, 1):
            B, N = 4, 4096
            q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            with sdpa_kernel(SDPBackend.MATH):
                for _ in range(2):
                    F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
                torch.cuda.synchronize()
                reps = 3
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(reps):
                        F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
                    torch.cuda.synchronize()
            total = 0.0
            for e in prof.key_averages():
                t = getattr(e, "device_time_total", None)
                if t is None:
                    t = e.cuda_time_total
                if t <= 0 or e.count == 0:
                    continue
                name = e.key.replace(",", ";")[:110]
                calls = e.count / reps
                ms = t / 1e3 / reps
                total += ms
                rows.append((B, H, N, d, causal, name, calls, ms))
                print(f"  d={d:3d} causal={causal} {calls:5.1f} x {ms:8.3f} ms  {name}")
            print(f"  d={d:3d} causal={causal} total {total:.3f} ms (kernels, one call)")
            del q, k, v
            torch.cuda.empty_cache()
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["B", "H", "N", "d", "causal", "kernel", "launches", "ms"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
