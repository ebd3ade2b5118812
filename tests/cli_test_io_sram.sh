# cli_test_io_sram.sh -- `fasim io --sram`: the limit of 1 TiB (2^64 - 1 used to pass and print a
# Theta bound of 1e-9 B), and the suffixes the error names.  Sourced by tests/cli_test.sh
# (tests/cli_lib.sh: pass, fail, expect_msg; $T, $FASIM).
expect_msg "--sram 2^64 - 1: the limit of 1 TiB named" "above the limit of 1 TiB" -- io --sram 18446744073709551615
"$FASIM" io --sram 64K --algo flash2 --seqlen 256 >/dev/null 2>&1 && pass "--sram 64K (K = KiB) accepted" || fail "--sram 64K refused"
expect_msg "--sram 1TiB: unknown suffix, the message lists K and M" "KiB or K, MiB or M" -- io --sram 1TiB
