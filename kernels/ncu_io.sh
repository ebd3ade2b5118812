#!/bin/sh
# ncu_io.sh -- measured HBM (DRAM) and L2<->SM bytes of each fasim kernel with Nsight Compute.
#   sh kernels/ncu_io.sh FABENCH OUTDIR [N] [d list] [causal list]
# For each shape (hidden 2048, B * N = 16k tokens; defaults N = 4096, d = 64 128, causal 0 1) it
# profiles one launch of v1, v2, the v3 variants, v4 and v5 (NCU_KERNELS overrides the list) (fabench --no-validate --reps 1 --warmup 0) and,
# one call of PyTorch SDPA's flash backend, with the clocks left alone
# (`--clock-control none`).  Metrics:
#   dram__bytes_read.sum, dram__bytes_write.sum       HBM traffic
#   lts__t_bytes.sum                                   all L2 traffic (every source)
#   lts__t_sectors_srcunit_tex_op_read/write.sum       L2 sectors (32 B) requested by the SMs' L1TEX
#   l1tex__m_xbar2l1tex_read_bytes.sum                 bytes L2 -> SM over the crossbar
#   l1tex__m_l1tex2xbar_write_bytes.sum                bytes SM -> L2
#   gpu__time_duration.sum                             kernel time under the profiler
# Writes OUTDIR/ncu_raw_*.csv (ncu --csv --page raw) and OUTDIR/ncu_io.csv (one row per kernel).
set -u
FAB=${1:?usage: ncu_io.sh FABENCH OUTDIR [N] [d list] [causal list]}
OUT=${2:?usage: ncu_io.sh FABENCH OUTDIR [N] [d list] [causal list]}
N=${3:-4096}
DS=${4:-"64 128"}
CS=${5:-"0 1"}
mkdir -p "$OUT"
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__m_xbar2l1tex_read_bytes.sum,l1tex__m_l1tex2xbar_write_bytes.sum,gpu__time_duration.sum
NCU="ncu --clock-control none --csv --page raw --metrics $M"
B=$((16384 / N))
for d in $DS; do
  H=$((2048 / d))
  for c in $CS; do
    for k in ${NCU_KERNELS:-v1 v2 v3 v3_mt2 v3_mt2_bc32 v3_br256 v4 v4_bc64 v5}; do
      f="$OUT/ncu_raw_${k}_N${N}_d${d}_c${c}.csv"
      $NCU --kernel-name regex:fa_v._fwd_kernel "$FAB" --shape $B,$H,$H,$N,$N,$d,$c \
          --kernels $k --no-validate --reps 1 --warmup 0 >"$f" 2>"$f.log" \
        || echo "ncu_io: ncu failed for $k N $N d $d causal $c (see $f.log)" >&2
    done
    if python3 -c "import torch" 2>/dev/null; then
      f="$OUT/ncu_raw_sdpa_flash_N${N}_d${d}_c${c}.csv"
      $NCU --kernel-name regex:flash --launch-skip 3 --launch-count 1 python3 -c "
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q,k,v=(torch.randn($B,$H,$N,$d,device='cuda',dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    for _ in range(4): F.scaled_dot_product_attention(q,k,v,is_causal=bool($c))
torch.cuda.synchronize()" >"$f" 2>"$f.log" || echo "ncu_io: ncu failed for sdpa_flash (see $f.log)" >&2
    fi
  done
done
python3 - "$OUT" <<'PY'
import csv, glob, os, re, sys
out = sys.argv[1]
cols = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
        "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
        "l1tex__m_xbar2l1tex_read_bytes.sum", "l1tex__m_l1tex2xbar_write_bytes.sum",
        "gpu__time_duration.sum"]
scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12, "sector": 1, "ns": 1e-6, "us": 1e-3, "ms": 1, "s": 1e3,
         "nsecond": 1e-6, "usecond": 1e-3, "msecond": 1, "second": 1e3}
rows = []
for fn in sorted(glob.glob(os.path.join(out, "ncu_raw_*.csv"))):
    m = re.match(r"ncu_raw_(.+)_N(\d+)_d(\d+)_c(\d)\.csv", os.path.basename(fn))
    if not m:
        continue
    lines = [l for l in open(fn) if l.startswith('"')]
    if len(lines) < 3:
        continue
    rd = list(csv.reader(lines))
    head, units, data = rd[0], rd[1], rd[2:]
    for r in data:
        rec = {"kernel": m.group(1), "N": m.group(2), "d": m.group(3), "causal": m.group(4),
               "ncu_kernel": r[head.index("Kernel Name")][:60] if "Kernel Name" in head else ""}
        for c in cols:
            if c in head:
                i = head.index(c)
                try:
                    v = float(r[i].replace(",", "")) * scale.get(units[i], 1)
                except ValueError:
                    v = float("nan")
                rec[c] = v
        rows.append(rec)
with open(os.path.join(out, "ncu_io.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["kernel", "N", "d", "causal", "ncu_kernel", "dram_read_bytes", "dram_write_bytes",
                "l2_total_bytes", "l2_tex_read_bytes", "l2_tex_write_bytes", "xbar2l1_read_bytes",
                "l12xbar_write_bytes", "time_ms"])
    for r in rows:
        def g(c, mul=1):
            v = r.get(c)
            return "" if v is None else f"{v * mul:.6g}"
        w.writerow([r["kernel"], r["N"], r["d"], r["causal"], r["ncu_kernel"],
                    g(cols[0]), g(cols[1]), g(cols[2]), g(cols[3], 32), g(cols[4], 32),
                    g(cols[5]), g(cols[6]), g(cols[7])])
print(open(os.path.join(out, "ncu_io.csv")).read())
PY
