#!/bin/bash
# s11_final_call.sh -- the eleventh session's last device call (issue 16): the merged main's fabench
# (make gpu; carried as build/carry_fb/fb.tgz) with its v5_bwd default (d = 128: V5B_CUTS | V5B_LDTMA |
# V5B_DQ2; d = 64: V5B_CUTS): fabench --check --bwd of v5_bwd and v5_bwd_det, compute-sanitizer
# racecheck and synccheck of v5_bwd at (1, 2, 1, 300, 203, 128, 0); then kernels/run_bwd_final.sh (the
# sweep of v5_bwd, v5_bwd_det at d = 128 and 64 and SDPA's backward in one call, the ratios) and
# kernels/run_bwd_repeat.sh with REPS=2 at d = 128, N = 4k, 8k, 16k (the shapes at the edge of the bar).
#   bash analysis/measured/h200/s11_final_call.sh     (writes under $OUT)
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
tar xzf build/carry_fb/fb.tgz || exit 1
F=./build/gpu/fabench
LOG="$OUT/final_log.txt"
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$LOG"; }
CHK="$OUT/final_check.txt"
timeout 90 $F --check --bwd --no-time --bwd-kernels v5_bwd,v5_bwd_det > "$CHK" 2>&1; r=$?
stamp "check exit $r, $(grep -c PASS "$CHK") PASS, $(grep -c FAIL "$CHK") FAIL, $(grep -cw yes "$CHK") yes, $(grep -cw NO "$CHK") NO"
[ $r -eq 124 ] && exit 1
for tool in racecheck synccheck; do
  echo "== $tool v5_bwd" >> "$CHK"
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 3 $F --bwd --shape 1,2,1,300,203,128,0 --bwd-kernels v5_bwd --no-time >> "$CHK" 2>&1
  stamp "$tool v5_bwd exit $?"
done
mkdir -p "$OUT/a" "$OUT/b"
OUT="$OUT/a" FAB=$F SWEEP_S=90 bash kernels/run_bwd_final.sh >> "$LOG" 2>&1; stamp "final rc $?"
OUT="$OUT/b" FAB=$F REPS=2 bash kernels/run_bwd_repeat.sh >> "$LOG" 2>&1; stamp "repeat rc $?"
cat "$OUT/a/ratios.txt" "$OUT/b/ratios1.txt" "$OUT/b/ratios2.txt" >> "$LOG" 2>/dev/null
tar czf "$OUT/final_files.tgz" -C "$OUT" a b && rm -rf "$OUT/a" "$OUT/b"
