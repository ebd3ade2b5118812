# cli_test_reader6.sh -- issue 18, the sixth fresh reader: options that are refused alike, a printed
# product that equals its total, singular nouns, the README's fp8 example as written.  Sourced by
# tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg; $T, $FASIM).

# ---- 1: --gqa both (the default value) is refused without --decode / --cu-seqlens, as per-head and packed ----
expect_msg "reader6: --gqa both without --decode refused like the other values" "--gqa needs --decode or --cu-seqlens" -- io --gqa both
expect_msg "reader6: --gqa packed without --decode refused" "--gqa needs --decode or --cu-seqlens" -- io --gqa packed

# ---- 3: explain's Theta line writes the B*H factor, so the product is the total printed ----
"$FASIM" explain --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200 > "$T/r6_th" 2>&1
grep -q "B\*H\*N_q\*N_k\*d^2\*e^2/M = 64\*4096\*4096\*128^2\*2^2/232448 = 302728972.4 B" "$T/r6_th" \
    && ! grep -q "(per head)" "$T/r6_th" \
    && pass "reader6: explain's Theta product 64*4096*4096*128^2*2^2/232448 = 302728972.4 B (B*H written out)" \
    || fail "reader6: Theta line: $(grep 'Theta bound' "$T/r6_th")"
# one head: no factor (4096*4096*128^2*2^2/232448 = 4730140 B)
"$FASIM" explain --algo flash2 --seqlen 4096 --headdim 128 --dtype bf16 --hw h200 > "$T/r6_th1" 2>&1
grep -q "B\*H\*N_q\*N_k\*d^2\*e^2/M = 4096\*4096\*128^2\*2^2/232448 = 4730140" "$T/r6_th1" \
    && pass "reader6: explain's Theta product for one head has no factor" || fail "reader6: Theta line, one head: $(grep 'Theta bound' "$T/r6_th1")"

# ---- 16: the --l2 line's thread block(s) agree in number ----
"$FASIM" io --l2 --profile paper > "$T/r6_l2" 2>&1
! grep -q " 1 thread blocks" "$T/r6_l2" && pass "reader6: --l2: no '1 thread blocks'" || fail "reader6: --l2 plural: $(grep 'thread block' "$T/r6_l2" | head -2)"

# ---- 8: the README's fp8 check example runs as written ----
grep -q -- "--fp8-quant block --hadamard --seqlen 1024 --headdim 128" "$(dirname "$0")/../README.md" \
    && "$FASIM" check --dtype fp8_e4m3 --inputs outliers --fp8-quant block --hadamard --seqlen 1024 --headdim 128 >/dev/null 2>&1 \
    && pass "reader6: the README's fp8 check example runs as written" || fail "reader6: README fp8 example does not run"

# ---- 2: --rescale-threshold (flash2's conditional rescaling) refused when --algo has no flash2 ----
expect_msg "reader6: --rescale-threshold with --algo flash1 refused" "--rescale-threshold applies to flash2 only" -- io --rescale-threshold 8 --algo flash1
expect_msg "reader6: --rescale-threshold with --algo standard refused" "--algo has no flash2" -- io --rescale-threshold 8 --algo standard
"$FASIM" io --rescale-threshold 8 --algo flash1,flash2 >/dev/null 2>&1 && pass "reader6: --rescale-threshold with flash2 among the algorithms runs" \
    || fail "reader6: --rescale-threshold --algo flash1,flash2 refused"

# ---- 20: judge's list of exercises ends without a blank before ')' ----
sh "$(dirname "$0")/../docs/exercises/judge.sh" 99 2>&1 | grep -q "one of: 01 [0-9 ]*09)$" \
    && pass "reader6: judge's exercise list ends at the last number" || fail "reader6: judge list: $(sh "$(dirname "$0")/../docs/exercises/judge.sh" 99 2>&1)"
