# cli_test_explain.sh -- `fasim explain`: 'all' inside an --algo list is refused (it stands
# alone).  Sourced by tests/cli_test.sh (tests/cli_lib.sh: expect_msg; $T, $FASIM); the
# derivation's numbers are checked in cli_test.sh, its tiles in cli_test_profile.sh.
expect_msg "explain --algo all,flash2: all stands alone" "'all' stands alone" -- explain --algo all,flash2
# issue 18: explicit tiles are given, not "limited by the fp32 S tile" (64 x 64 use 57,856 of 232,448 B)
if "$FASIM" explain --seqlen 1000 --block-r 64 --block-c 64 --causal >"$T/out" 2>"$T/err"; then
    ! grep -q "limited" "$T/out" && [ "$(grep -c "Here the tiles were given" "$T/out")" -eq 2 ] \
        && [ "$(grep -c "they need 57856 of M = 232448 B" "$T/out")" -eq 2 ] \
        && pass "explain: explicit tiles are said to be given, with the SRAM they need (flash1, flash2)" \
        || fail "explain explicit tiles: $(grep -A2 'Here' "$T/out")"
else
    fail "explain explicit tiles: $(cat "$T/err")"
fi
"$FASIM" explain --seqlen 1000 --algo flash2 --pass fwdbwd --blocks fit >"$T/out" 2>&1 && grep -q "Here B is limited by" "$T/out" \
    && pass "explain: --blocks fit's tiles are the ones M (the SRAM budget) limits" || fail "explain fit: $(grep -A2 'Here' "$T/out")"
# issue 20: FlashAttention-4's conditional rescaling, the count-only bound by hand: N = 1024, B_r = B_c = 128,
# T_r = T_c = 8: every tile, 64 steps, 8 a row block; causal: row block i visits i + 1 tiles, 36 in all, 4.5 a block
r1=$("$FASIM" explain --algo flash2 --seqlen 1024 --headdim 64 --block-r 128 --block-c 128 --rescale-threshold 8 2>&1)
r2=$("$FASIM" explain --algo flash2 --seqlen 1024 --headdim 64 --block-r 128 --block-c 128 --rescale-threshold 8 --causal 2>&1)
echo "$r1" | grep -q "rescales of O_i, l_i (threshold 8): 64 of 64 tile steps = 8.00 per row block" \
    && echo "$r2" | grep -q "rescales of O_i, l_i (threshold 8): 36 of 36 tile steps = 4.50 per row block" \
    && ! "$FASIM" explain --algo flash2 --seqlen 1024 2>&1 | grep -q "rescales of" \
    && pass "explain --rescale-threshold: the count-only rescales by hand (64 of 64; causal 36 of 36), none without the option" \
    || fail "explain rescales: $(echo "$r1" "$r2" | grep rescales)"
