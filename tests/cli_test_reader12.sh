# cli_test_reader12.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg; $T, $FASIM).
# The twelfth fresh reading (issue 18): --kernel-profile refuses a kernel no row has and a second
# --kernel-profile; compare's profile column is as wide as the longest key; the Θ keys print three
# significant digits with their zeros; the report's cuDNN tile note covers d = 192; the docs say how.
R12_ROOT=$(dirname "$0")/..
R12_H200=$R12_ROOT/analysis/measured/h200
expect_msg "reader12: --kernel-profile names a kernel no row has" \
    "--kernel-profile: kernel 'v5bwd' names no row of $R12_H200/v5_bwd_sweep.csv (its kernels: v3_bwd,v5_bwd,v5_bwd_det,v5_bwd_atomic,v5_bwd_pers)" -- \
    compare --measured "$R12_H200/v5_bwd_sweep.csv" --kernel-profile v5_bwd=v5_bwd_cfg0,v5bwd=v5_bwd_cfg0
expect_msg "reader12: --kernel-profile twice" "--kernel-profile given twice (give the pairs in one, comma-separated)" -- \
    compare --measured "$R12_H200/v5_bwd_sweep.csv" --kernel-profile v5_bwd=v5_bwd_cfg0 --kernel-profile v5_bwd_det=v5_bwd_cfg0
"$FASIM" compare --help > "$T/r12_h" 2>&1
grep -q "v5_bwd_det=v5_bwd_cfg0 -- a KEY_det row is its own kernel" "$T/r12_h" \
    && grep -q "and \`fasim compare\`'s \`--kernel-profile\`, refused twice" "$R12_ROOT/README.md" \
    && pass "reader12: compare --help gives both pairs (a _det row is its own kernel); README lists the repeated-option exception" \
    || fail "reader12: --kernel-profile's help / README"
# every row's B_r starts where the header's does (v5_bwd_atomic, 13 characters, the longest key)
"$FASIM" compare --measured "$R12_H200/v5_bwd_sweep.csv" --hw h200 > "$T/r12_c" 2>&1
[ "$(awk 'NR == 2 { print index($0, "B_r") } $1 == "v5_bwd_atomic" { print index($0, "  128  128") + 2; exit }' "$T/r12_c" | sort -u | wc -l)" -eq 1 ] \
    && pass "reader12: compare's B_r column lines up under its header on the v5_bwd_atomic rows" \
    || fail "reader12: compare's columns: $(sed -n 2p "$T/r12_c" | cut -c1-90) / $(grep -m1 '^v5_bwd_atomic' "$T/r12_c" | cut -c1-90)"
# the Θ keys: %#.3g (6.995 -> 7.00, 10.96 -> 11.0), no bare %.3g left in the script
if command -v gnuplot >/dev/null 2>&1; then
    r12_g=$(echo 'print sprintf("%#.3g %#.3g", 6.995, 10.96)' | gnuplot 2>&1)
    [ "$r12_g" = "7.00 11.0" ] && ! grep -q '%\.3g' "$R12_ROOT/plots/hbm_vs_n.gp" && grep -q '%#\.3g' "$R12_ROOT/plots/hbm_vs_n.gp" \
        && pass "reader12: hbm_vs_n's keys keep three significant digits (7.00, 11.0)" \
        || fail "reader12: hbm_vs_n's key format: '$r12_g'"
fi
"$FASIM" report --no-plots --out-dir "$T/r12_rep" > "$T/r12_r" 2>&1
grep -q "128 x 64 at$" "$T/r12_r" && grep -q "^ 128 < d <= 256: DeepSeek's d = 192 and d = 256), where FlashAttention-3" "$T/r12_r" \
    && pass "reader12: the report's cuDNN tile note covers d = 192 (DeepSeek) and 256" \
    || fail "reader12: cuDNN tile note: $(grep -A1 '128 x 64 at' "$T/r12_r" | head -2 | tr '\n' '|')"
