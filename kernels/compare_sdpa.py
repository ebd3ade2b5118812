#!/usr/bin/env python3
"""compare_sdpa.py -- PyTorch scaled_dot_product_attention (flash and cuDNN backends) on the
shapes of `fabench --sweep`, with fabench's CSV columns, so each fabench row reads as a ratio
against both backends measured in the same device call.

    python3 kernels/compare_sdpa.py --csv OUT.csv [--n 512,1024,...] [--d 64,128]
                                    [--causal 0,1] [--reps 20] [--dtype bf16] [--bwd]
                                    [--shapes B,H,N;...] [--math]
                                    [--timing graph|eager] [--eager-csv PATH]

Shapes: hidden 2048 (H = 2048/d), batch * N = 16384 tokens, N_q = N_k = N, layout (B, H, N, d);
--shapes B,H,N;... times those instead (e.g. one or two heads: a grid that is a fraction of a
wave); --math adds the math backend (standard attention, S and P through HBM) to the forward.
With N_q = N_k, PyTorch's top-left causal mask equals fasim's bottom-right one.
Validation: the same FlashAttention rule as fabench: out_ref = SDPA math backend in fp32 on the
same (bf16-rounded) inputs, out_naive = math backend in bf16; pass when
max|out - out_ref| <= 2 max|out_naive - out_ref|.  Fresh N(0,1) inputs per shape.
Timing (--timing graph, the default): the call captured once in a CUDA graph, then CUDA events
around each replay, 3 warm-ups, median of `reps` -- the GPU's time for the call's kernels, as
fabench times its own (one launch between two events), without PyTorch's host work before and
between the launches (Python, the dispatcher, allocation: 16-115 us a call, which the GPU waits
for when events bracket a single eager call; docs/time-model.md, "What is not modelled: the
host").  A call that cannot be captured is timed eagerly and its row says so on stderr.
--timing eager: CUDA events around each eager call (the method before 2026-12-03).
--eager-csv PATH: also write every row timed eagerly (same columns) beside the graph times.
TFLOP/s: 4 B H N^2 d, halved when causal; GB/s: Q, K, V read once and O written once.
--bwd: the backward alone (torch.autograd.grad of a stored forward, rows `sdpa_*_bwd`), FLOPs
2.5x the forward's; gradients checked for N <= 4096 against the math backend in fp32 with
3x the error of the math backend in bf16 (larger N: the fp32 math backward does not fit).
"""
import argparse
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def timed(fn, warmup, reps):
    """Median ms of fn between two CUDA events, each call alone (synchronized), after warm-ups."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1))
    return statistics.median(ts)


def timed_graph(fn, warmup, reps):
    """Median ms of a CUDA-graph replay of fn (captured on the side stream it was warmed up on),
    or None when fn cannot be captured twice.  The first capture of a process's first backward
    failed in both runs of 2026-12-03 (torch 2.11; its autograd thread sets cuBLAS up inside the
    capture) while every later row's first capture succeeded, so a failed capture is tried once
    more (not yet run on the device: those two rows of the 2026-12-03 files are eager)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = None
    for attempt in range(2):  # the first capture of a process's first backward fails (below)
        g = torch.cuda.CUDAGraph()
        try:  # captured on the warm-up stream
            with torch.cuda.graph(g, stream=side):
                fn()
            break
        except RuntimeError as ex:
            torch.cuda.synchronize()
            g = None
            if attempt:
                print(f"compare_sdpa: not capturable ({str(ex).splitlines()[0][:120]}): timed eagerly",
                      file=sys.stderr)
                return None
    ms = timed(g.replay, warmup, reps)
    del g
    return ms


def measure(fn, a):
    """(ms, eager ms or None): the --timing method's median, and the eager one when --eager-csv
    asks for it (or it is the method)."""
    eager = timed(fn, 3, a.reps) if (a.eager_csv or a.timing == "eager") else None
    if a.timing == "eager":
        return eager, eager
    ms = timed_graph(fn, 3, a.reps)
    if ms is None:
        ms = eager if eager is not None else timed(fn, 3, a.reps)
    return ms, eager


