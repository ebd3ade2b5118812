# cli_test_dash.sh -- '-' as an output path is refused (exit 2) instead of creating a file named
# '-' in the working directory; /dev/stdout prints.  Sourced by cli_test.sh (pass, fail,
# expect_exit, $T, $FASIM).
FASIM_ABS=$(cd "$(dirname "$FASIM")" && pwd)/$(basename "$FASIM")
(cd "$T" && "$FASIM_ABS" io --trace - --algo flash2 --seqlen 64 >/dev/null 2>"$T/err"); rc=$?
[ $rc = 2 ] && grep -q "'-' is not an output path" "$T/err" && pass "io --trace - refused (exit 2)" \
    || fail "io --trace -: exit $rc, $(cat "$T/err")"
(cd "$T" && "$FASIM_ABS" sweep --vary seqlen=64,128 --out - >/dev/null 2>"$T/err"); rc=$?
[ $rc = 2 ] && pass "sweep --out - refused (exit 2)" || fail "sweep --out -: exit $rc"
[ ! -e "$T/-" ] && pass "no file named '-' left behind" || fail "a file named '-' was created"
nq=$("$FASIM" io --trace /dev/stdout --algo flash2 --seqlen 32 2>/dev/null | grep -c '^[0-9]*,Q,read,')
[ "$nq" -ge 1 ] && pass "io --trace /dev/stdout prints the trace" || fail "io --trace /dev/stdout printed no Q read"
