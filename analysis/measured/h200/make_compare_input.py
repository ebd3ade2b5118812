#!/usr/bin/env python3
"""Builds compare_input.csv (the input of `fasim compare --measured`) from the measured
ncu_io.csv (Nsight Compute bytes) and fabench_sweep.csv / sdpa_sweep.csv (CUDA-event times).

Each kernel's tile sizes are read off its source (kernels/*.cu) and written as block_r, block_c:
  v1: B_r = B_c = 64, fp32; each thread block runs Algorithm 1 on 4 Q blocks (256 rows) of one
      head, grid (N / 256, H, B).  fasim models it as flash1 with H' = H * N / 256 query heads of
      N_q = 256 rows that share the H heads of K and V (GQA, group N / 256): slice s of head h is
      query head h * (N / 256) + s, which is the kernel's address of those Q/O rows in the
      (B, H, N, d) layout and its block order, and the N / 256 slices of a head read one K, V.
  v2: B_r = B_c = 64, fp32.   v3: 128 x 64.   v3_mt2: 128 x 64.   v3_mt2_bc32: 128 x 32.
  v3_br256: 256 x 64.   sdpa_flash: Flash_fwd_kernel_traits<d, kBlockM, kBlockN>: d = 128:
      128 x 64, d = 64: 128 x 128 (read off the kernel names in ncu_io.csv).
Shapes: the FlashAttention-2 sweep, hidden 2048 (H = 2048 / d), B * N = 16k tokens.
blocks_per_sm: each kernel's occupancy as Nsight Compute measured it at launch, the smallest of
  its launch__occupancy_limit_* (registers, shared memory, warps, blocks, barriers), read from
  ncu_raw.tgz.
Usage: python3 analysis/measured/h200/make_compare_input.py  (run from the repository root)
"""
import csv, io, os, re, tarfile

here = os.path.dirname(os.path.abspath(__file__))
tiles = {"v1": (64, 64), "v2": (64, 64), "v3": (128, 64), "v3_mt2": (128, 64),
         "v3_mt2_bc32": (128, 32), "v3_br256": (256, 64), "v4": (128, 128), "v4_bc64": (128, 64)}
algo = {"v1": "flash1"}
dtype = {"v1": "fp32", "v2": "fp32"}

times = {}
for fn in ("fabench_sweep.csv", "sdpa_sweep.csv"):
    with open(os.path.join(here, fn)) as f:
        for r in csv.DictReader(f):
            times[(r["kernel"], r["N_q"], r["d"], r["causal"])] = r["ms"]

# occupancy per (kernel, N, d, causal) from the raw Nsight Compute CSVs
occupancy = {}
with tarfile.open(os.path.join(here, "ncu_raw.tgz")) as tz:
    for m in tz.getmembers():
        g = re.search(r"ncu_raw_(.+)_N(\d+)_d(\d+)_c(\d)\.csv$", m.name)
        if not g:
            continue
        lines = list(csv.reader(io.TextIOWrapper(tz.extractfile(m), encoding="utf-8")))
        hi = next(i for i, r in enumerate(lines) if r and r[0] == "ID")
        head, last = lines[hi], lines[-1]
        lim = [int(v.replace(",", "")) for k, v in zip(head, last) if k.startswith("launch__occupancy_limit_")]
        occupancy[(g.group(1), g.group(2), g.group(3), g.group(4))] = min(lim)

rows = []
with open(os.path.join(here, "ncu_io.csv")) as f:
    for r in csv.DictReader(f):
        k, N, d, c = r["kernel"], int(r["N"]), int(r["d"]), int(r["causal"])
        B, H = 16384 // N, 2048 // d
        if k == "sdpa_flash":
            m = re.search(r"traits<(\d+), (\d+), (\d+)", r["ncu_kernel"])
            br, bc = int(m.group(2)), int(m.group(3))
        else:
            br, bc = tiles[k]
        Nq, Hq = N, H
        if k == "v1":  # 256-row slices per thread block: N / 256 query heads per K/V head
            Nq, Hq = 256, H * (N // 256)
        rows.append({"kernel": k, "B": B, "H": Hq, "H_kv": H, "N_q": Nq, "N_k": N, "d": d,
                     "causal": c, "dtype": dtype.get(k, "bf16"), "algo": algo.get(k, "flash2"),
                     "block_r": br, "block_c": bc,
                     "blocks_per_sm": occupancy[(k, str(N), str(d), str(c))],
                     "ms": times.get((k, str(N), str(d), str(c)), ""),
                     "dram_read_bytes": r["dram_read_bytes"], "dram_write_bytes": r["dram_write_bytes"],
                     "l2_read_bytes": r["xbar2l1_read_bytes"], "l2_write_bytes": r["l12xbar_write_bytes"]})

with open(os.path.join(here, "compare_input.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
print("wrote", len(rows), "rows")
