# cli_test_sram.sh -- --sram: the limit of 1 TiB (2^64 - 1 used to pass and print a Theta bound
# of 1e-9 B), and the suffixes the error names.  Sourced by cli_test.sh (pass, fail,
# expect_exit, $T, $FASIM).
expect_exit 2 "--sram 2^64 - 1" -- io --sram 18446744073709551615
grep -q "above the limit of 1 TiB" "$T/err" && pass "--sram over 1 TiB names the limit" || fail "--sram huge: $(cat "$T/err")"
"$FASIM" io --sram 64K --algo flash2 --seqlen 256 >/dev/null 2>&1 && pass "--sram 64K (K = KiB) accepted" || fail "--sram 64K refused"
expect_exit 2 "--sram 1TiB: unknown suffix" -- io --sram 1TiB
grep -q "KiB or K, MiB or M" "$T/err" && pass "the suffix message lists K and M" || fail "suffix message: $(cat "$T/err")"
