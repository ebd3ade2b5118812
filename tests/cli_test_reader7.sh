# cli_test_reader7.sh -- the seventh reader's list: refusals that name the value and the limit
# (--window, a .hw file's sms, --sram's fractions, --rescale-threshold with --decode), the
# tutorial's prose against its outputs, Theorem 2's range, the legends of io --decode and the
# report, the plots' keys and lines.  Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail,
# expect_msg, oneline; $T, $FASIM).

R7_ROOT="$(dirname "$0")/.."
R7_M="$R7_ROOT/analysis/models"

# ---- 10: --rescale-threshold with --decode or --cu-seqlens is refused, as --softcap is ----
expect_msg "reader7: --rescale-threshold with --decode refused" \
    "--rescale-threshold is not modelled with --decode (its kernel is FlashAttention-2's split-KV one" \
    -- io --decode --kv-len 1024 --rescale-threshold 3
expect_msg "reader7: --rescale-threshold with --cu-seqlens refused" "--rescale-threshold is not modelled with --cu-seqlens" \
    -- io --cu-seqlens 0,512,1024 --rescale-threshold 3

# ---- 12: the refusals name the value and the limit ----
expect_msg -x "reader7: --window side over INT32_MAX names the limit" \
    "--window '2000000000000,0': LEFT = 2000000000000 exceeds 2147483647 (the largest window side taken)" \
    -- io --window 2000000000000,0
expect_msg "reader7: --window right side over INT32_MAX" "RIGHT = 3000000000 exceeds 2147483647" -- io --window 0,3000000000
expect_msg "reader7: --sram 1.5KiB: fractions are not taken" \
    "byte size '1.5KiB' has a fraction: fractions are not taken, the value must be a whole number of bytes" -- io --sram 1.5KiB
mkdir -p "$T/r7hw"
sed 's/^sms *=.*/sms = -5/' "$R7_ROOT/sim/hw/h200-sxm.hw" > "$T/r7hw/h200-sxm.hw"
hw_dir_save; export FASIM_HW_DIR="$T/r7hw"
expect_msg "reader7: sms = -5 in a .hw file names the range 1 to 1024" "sms = '-5' is negative: it must lie in 1 to 1024" -- io --hw h200
hw_dir_restore

# ---- 13: size suffixes: K and KiB are 1024, KB 1000 (as --help and the README say) ----
r7_k=$("$FASIM" io --sram 100K --format csv 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } NR == 2 { print $c["sram_bytes"] }')
r7_kb=$("$FASIM" io --sram 100KB --format csv 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } NR == 2 { print $c["sram_bytes"] }')
"$FASIM" io --help > "$T/r7_help" 2>&1
[ "$r7_k" = 102400 ] && [ "$r7_kb" = 100000 ] && grep -q "K = KiB = 1024, M = MiB, GiB binary; KB = 1000," "$T/r7_help" \
    && grep -qF '`100K` = 102400 and `100KB` = 100000' "$R7_ROOT/README.md" \
    && pass "reader7: --sram 100K = 102400 B, 100KB = 100000 B, as --help and the README say" \
    || fail "reader7: size suffixes: 100K '$r7_k', 100KB '$r7_kb'"
