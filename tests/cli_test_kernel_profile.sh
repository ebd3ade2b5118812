# cli_test_kernel_profile.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg;
# $T, $FASIM).  compare --kernel-profile KERNEL=PROFILE: a file measured before a kernel changed is timed
# with the profile of the kernel it measured (v5_bwd_sweep.csv's v5_bwd rows are the build without the
# instruction cuts: v5_bwd_cfg0, whose counts are s9_issue.csv's).
KP_H200=$(dirname "$0")/../analysis/measured/h200
"$FASIM" compare --measured "$KP_H200/v5_bwd_sweep.csv" --hw h200 --format csv > "$T/kp_new.csv" 2>&1
"$FASIM" compare --measured "$KP_H200/v5_bwd_sweep.csv" --hw h200 --format csv \
    --kernel-profile v5_bwd=v5_bwd_cfg0,v5_bwd_det=v5_bwd_cfg0 > "$T/kp_old.csv" 2>&1
kp_stat() { # min / median / max of pred/meas of kernel $2 at d = 64 in CSV $1 (8 rows)
    awk -F, -v K="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == K && $c["d"] == 64 { print $c["pred_ms"] / $c["meas_ms"] }' "$1" |
        sort -n | awk '{ v[NR] = $1 } END { printf "%.2f / %.2f / %.2f", v[1], (v[4] + v[5]) / 2, v[NR] }'
}
kp_prof() { awk -F, -v K="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == K { print $c["profile"]; exit }' "$1"; }
[ "$(kp_stat "$T/kp_old.csv" v5_bwd)" = "1.02 / 1.04 / 1.06" ] && [ "$(kp_stat "$T/kp_new.csv" v5_bwd)" = "0.84 / 0.88 / 0.89" ] \
    && [ "$(kp_prof "$T/kp_old.csv" v5_bwd)" = "v5_bwd_cfg0" ] && [ "$(kp_prof "$T/kp_old.csv" v5_bwd_det)" = "v5_bwd_cfg0" ] \
    && [ "$(kp_prof "$T/kp_new.csv" v5_bwd)" = "v5_bwd" ] && [ "$(kp_prof "$T/kp_old.csv" v5_bwd_pers)" = "v5_bwd_pers" ] \
    && pass "compare --kernel-profile: v5_bwd_sweep.csv's v5_bwd rows with v5_bwd_cfg0 (1.02 / 1.04 / 1.06 at d = 64), the others unchanged" \
    || fail "compare --kernel-profile: '$(kp_stat "$T/kp_old.csv" v5_bwd)' '$(kp_stat "$T/kp_new.csv" v5_bwd)' '$(kp_prof "$T/kp_old.csv" v5_bwd)'"
"$FASIM" compare --measured "$KP_H200/v5_bwd_sweep.csv" --hw h200 --kernel-profile v5_bwd=v5_bwd_cfg0,v5_bwd_det=v5_bwd_cfg0 2>&1 |
    grep -q "^time               80 rows:   79 within 15 %" \
    && pass "compare --kernel-profile: 79 of v5_bwd_sweep.csv's 80 rows within 15 % with the kernel it measured" \
    || fail "compare --kernel-profile: the summary line"
expect_msg "compare --kernel-profile: an unknown profile is named" "unknown kernel profile 'nope'" -- \
    compare --measured "$KP_H200/v5_bwd_sweep.csv" --kernel-profile v5_bwd=nope
expect_msg "compare --kernel-profile: no '='" "--kernel-profile wants KERNEL=PROFILE pairs separated by ',' (names of 1 to 63 characters), got 'v5_bwd'" -- \
    compare --measured "$KP_H200/v5_bwd_sweep.csv" --kernel-profile v5_bwd
expect_msg "compare --kernel-profile: a kernel twice" "--kernel-profile: kernel a given twice" -- \
    compare --measured "$KP_H200/v5_bwd_sweep.csv" --kernel-profile a=v3,a=v4
expect_msg "compare --kernel-profile: a trailing ','" "--kernel-profile: nothing after the last ','" -- \
    compare --measured "$KP_H200/v5_bwd_sweep.csv" --kernel-profile a=v3,
expect_msg "compare --kernel-profile: more than 8 kernels" "--kernel-profile: at most 8 kernels, got more (i)" -- \
    compare --measured "$KP_H200/v5_bwd_sweep.csv" --kernel-profile a=v3,b=v3,c=v3,d=v3,e=v3,f=v3,g=v3,h=v3,i=v3
