#!/usr/bin/env python3
"""sdpa_breakdown.py -- where an SDPA call's time goes: each CUDA kernel it launches, with its time,
beside the CUDA-event time of the whole call (the time kernels/compare_sdpa.py records).

    python3 kernels/sdpa_breakdown.py --csv FILE [--shapes B,H,N,d;...] [--reps 10]

For each shape, causal 0 and 1, backend FLASH_ATTENTION and CUDNN_ATTENTION, pass fwd and bwd
(bwd: torch.autograd.grad of a stored forward with retain_graph, as compare_sdpa.py times it):
  event_ms   the median CUDA-event time of --reps calls (kernels/compare_sdpa.py's `timed`);
  kernel_ms  the sum of the kernels' device times a call (torch.profiler, CUPTI; 3 calls profiled);
  gap_ms     event_ms - kernel_ms: the time the GPU waited for the host between the kernels;
and one row per kernel name (kernel_us a call, launches a call).  bf16, N(0, 1) inputs."""
import argparse
import collections

import torch

import compare_sdpa  # kernels/: its timing, so every time here is measured as compare_sdpa.py measures SDPA
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--csv", required=True)
ap.add_argument("--shapes", default="32,32,512,64;4,32,4096,64;32,16,512,128;4,16,4096,128;1,1,4096,64;1,2,4096,128")
ap.add_argument("--reps", type=int, default=10)
a = ap.parse_args()


def timed(fn, reps):
    """median CUDA-event ms of reps calls after 3 warm-ups (kernels/compare_sdpa.py's timing)"""
    return compare_sdpa.timed(fn, 3, reps)


def kernels(fn, calls=3):
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    us = collections.OrderedDict()
    n = collections.Counter()
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA and ev.device_time > 0:
            us[ev.name] = us.get(ev.name, 0.0) + ev.device_time
            n[ev.name] += 1
    return [(k, v / calls, n[k] / calls) for k, v in us.items()]


out = open(a.csv, "w")
out.write("backend,pass,B,H,N,d,causal,event_ms,kernel_ms,gap_ms,kernel_name,kernel_us,launches\n")
for sh in a.shapes.split(";"):
    B, H, N, d = (int(x) for x in sh.split(","))
    q, k, v, do = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    q.requires_grad_(); k.requires_grad_(); v.requires_grad_()
    for c in (0, 1):
        for name, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
            with sdpa_kernel(be):
                try:
                    out_t = F.scaled_dot_product_attention(q, k, v, is_causal=bool(c))
                except RuntimeError as ex:
                    print(f"{name} {sh} causal {c}: {ex}")
                    continue
                cases = (("fwd", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(c))),
                         ("bwd", lambda: torch.autograd.grad(out_t, (q, k, v), do, retain_graph=True)))
                for p, fn in cases:
                    ms = timed(fn, a.reps)
                    ks = kernels(fn)
                    kms = sum(x[1] for x in ks) / 1e3
                    print(f"{name} {p} B {B} H {H} N {N} d {d} causal {c}: event {ms:.4f} ms, kernels {kms:.4f} ms")
                    for kn, kus, kl in ks:
                        print(f"    {kus:10.2f} us x{kl:.0f}  {kn[:110]}")
                        out.write(f'{name},{p},{B},{H},{N},{d},{c},{ms:.5f},{kms:.5f},{ms - kms:.5f},"{kn}",{kus:.3f},{kl:.0f}\n')
                    out.flush()
                del out_t
    del q, k, v, do
    torch.cuda.empty_cache()
