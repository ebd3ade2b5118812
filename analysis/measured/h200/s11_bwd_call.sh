#!/bin/bash
# s11_bwd_call.sh -- the eleventh session's first device call for issue 16 (a margin over cuDNN's
# backward at d = 128 without a mask): fabench built here (make BUILD=build-bwd gpu) and carried as
# build-bwd/carry/fb.tgz with this script and bwd_ratios.py in build-bwd/carry/. One call:
# fabench --check --bwd of v5_bwd (the old default, CFG V5B_CUTS) and the candidates v5_bwd_qrot
# (V5B_QROT), v5_bwd_dq2 (V5B_LDTMA | V5B_DQ2), v5_bwd_dq2_det, v5_bwd_qd (all three);
# compute-sanitizer memcheck, racecheck, synccheck of v5_bwd_qd and v5_bwd_dq2_det on
# (1, 2, 1, 300, 203, 128, 0); the backward sweep (bf16, hidden 2048, N 2k..16k, causal 0, 1) of
# K128 / K64 at d = 128 and 64; SDPA flash and cuDNN backward; the ratio table; Nsight Compute
# (stall reasons per issued instruction, speed of light) of v5_bwd, v5_bwd_qrot, v5_bwd_qd and
# cuDNN's backward at d = 128, N = 8192, B 2, H 16, non-causal.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
C=build-bwd/carry
t0=$(date +%s)
LOG="$OUT/log.txt"
stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$LOG"; }
tar xzf $C/fb.tgz || exit 1
F=./build-bwd/gpu/fabench
NS=${NS:-2048,4096,8192,16384}
K128=${K128:-v5_bwd,v5_bwd_qrot,v5_bwd_dq2,v5_bwd_qd,v5_bwd_det,v5_bwd_dq2_det}
K64=${K64:-v5_bwd,v5_bwd_qrot,v5_bwd_qd,v5_bwd_det,v5_bwd_dq2_det}
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >>"$LOG" 2>&1
CHK="$OUT/check.txt"
timeout 90 $F --check --bwd --no-time --bwd-kernels ${CHK_K:-v5_bwd,v5_bwd_qrot,v5_bwd_dq2,v5_bwd_dq2_det,v5_bwd_qd} >"$CHK" 2>&1; r=$?
stamp "check exit $r, $(grep -c PASS "$CHK") PASS, $(grep -c FAIL "$CHK") FAIL, $(grep -cw yes "$CHK") yes, $(grep -cw NO "$CHK") NO"
[ $r -eq 124 ] && { stamp "check hung: stop"; exit 1; }
for k in ${SAN_K:-v5_bwd_qd v5_bwd_dq2_det}; do
  for tool in memcheck racecheck synccheck; do
    echo "== $tool $k" >>"$CHK"
    timeout 30 compute-sanitizer --tool $tool --error-exitcode 3 $F --bwd --shape ${SAN_SHAPE:-1,2,1,300,203,128,0} --bwd-kernels $k --no-time >>"$CHK" 2>&1
    stamp "$tool $k exit $?"
  done
done
timeout ${SWEEP_S:-150} $F --sweep --bwd --bwd-kernels $K128 --d 128 --n $NS --csv "$OUT/sweep128.csv" >>"$LOG" 2>&1; stamp "sweep128 rc $?"
timeout ${SWEEP_S:-150} $F --sweep --bwd --bwd-kernels $K64 --d 64 --n $NS --csv "$OUT/sweep64.csv" >>"$LOG" 2>&1; stamp "sweep64 rc $?"
env PYTHONUNBUFFERED=1 timeout ${SDPA_S:-90} python3 kernels/compare_sdpa.py --bwd --n $NS --csv "$OUT/sdpa.csv" >>"$LOG" 2>&1; stamp "sdpa rc $?"
python3 $C/bwd_ratios.py "$OUT/sdpa.csv" "$OUT/sweep128.csv" "$OUT/sweep64.csv" --det v5_bwd_det:v5_bwd,v5_bwd_dq2_det:v5_bwd_dq2 | tee "$OUT/ratios.txt"
if [ "${NCU:-1}" = 1 ]; then
  mkdir -p "$OUT/n"
  N="ncu --clock-control none --csv --page raw --section WarpStateStats --section SpeedOfLight --metrics lts__t_sectors_op_red.sum,smsp__inst_executed.sum"
  timeout 20 ncu --query-metrics 2>/dev/null | grep -i "gmma\|op_red" >"$OUT/n/ncu_metrics_gmma_red.txt"
  for k in ${NCU_K:-v5_bwd v5_bwd_qrot}; do
    timeout 40 $N --kernel-name regex:fa_v5_bwd_kernel $F --bwd --shape 2,16,16,8192,8192,128,0 --bwd-kernels $k --no-validate --reps 1 --warmup 0 \
      >"$OUT/n/ncu_$k.csv" 2>>"$OUT/n/ncu_log.txt"; stamp "ncu $k rc $?"
  done
  timeout 60 $N --kernel-name regex:bprop --launch-skip 1 --launch-count 1 python3 kernels/sdpa_fwdbwd.py --shape 2,16,8192,128 \
    --backend CUDNN_ATTENTION --iters 2 >"$OUT/n/ncu_cudnn.csv" 2>>"$OUT/n/ncu_log.txt"; stamp "ncu cudnn rc $?"
  tar czf "$OUT/ncu.tgz" -C "$OUT/n" . && rm -rf "$OUT/n"
fi
stamp end