def run_bwd(f, backends, B, H, n, d, c, dt, a):
    dev = torch.device("cuda")
    q, k, v, do = (torch.randn(B, H, n, d, device=dev, dtype=dt) for _ in range(4))
    q.requires_grad_(); k.requires_grad_(); v.requires_grad_()
    ref = naive_err = None
    if n <= 4096:
        with sdpa_kernel(SDPBackend.MATH):
            qf, kf, vf = (t.detach().float().requires_grad_() for t in (q, k, v))
            out = F.scaled_dot_product_attention(qf, kf, vf, is_causal=bool(c))
            ref = torch.autograd.grad(out, (qf, kf, vf), do.float())
            del out, qf, kf, vf
            out = F.scaled_dot_product_attention(q, k, v, is_causal=bool(c))
            gn = torch.autograd.grad(out, (q, k, v), do)
            naive_err = [(x.float() - r).abs().max().item() for x, r in zip(gn, ref)]
            del out, gn
    flops = 2.5 * 4.0 * B * H * n * n * d * (0.5 if c else 1.0)
    nbytes = 8.0 * B * H * n * d * q.element_size()
    fails = 0
    for name, be in backends:
        try:
            with sdpa_kernel(be):
                out = F.scaled_dot_product_attention(q, k, v, is_causal=bool(c))
                gr = torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
                if ref is not None:
                    errs = [(x.float() - r).abs().max().item() for x, r in zip(gr, ref)]
                    ok = all(e <= 3 * ne for e, ne in zip(errs, naive_err))
                    err, verdict = max(errs), ("PASS" if ok else "FAIL")
                else:
                    ok = all(torch.isfinite(x).all().item() for x in gr)
                    err, verdict = float("nan"), ("skip" if ok else "FAIL")
                del gr
                ms, ms_eager = measure(lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True), a)
                del out
        except RuntimeError as ex:
            print(f"compare_sdpa: {name} bwd N {n} d {d} causal {c}: {ex}", file=sys.stderr)
            continue
        fails += 0 if ok else 1
        tf = flops / (ms * 1e-3) / 1e12
        gb = nbytes / (ms * 1e-3) / 1e9
        f.write(f"{name}_bwd,{B},{H},{H},{n},{n},{d},{c},{a.dtype},{ms:.5f},{tf:.2f},{gb:.1f},{err:.3e},{verdict}\n")
        f.flush()
        if a.eager_file is not None:
            a.eager_file.write(f"{name}_bwd,{B},{H},{H},{n},{n},{d},{c},{a.dtype},{ms_eager:.5f},"
                               f"{flops / (ms_eager * 1e-3) / 1e12:.2f},{nbytes / (ms_eager * 1e-3) / 1e9:.1f},"
                               f"{err:.3e},{verdict}\n")
            a.eager_file.flush()
        print(f"{name}_bwd B {B:2d} H {H:2d} N {n:5d} d {d:3d} causal {c}  {ms:9.3f} ms  {tf:7.1f} TFLOP/s  "
              f"err {err:.2e}  {verdict}", flush=True)
    del q, k, v, do, ref
    torch.cuda.empty_cache()
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--n", default="512,1024,2048,4096,8192,16384")
    ap.add_argument("--d", default="64,128")
    ap.add_argument("--causal", default="0,1")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    ap.add_argument("--seed", type=int, default=1129)
    ap.add_argument("--bwd", action="store_true")
    ap.add_argument("--shapes", default="",
                    help="B,H,N[;B,H,N...]: these shapes (with each --d and --causal) instead of the sweep's")
    ap.add_argument("--timing", default="graph", choices=["graph", "eager"],
                    help="graph: replays of the call captured in a CUDA graph (default); eager: each call")
    ap.add_argument("--eager-csv", default="", help="also write the rows timed eagerly to this file")
    ap.add_argument("--math", action="store_true",
                    help="also time the math backend (standard attention: S and P in HBM), forward only")
    a = ap.parse_args()
    ns = [int(x) for x in a.n.split(",")]
    ds = [int(x) for x in a.d.split(",")]
    cs = [int(x) for x in a.causal.split(",")]
    if any(c not in (0, 1) for c in cs):
        print("compare_sdpa: --causal takes 0 and 1", file=sys.stderr)
        return 2
    shapes = []
    if a.shapes:
        try:
            shapes = [tuple(int(x) for x in t.split(",")) for t in a.shapes.split(";") if t]
        except ValueError:
            shapes = [()]
        if any(len(t) != 3 or min(t) < 1 for t in shapes):
            print("compare_sdpa: --shapes wants B,H,N triples of positive integers separated by ';'", file=sys.stderr)
            return 2
    elif any(16384 % n for n in ns) or any(2048 % d for d in ds):
        print("compare_sdpa: --n must divide 16384, --d 2048", file=sys.stderr)
        return 2
    dt = torch.bfloat16 if a.dtype == "bf16" else torch.float16
    torch.manual_seed(a.seed)
    dev = torch.device("cuda")
    print(f"compare_sdpa: torch {torch.__version__}, {torch.cuda.get_device_name(0)}", file=sys.stderr)
    backends = [("sdpa_flash", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)]
    if a.math and not a.bwd:
        backends.append(("sdpa_math", SDPBackend.MATH))
    fails = 0
    header = "kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms,tflops,gbps,max_err,pass\n"
    a.eager_file = open(a.eager_csv, "w") if a.eager_csv else None
    if a.eager_file is not None:
        a.eager_file.write(header)
    with open(a.csv, "w") as f:
        f.write(header)
        for d in ds:
            for c in cs:
                for B, H, n in (shapes or [(16384 // n, 2048 // d, n) for n in ns]):
                    if a.bwd:
                        fails += run_bwd(f, backends, B, H, n, d, c, dt, a)
                        continue
                    q, k, v = (torch.randn(B, H, n, d, device=dev, dtype=dt) for _ in range(3))
                    with sdpa_kernel(SDPBackend.MATH):
                        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=bool(c))
                        naive = F.scaled_dot_product_attention(q, k, v, is_causal=bool(c))
                    err_naive = (naive.float() - ref).abs().max().item()
                    del naive
                    flops = 4.0 * B * H * n * n * d * (0.5 if c else 1.0)
                    nbytes = 4.0 * B * H * n * d * q.element_size()
                    for name, be in backends:
                        try:
                            with sdpa_kernel(be):
                                out = F.scaled_dot_product_attention(q, k, v, is_causal=bool(c))
                                err = (out.float() - ref).abs().max().item()
                                ok = err <= 2 * err_naive and torch.isfinite(out).all().item()
                                del out
                                ms, ms_eager = measure(
                                    lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(c)), a)
                        except RuntimeError as ex:  # backend not available for this shape
                            print(f"compare_sdpa: {name} N {n} d {d} causal {c}: {ex}", file=sys.stderr)
                            continue
                        fails += 0 if ok else 1
                        tf = flops / (ms * 1e-3) / 1e12
                        gb = nbytes / (ms * 1e-3) / 1e9
                        row = (f"{name},{B},{H},{H},{n},{n},{d},{c},{a.dtype},{ms:.5f},{tf:.2f},{gb:.1f},"
                               f"{err:.3e},{'PASS' if ok else 'FAIL'}")
                        f.write(row + "\n")
                        f.flush()
                        if a.eager_file is not None:
                            a.eager_file.write(
                                f"{name},{B},{H},{H},{n},{n},{d},{c},{a.dtype},{ms_eager:.5f},"
                                f"{flops / (ms_eager * 1e-3) / 1e12:.2f},{nbytes / (ms_eager * 1e-3) / 1e9:.1f},"
                                f"{err:.3e},{'PASS' if ok else 'FAIL'}\n")
                            a.eager_file.flush()
                        print(f"{name:10s} B {B:2d} H {H:2d} N {n:5d} d {d:3d} causal {c}  {ms:9.3f} ms  "
                              f"{tf:7.1f} TFLOP/s  err {err:.2e} (naive {err_naive:.2e})  "
                              f"{'PASS' if ok else 'FAIL'}", flush=True)
                    del q, k, v, ref
                    torch.cuda.empty_cache()
    print(f"compare_sdpa: {fails} validation failure(s)", file=sys.stderr)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
