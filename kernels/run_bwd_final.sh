#!/bin/bash
# run_bwd_final.sh -- issue 16's table of the default backward kernels in one short call: fabench's
# backward sweep of v5_bwd and v5_bwd_det at d = 128 and 64 (hidden 2048, N = 2k..16k, causal 0/1,
# each row validated against v3_bwd_det), SDPA's flash and cuDNN backward in the same call, the ratios.
#   FAB=path/to/fabench bash kernels/run_bwd_final.sh      (writes under $OUT: sweep128.csv,
#   sweep64.csv, sdpa.csv, ratios.txt, log.txt)
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
F=${FAB:-./build/gpu/fabench}
NS=${NS:-2048,4096,8192,16384}
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv; } > "$OUT/log.txt" 2>&1
timeout ${SWEEP_S:-75} $F --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 128 --n $NS --csv "$OUT/sweep128.csv" >> "$OUT/log.txt" 2>&1; echo "sweep128 rc $?" | tee -a "$OUT/log.txt"
timeout ${SWEEP_S:-75} $F --sweep --bwd --bwd-kernels v5_bwd,v5_bwd_det --d 64 --n $NS --csv "$OUT/sweep64.csv" >> "$OUT/log.txt" 2>&1; echo "sweep64 rc $?" | tee -a "$OUT/log.txt"
env PYTHONUNBUFFERED=1 timeout ${SDPA_S:-100} python3 kernels/compare_sdpa.py --bwd --n $NS --csv "$OUT/sdpa.csv" >> "$OUT/log.txt" 2>&1; echo "sdpa rc $?" | tee -a "$OUT/log.txt"
python3 kernels/bwd_ratios.py "$OUT/sdpa.csv" "$OUT/sweep128.csv" "$OUT/sweep64.csv" | tee "$OUT/ratios.txt"
