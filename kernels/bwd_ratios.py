#!/usr/bin/env python3
"""bwd_ratios.py -- the backward sweep's ratios: for every shape of fabench's backward CSV(s), each
kernel's speed against SDPA cuDNN's backward from compare_sdpa.py's CSV of the same call
(cudnn ms / kernel ms: above 1 is faster than cuDNN), and the deterministic mode's against the fast one.

    python3 kernels/bwd_ratios.py SDPA.csv FABENCH.csv [FABENCH.csv ...] [--det v5_bwd_det:v5_bwd,...]
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def key(r):
    return (int(r["d"]), int(r["causal"]), int(r["N_q"]), int(r["B"]), int(r["H"]))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    det = "v5_bwd_det:v5_bwd,v5_bwd_s2pr_det:v5_bwd_s2pr"
    if "--det" in sys.argv:
        det = sys.argv[sys.argv.index("--det") + 1]
        args.remove(det)
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cudnn = {key(r): float(r["ms"]) for r in rows(args[0]) if r["kernel"] == "sdpa_cudnn_bwd"}
    ms, kernels = {}, []
    for p in args[1:]:
        for r in rows(p):
            if r["ms"] in ("nan", ""):
                continue
            ms[(r["kernel"], key(r))] = float(r["ms"])
            if r["kernel"] not in kernels:
                kernels.append(r["kernel"])
    shapes = sorted({k for (_, k) in ms})
    print("cuDNN backward ms / kernel ms (SDPA in the same call); d causal N")
    print("%-20s" % "kernel" + "".join("%10s" % ("%d/%d/%dk" % (d, c, n // 1024)) for d, c, n, _, _ in shapes))
    for k in kernels:
        cells = []
        for s in shapes:
            cells.append("%10.3f" % (cudnn[s] / ms[(k, s)]) if (k, s) in ms and s in cudnn else "%10s" % "-")
        print("%-20s" % k + "".join(cells))
    print("cuDNN ms" + " " * 12 + "".join("%10.3f" % cudnn.get(s, float("nan")) for s in shapes))
    for pair in det.split(","):
        a, b = pair.split(":")
        if not any((a, s) in ms for s in shapes):
            continue
        cells = ["%10.3f" % (ms[(b, s)] / ms[(a, s)]) if (a, s) in ms and (b, s) in ms else "%10s" % "-" for s in shapes]
        print("%-20s" % (a + "/fast") + "".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
