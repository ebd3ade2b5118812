#!/usr/bin/env python3
"""sdpa_fwdbwd.py -- PyTorch SDPA forward + backward on one backend, for Nsight Compute to profile
(kernels/run_clock_ncu.sh, kernels/run_issue_ncu.sh pick the kernels with --kernel-name and
--launch-skip / --launch-count).

    python3 kernels/sdpa_fwdbwd.py --shape B,H,N,d --backend CUDNN_ATTENTION|FLASH_ATTENTION
        [--iters 2] [--warm-fwd] [--grad randn|ones]

bf16 Q, K, V of (B, H, N, d), N(0, 1), non-causal; --warm-fwd runs one forward before the
iterations; each iteration is a forward and torch.autograd.grad of (q, k, v) with dO = randn_like(O)
(the default) or ones_like(O)."""
import argparse

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--shape", required=True, help="B,H,N,d")
ap.add_argument("--backend", required=True, choices=["CUDNN_ATTENTION", "FLASH_ATTENTION"])
ap.add_argument("--iters", type=int, default=2)
ap.add_argument("--warm-fwd", action="store_true")
ap.add_argument("--grad", choices=["randn", "ones"], default="randn")
a = ap.parse_args()
B, H, N, d = (int(x) for x in a.shape.split(","))
q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
with sdpa_kernel(getattr(SDPBackend, a.backend)):
    o = None
    if a.warm_fwd:
        o = F.scaled_dot_product_attention(q, k, v)
    g = None
    for _ in range(a.iters):
        o = F.scaled_dot_product_attention(q, k, v)
        if g is None:
            g = torch.randn_like(o) if a.grad == "randn" else torch.ones_like(o)
        torch.autograd.grad(o, (q, k, v), g)
torch.cuda.synchronize()
