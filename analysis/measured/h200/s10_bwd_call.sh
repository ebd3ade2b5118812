#!/bin/bash
# s10_bwd_call.sh -- the tenth session's device call for issue 16 (v5 backward at or above cuDNN):
# fabench built here (make BUILD=build-bwd gpu) and carried as build-bwd/carry/fb.tgz with this
# script and the kernels/ scripts it runs (run_bwd128.sh, run_issue_ncu.sh, bwd_ratios.py) in
# build-bwd/carry/. One call: fabench --check --bwd of v5_bwd (the default, CFG V5B_CUTS),
# v5_bwd_det, _atomic, _pers (and fp16 v5_bwd); compute-sanitizer memcheck, racecheck, synccheck
# of v5_bwd on (1, 2, 1, 203, 113, 128, causal); the backward sweep (bf16, hidden 2048, N 2k..16k,
# causal 0, 1) of v5_bwd, v5_bwd_det and v5_bwd_lean (the ninth session's CFG 48) at d = 128 and
# 64, SDPA flash and cuDNN backward, the ratio table; Nsight Compute's instruction counts of
# v5_bwd at d = 64, 128 (run_issue_ncu.sh, ISSUE_ONLY_EXTRA=1); cuobjdump -sass of the default and
# lean kernels (bf16, not deterministic) into extra.tgz with the ncu log.
set -u
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
C=build-bwd/carry
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$OUT/log.txt"; }
tar xzf $C/fb.tgz || exit 1
export FAB=./build-bwd/gpu/fabench
CHECK_S=70 CHK=v5_bwd,v5_bwd_det,v5_bwd_atomic,v5_bwd_pers SAN_SHAPES="1,2,1,203,113,128,1" SAN_KERNELS="v5_bwd" \
  SAN_S=25 K128=v5_bwd,v5_bwd_det,v5_bwd_lean K64=v5_bwd,v5_bwd_det,v5_bwd_lean SWEEP_S=70 SDPA_S=90 \
  RATIOS=$C/bwd_ratios.py bash $C/run_bwd128.sh
stamp "run_bwd128 rc $?"
ISSUE_ONLY_EXTRA=1 timeout 80 bash $C/run_issue_ncu.sh
stamp "run_issue_ncu rc $?"
mkdir -p "$OUT/x"
for k in "128ELi64" "64ELi128"; do
  for cfg in 496 48; do
    fn="_Z16fa_v5_bwd_kernelILi${k}ELb0ELb1ELi${cfg}E13__nv_bfloat16Ev7V5BMapsPKfS3_PfPiPT4_S7_12fa_gpu_shapef"
    timeout 30 cuobjdump -sass -fun "$fn" $FAB >"$OUT/x/sass_${k%%E*}_cfg$cfg.txt" 2>&1
  done
done
stamp "sass done"
mv "$OUT/issue_ncu_log.txt" "$OUT/x/" 2>/dev/null
tar czf "$OUT/extra.tgz" -C "$OUT/x" . && rm -rf "$OUT/x"
stamp "end"
