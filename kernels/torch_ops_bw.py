#!/usr/bin/env python3
"""torch_ops_bw.py -- a microbenchmark of the PyTorch kernels that SDPA's math path is made of: the
DRAM bandwidth each reaches on a synthetic fp32 tensor of 2^28 elements (1 GiB) shaped (R, C), for
row lengths C = 512 .. 16384 (the softmax's kernel depends on C).  Not an attention shape: the
tensors are filled with N(0, 1) and the ops are timed alone.

    python3 kernels/torch_ops_bw.py --csv FILE [--reps 10]

Then the layout copy PyTorch's flash backward makes of a (B, H, N, d) bf16 tensor into (B, N, H, d)
(`x.transpose(1, 2).contiguous()`, op `transpose12_d64` / `_d128`; C is N) on 2^27-element tensors
(256 MiB) of H = 2048 / d heads.

Each row: op, C, the bytes the op must move (every input read once, every output written once, by
the tensors' sizes), the median CUDA-event time of --reps calls, bytes / time in TB/s."""
import argparse

import torch

import compare_sdpa  # kernels/: its timing, so every time here is measured as compare_sdpa.py measures SDPA

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--csv", required=True)
ap.add_argument("--reps", type=int, default=10)
a = ap.parse_args()


def timed(fn, reps):
    """median CUDA-event ms of reps calls after 3 warm-ups (kernels/compare_sdpa.py's timing)"""
    return compare_sdpa.timed(fn, 3, reps)


E = 1 << 28
out = open(a.csv, "w")
out.write("op,C,bytes,ms,tb_per_s\n")
for C in (512, 1024, 2048, 4096, 8192, 16384):
    R = E // C
    x = torch.randn(R, C, device="cuda", dtype=torch.float32)
    y = torch.randn(R, C, device="cuda", dtype=torch.float32)
    xb = x.to(torch.bfloat16)
    neg = torch.isneginf(x)
    rows = torch.zeros(R, 1, device="cuda", dtype=torch.bool)
    tri = torch.ones(C, C, device="cuda", dtype=torch.bool).tril()
    f4, f2, f1 = 4 * E, 2 * E, E
    ops = [
        ("softmax", lambda: torch.softmax(x, -1), 2 * f4),
        ("mul_scalar", lambda: x * 0.125, 2 * f4),
        ("add", lambda: x + y, 3 * f4),
        ("add_inplace", lambda: x.add_(0.0), 2 * f4),
        ("where_rows", lambda: torch.where(rows, 0.0, x), 2 * f4 + R),
        ("isneginf", lambda: torch.isneginf(x), f4 + f1),
        ("all_rows", lambda: neg.all(dim=-1, keepdim=True), f1 + R),
        ("masked_fill_", lambda: x.masked_fill_(rows, 0.0), 2 * f4 + R),
        ("to_bf16", lambda: x.to(torch.bfloat16), f4 + f2),
        ("to_fp32", lambda: xb.to(torch.float32), f2 + f4),
        ("tril_CxC", lambda: torch.ones(C, C, device="cuda", dtype=torch.bool).tril(), 2 * C * C),
        ("logical_not_CxC", lambda: tri.logical_not(), 2 * C * C),
    ]
    for name, fn, nb in ops:
        ms = timed(fn, a.reps)
        out.write(f"{name},{C},{nb},{ms:.5f},{nb / (ms * 1e-3) / 1e12:.4f}\n")
        print(f"{name:16s} C {C:5d}  {ms:8.4f} ms  {nb / (ms * 1e-3) / 1e12:6.3f} TB/s", flush=True)
    del x, y, xb, neg, rows, tri
    torch.cuda.empty_cache()
for d in (64, 128):
    H = 2048 // d
    for N in (512, 4096, 16384):
        B = (1 << 27) // (H * N * d)
        x4 = torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16)
        nb = 2 * 2 * x4.numel()
        ms = timed(lambda: x4.transpose(1, 2).contiguous(), a.reps)
        out.write(f"transpose12_d{d},{N},{nb},{ms:.5f},{nb / (ms * 1e-3) / 1e12:.4f}\n")
        print(f"transpose12_d{d:<4d} N {N:5d}  {ms:8.4f} ms  {nb / (ms * 1e-3) / 1e12:6.3f} TB/s", flush=True)
        del x4
        torch.cuda.empty_cache()
