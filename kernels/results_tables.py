#!/usr/bin/env python3
"""results_tables.py -- markdown tables for docs/results.md from the CSVs of run_h200.sh.

    python3 kernels/results_tables.py analysis/measured/h200

Reads fabench_sweep.csv, sdpa_sweep.csv, fabench_bwd.csv, sdpa_bwd.csv and ncu_io.csv of that
folder (standard library only) and prints: forward TFLOP/s per kernel beside SDPA flash and
cuDNN with ratios, the same for the backward, the validation tally, and the Nsight Compute bytes
beside the two-level (HBM/L2 -> SRAM) count of each kernel's loop order.
"""
import csv
import os
import sys

FWD = ["v0", "v0_low", "v1", "v2", "v3", "v3_mt2", "v3_mt2_bc32", "v3_br256", "v4", "v4_bc64", "v5"]
V3 = ["v3", "v3_mt2", "v3_mt2_bc32", "v3_br256"]
V4 = ["v4", "v4_bc64"]
BWD = ["v3_bwd_det", "v3_bwd", "v3_bwd_bc64", "v3_bwd_occ2"]


def load(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows[(r["kernel"], int(r["d"]), int(r["causal"]), int(r["N_q"]))] = r
    return rows


def tf(rows, k, d, c, n):
    r = rows.get((k, d, c, n))
    return float(r["tflops"]) if r else None


def fmt(x, nd=0):
    return "—" if x is None else f"{x:.{nd}f}"


def table(rows, kernels, base, d, c, ns, groups):
    """groups: (label, kernels) pairs; one "best <label> / flash" column each, then the best of
    all groups over cuDNN."""
    names = kernels + list(base)
    out = ["| N | " + " | ".join(names) + " | " +
           " | ".join(f"best {lab} / flash" for lab, _ in groups) + " | best / cuDNN |",
           "|---:|" + "---:|" * (len(names) + len(groups) + 1)]
    for n in ns:
        vals = dict((k, tf(rows, k, d, c, n)) for k in names)
        fl, cu = tf(rows, base[0], d, c, n), tf(rows, base[1], d, c, n)
        ratios, allbest = [], None
        for _, ks in groups:
            best = max((vals[k] for k in ks if vals.get(k) is not None), default=None)
            ratios.append(best / fl if best and fl else None)
            if best is not None and (allbest is None or best > allbest):
                allbest = best
        r2 = allbest / cu if allbest and cu else None
        out.append(f"| {n} | " + " | ".join(fmt(vals[k]) for k in names) + " | " +
                   " | ".join(fmt(r, 2) for r in ratios) + f" | {fmt(r2, 2)} |")
    return "\n".join(out)


def tally(paths):
    out = []
    for p in paths:
        if not os.path.exists(p):
            continue
        cnt = {}
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                cnt[r["pass"]] = cnt.get(r["pass"], 0) + 1
        out.append(f"- `{os.path.basename(p)}`: " + ", ".join(f"{v} {k}" for k, v in sorted(cnt.items())))
    return "\n".join(out)


def predicted_l2_read(kernel, n, d):
    """Two-level count of bytes the SMs read from L2 for one (B, H) sweep shape (hidden 2048,
    16k tokens), from each kernel's loop order and tile sizes (no mask)."""
    B, H = 16384 // n, 2048 // d
    if kernel in ("v1", "v2"):
        e, br = 4, 64
    elif kernel in ("v3_br256",):
        e, br = 2, 256
    elif kernel.startswith("v3") or kernel.startswith("v4") or kernel == "sdpa_flash":
        e, br = 2, 128
    else:
        return None
    tr = -(-n // br)
    q = n * d * e
    kv = 2 * n * d * e
    if kernel == "v1":
        # FA1 order: each block (a slice of 4 Q blocks) reads K_j, V_j once; every (j, i)
        # step reads Q_i, O_i (fp32) and l_i, m_i (8 bytes a row)
        tc = -(-n // 64)
        per_head = kv * -(-tr // 4) + tc * (q + q + n * 8)
        return B * H * per_head
    return B * H * (q + tr * kv)


def ncu_table(path):
    if not os.path.exists(path):
        return ""
    out = ["| kernel | N | d | DRAM read MB | DRAM write MB | L2→SM read MB (xbar) | two-level prediction MB | pred / meas | SM→L2 write MB | time ms (ncu) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    with open(path, newline="") as f:
        seen = set()
        for r in csv.DictReader(f):
            key = (r["kernel"], r["N"], r["d"], r["causal"])
            if key in seen:
                continue
            seen.add(key)
            n, d = int(r["N"]), int(r["d"])
            meas = float(r["xbar2l1_read_bytes"]) if r["xbar2l1_read_bytes"] else None
            pred = predicted_l2_read(r["kernel"], n, d)
            ratio = pred / meas if pred and meas else None
            out.append(f"| {r['kernel']} | {n} | {d} | {float(r['dram_read_bytes'])/1e6:.0f} | "
                       f"{float(r['dram_write_bytes'])/1e6:.0f} | {fmt(meas/1e6 if meas else None)} | "
                       f"{fmt(pred/1e6 if pred else None)} | {fmt(ratio, 3)} | "
                       f"{float(r['l12xbar_write_bytes'])/1e6:.0f} | {float(r['time_ms']):.3f} |")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        print("usage: results_tables.py DIR", file=sys.stderr)
        return 2
    d0 = sys.argv[1]
    fwd = load(os.path.join(d0, "fabench_sweep.csv"))
    fwd.update(load(os.path.join(d0, "sdpa_sweep.csv")))
    bwd = load(os.path.join(d0, "fabench_bwd.csv"))
    bwd.update(load(os.path.join(d0, "sdpa_bwd.csv")))
    ns = sorted({k[3] for k in fwd})
    for d in (64, 128):
        for c in (0, 1):
            print(f"\n#### Forward, d = {d}, {'causal' if c else 'non-causal'} (TFLOP/s)\n")
            print(table(fwd, FWD, ("sdpa_flash", "sdpa_cudnn"), d, c, ns, [("v3…", V3), ("v4…", V4)]))
    for d in (64, 128):
        for c in (0, 1):
            print(f"\n#### Backward, d = {d}, {'causal' if c else 'non-causal'} (TFLOP/s, 2.5x forward FLOPs)\n")
            print(table(bwd, BWD, ("sdpa_flash_bwd", "sdpa_cudnn_bwd"), d, c, ns, [("v3_bwd…", BWD)]))
    print("\n#### Validation tally\n")
    print(tally([os.path.join(d0, f) for f in
                 ("fabench_sweep.csv", "sdpa_sweep.csv", "fabench_bwd.csv", "sdpa_bwd.csv")]))
    print("\n#### Nsight Compute (N = 4096, non-causal)\n")
    print(ncu_table(os.path.join(d0, "ncu_io.csv")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
