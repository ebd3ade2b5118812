#!/usr/bin/env python3
"""Builds timemodel_input.csv, the input of `fasim compare --measured` that the time model is
judged against (docs/time-model.md, "Validation"), from the measurement of 2026-12-01:

  call A (log_tm_a.txt): ubench.csv, tm_fwd.csv (fabench forward sweep), tm_sdpa_fwd.csv
          (PyTorch SDPA flash, cuDNN, math), tm_small_fwd.csv (B = 1, H = 1 or 2: a fraction of
          a wave; fabench and SDPA)
  call B (log_tm_b.txt): tm_bwd.csv (fabench backward sweep), tm_sdpa_bwd.csv, tm_small_bwd.csv,
          tm_ncu.tgz (Nsight Compute bytes of v2, v3, v3_mt2, v4_bc64, SDPA flash at N = 4096)

Every row leaves block_r and block_c empty: fasim takes the tiles from the kernel's profile
(analysis/profiles.c), which is what is being tested.  The profile comes from the kernel name
(fasim compare --help).  v1's thread block runs 4 Q blocks (256 rows) of one head: it is written
as flash1 on N / 256 slices of 256 query rows per head that share the head's K and V
(make_compare_input.py explains the mapping).  Rows left out: v3_bwd_det (its separate dQ
kernel, which recomputes S and dP, is not modelled), causal v1 (a slice of 256 rows cannot say
where on the diagonal it sits: the mapping gives every slice the last rows' keys), rows without
a time (nan).
Bytes (dram_*, l2_*) and blocks_per_sm (the smallest launch__occupancy_limit_*) come from the
Nsight Compute files where a kernel was profiled at that shape; elsewhere they stay empty.
The measurement of 2026-12-03 (kernels/run_tm15.sh a and b, s15_log_tm_a.txt, s15_log_tm_b.txt)
repeats it with PyTorch SDPA timed as CUDA-graph replays of each call (compare_sdpa.py --timing
graph; the eager per-call times in s15_*_eager.csv): its files carry the prefix s15_ and it is
written to s15_timemodel_input.csv.  Bytes and blocks_per_sm come from the 2026-12-01 Nsight
Compute files either way (the same kernels on the same shapes).
Usage: python3 analysis/measured/h200/make_timemodel_input.py [s15_]   (from the repository root)
"""
import csv, io, os, re, sys, tarfile

here = os.path.dirname(os.path.abspath(__file__))
prefix = sys.argv[1] if len(sys.argv) > 1 else ""
if prefix not in ("", "s15_"):
    sys.exit("make_timemodel_input.py: the prefix is '' (2026-12-01) or s15_ (2026-12-03), not %r" % prefix)


def rows(fn):
    with open(os.path.join(here, fn)) as f:
        return list(csv.DictReader(f))


bytes_of, occ_of = {}, {}
with tarfile.open(os.path.join(here, "tm_ncu.tgz")) as tz:
    for m in tz.getmembers():
        if m.name.endswith("ncu_io.csv"):
            for r in csv.DictReader(io.TextIOWrapper(tz.extractfile(m), encoding="utf-8")):
                bytes_of[(r["kernel"], r["N"], r["d"], r["causal"])] = r
        g = re.search(r"ncu_raw_(.+)_N(\d+)_d(\d+)_c(\d)\.csv$", m.name)
        if g:
            lines = list(csv.reader(io.TextIOWrapper(tz.extractfile(m), encoding="utf-8")))
            hi = [i for i, r in enumerate(lines) if r and r[0] == "ID"]
            if hi:
                head, last = lines[hi[0]], lines[-1]
                lim = [int(v.replace(",", "")) for k, v in zip(head, last)
                       if k.startswith("launch__occupancy_limit_") and v.replace(",", "").isdigit()]
                if lim:
                    occ_of[g.groups()] = min(lim)

out = []
for fn in ("tm_fwd.csv", "tm_sdpa_fwd.csv", "tm_small_fwd.csv", "tm_bwd.csv", "tm_sdpa_bwd.csv",
           "tm_small_bwd.csv"):
    for r in rows(prefix + fn):
        k = r["kernel"]
        if k == "v3_bwd_det" or r["ms"] in ("", "nan") or (k == "v1" and r["causal"] == "1"):
            continue
        B, H, Hk, Nq, Nk, d, c = (int(r[x]) for x in ("B", "H", "H_kv", "N_q", "N_k", "d", "causal"))
        algo = "standard" if k in ("v0_low", "sdpa_math") else "flash1" if k == "v1" else "flash2"
        if k == "v1":  # 256-row slices per thread block
            H, Nq = H * (Nq // 256), 256
        key = (k, str(Nk), str(d), str(c))
        sweep = int(r["B"]) * Nk == 16384 and int(r["H"]) * d == 2048  # Nsight Compute ran the sweep's shapes
        nb = bytes_of.get(key, {}) if sweep else {}
        out.append({"kernel": k, "B": B, "H": H, "H_kv": Hk, "N_q": Nq, "N_k": Nk, "d": d, "causal": c,
                    "dtype": r["dtype"], "algo": algo, "ms": r["ms"],
                    "blocks_per_sm": occ_of.get(key, "") if sweep else "",
                    "dram_read_bytes": nb.get("dram_read_bytes", ""), "dram_write_bytes": nb.get("dram_write_bytes", ""),
                    "l2_read_bytes": nb.get("xbar2l1_read_bytes", ""), "l2_write_bytes": nb.get("l12xbar_write_bytes", ""),
                    "source": prefix + fn})

cols = ["kernel", "B", "H", "H_kv", "N_q", "N_k", "d", "causal", "dtype", "algo", "blocks_per_sm", "ms",
        "dram_read_bytes", "dram_write_bytes", "l2_read_bytes", "l2_write_bytes"]
with open(os.path.join(here, prefix + "timemodel_input.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
    w.writeheader()
    w.writerows(out)
print("wrote", len(out), "rows,", sum(1 for r in out if r["dram_read_bytes"]), "with bytes")
