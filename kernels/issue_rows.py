#!/usr/bin/env python3
"""issue_rows.py -- s9_issue.csv's rows from run_issue_ncu.sh's details-page CSVs (iss_KERNEL_dD.csv):
per kernel and d the duration, SM clock and cycles, warp instructions executed (all and per pipe),
issue-slot use, warp cycles per issued instruction and, for the v5 backward, the instructions per
score element over the time model's tiles (B_r x B_c = 64 x 128 at d = 128, 128 x 128 at d = 64;
tiles = B H (N / B_r) (N / B_c) at run_issue_ncu.sh's B 4, N 4096, hidden 2048: 131072 at both d).

    python3 kernels/issue_rows.py iss_v5_bwd_d128.csv iss_v5_bwd_d64.csv [--header]
"""
import csv
import re
import sys

COLS = "kernel,d,kernel_name,duration_ns,sm_hz,sm_cycles,inst_executed,issue_slots_busy_pct,inst_alu,inst_fma,inst_xu,inst_lsu,inst_uniform,warp_cycles_per_issued,model_tiles,B_r,B_c,inst_per_elem"
MET = {"Duration": "duration_ns", "SM Frequency": "sm_hz", "sm__cycles_elapsed.avg": "sm_cycles",
       "smsp__inst_executed.sum": "inst_executed", "Issue Slots Busy": "issue_slots_busy_pct",
       "smsp__inst_executed_pipe_alu.sum": "inst_alu", "smsp__inst_executed_pipe_fma.sum": "inst_fma",
       "smsp__inst_executed_pipe_xu.sum": "inst_xu", "smsp__inst_executed_pipe_lsu.sum": "inst_lsu",
       "smsp__inst_executed_pipe_uniform.sum": "inst_uniform",
       "Warp Cycles Per Issued Instruction": "warp_cycles_per_issued"}


def row(path):
    m = re.search(r"iss_(.+)_d(\d+)\.csv$", path)
    kernel, d = m.group(1), int(m.group(2))
    out = {"kernel": kernel, "d": d}
    for r in csv.reader(open(path)):
        if len(r) > 14 and r[12] in MET:
            out.setdefault("kernel_name", r[4].split("(")[0])
            out[MET[r[12]]] = r[14].replace(",", "")
    if kernel.startswith("v5_bwd"):
        br = 64 if d == 128 else 128
        out.update(model_tiles=4 * (2048 // d) * (4096 // br) * (4096 // 128), B_r=br, B_c=128)
        out["inst_per_elem"] = "%.4f" % (float(out["inst_executed"]) / (out["model_tiles"] * br * 128))
    return out


def main():
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    w = csv.DictWriter(sys.stdout, fieldnames=COLS.split(","), lineterminator="\n")
    if "--header" in sys.argv:
        w.writeheader()
    for p in paths:
        w.writerow(row(p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
