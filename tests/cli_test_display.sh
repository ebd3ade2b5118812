# cli_test_display.sh -- numbers as printed: compare without the L2 model shows no blocks per SM
# ('-', not 0) and a tiny time in significant digits (not 0.000).  Sourced by cli_test.sh
# (pass, fail, $T, $FASIM).
printf 'kernel,B,H,N,d,ms\nv3,1,1,64,64,0.0000005\n' > "$T/tiny.csv"
"$FASIM" compare --measured "$T/tiny.csv" --no-l2 >"$T/out" 2>"$T/err" || fail "compare tiny --no-l2: $(cat "$T/err")"
sed -n 3p "$T/out" | grep -q " 64   64    - |" && pass "compare --no-l2: b/SM '-'" || fail "compare --no-l2 row: $(sed -n 3p "$T/out")"
sed -n 3p "$T/out" | grep -q "5e-07" && pass "compare: a time below 1 us in significant digits" || fail "compare tiny time: $(sed -n 3p "$T/out")"
"$FASIM" compare --measured "$T/tiny.csv" --no-l2 --format csv 2>/dev/null | tail -1 | cut -d, -f20 | grep -qx '' \
    && pass "compare --no-l2 csv: blocks_per_sm empty" || fail "compare --no-l2 csv row"
# sweep JSON: the varied whole number stays an integer
"$FASIM" sweep --vary seqlen=256,512 --format json 2>/dev/null | grep -q '"seqlen": 256,' \
    && pass "sweep json: varied seqlen is an integer" || fail "sweep json varied value not an integer"
