#!/usr/bin/env python3
"""Builds compare_input.csv (the input of `fasim compare --measured`) from the measured
ncu_io.csv (Nsight Compute bytes) and fabench_sweep.csv / sdpa_sweep.csv (CUDA-event times).

Each kernel's tile sizes are read off its source (kernels/*.cu) and written as block_r, block_c:
  v1: B_r = B_c = 64, fp32; each thread block runs Algorithm 1 on 4 Q blocks (256 rows) of one
      head, so fasim models it as flash1 on slices of N_q = 256 rows (B' = B * N / 256).
  v2: B_r = B_c = 64, fp32.   v3: 128 x 64.   v3_mt2: 128 x 64.   v3_mt2_bc32: 128 x 32.
  v3_br256: 256 x 64.   sdpa_flash: Flash_fwd_kernel_traits<d, kBlockM, kBlockN>: d = 128:
      128 x 64, d = 64: 128 x 128 (read off the kernel names in ncu_io.csv).
Shapes: the FlashAttention-2 sweep, hidden 2048 (H = 2048 / d), B * N = 16k tokens.
Usage: python3 analysis/measured/h200/make_compare_input.py  (run from the repository root)
"""
import csv, os, re

here = os.path.dirname(os.path.abspath(__file__))
tiles = {"v1": (64, 64), "v2": (64, 64), "v3": (128, 64), "v3_mt2": (128, 64),
         "v3_mt2_bc32": (128, 32), "v3_br256": (256, 64)}
algo = {"v1": "flash1"}
dtype = {"v1": "fp32", "v2": "fp32"}

times = {}
for fn in ("fabench_sweep.csv", "sdpa_sweep.csv"):
    with open(os.path.join(here, fn)) as f:
        for r in csv.DictReader(f):
            times[(r["kernel"], r["N_q"], r["d"], r["causal"])] = r["ms"]

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
        Nq, Bq = N, B
        if k == "v1":  # 256-row slices per thread block
            Nq, Bq = 256, B * (N // 256)
        rows.append({"kernel": k, "B": Bq, "H": H, "H_kv": H, "N_q": Nq, "N_k": N, "d": d,
                     "causal": c, "dtype": dtype.get(k, "bf16"), "algo": algo.get(k, "flash2"),
                     "block_r": br, "block_c": bc,
                     "ms": times.get((k, str(N), str(d), str(c)), ""),
                     "dram_read_bytes": r["dram_read_bytes"], "dram_write_bytes": r["dram_write_bytes"],
                     "l2_read_bytes": r["xbar2l1_read_bytes"], "l2_write_bytes": r["l12xbar_write_bytes"]})

with open(os.path.join(here, "compare_input.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
print("wrote", len(rows), "rows")
