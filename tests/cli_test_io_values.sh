# cli_test_io_values.sh -- the option values of `fasim io`: integers and byte sizes refuse blanks
# as they refuse '+', naming the value; --algo 'all' inside a list; --gqa and --kv-len name the
# value they miss; the --dtype spellings; a shape whose closed forms overflow names the shape;
# --heads or --kv-heads alone on a model.  Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass,
# fail, expect_exit, expect_msg; $T, $FASIM).

# ---- integers and byte sizes: no blanks, no '+', the value named ----
expect_msg -p "--seqlen ' 12' (leading blank) refused" "--seqlen = ' 12' must be an integer in [1, 2147483647] (digits only: no blanks)" \
    -- io --seqlen " 12"
expect_msg -p "--seqlen '12 ' (trailing blank) refused" "--seqlen = '12 '" -- io --seqlen "12 "
expect_msg -p "--seqlen TAB12 refused" "no blanks" -- io --seqlen "	12"
expect_msg -p "--seqlen +12 still refused" "--seqlen = '+12' must be an integer" -- io --seqlen +12
expect_msg -p "--kv-len ' 64' refused" "--kv-len = ' 64'" -- io --decode --kv-len " 64"
expect_msg -p "--doc-mask '32, 32' refused" "--doc-mask = ' 32'" -- io --seqlen 64 --doc-mask "32, 32"
expect_msg -p "--sram ' 64KiB' refused" "byte size ' 64KiB' has a blank" -- io --sram " 64KiB"
expect_msg -p "--sram '64KiB ' refused" "byte size '64KiB ' has a blank" -- io --sram "64KiB "
expect_msg -p "--sram '64 KiB' refused" "byte size '64 KiB' has a blank" -- io --sram "64 KiB"
expect_msg -p "--window ' 8,0' refused" "--window ' 8,0'" -- io --window " 8,0"
expect_msg -p "--window +8,0 refused" "--window '+8,0'" -- io --window +8,0
expect_msg -p "--scale ' 0.5' refused" "--scale = ' 0.5' is not a positive finite number" -- io --scale " 0.5"
for v in 0x1p-3 0X.8 inf nan; do   # one rule for real numbers: decimal only (as hardware profiles and CSVs)
    expect_msg "--scale $v refused (decimal only)" "--scale = '$v' is not a positive finite number" -- io --scale "$v"
done
expect_msg "--dropout 0x1p-3 refused (decimal only)" "--dropout '0x1p-3' must be a probability" -- io --dropout 0x1p-3
"$FASIM" io --seqlen 12 --sram 64KiB --window 8,0 --algo flash2 >/dev/null 2>"$T/err" \
    && pass "plain values still accepted" || fail "plain values: $(cat "$T/err")"

# ---- --algo: 'all' stands alone ----
expect_msg "io --algo flash2,all: all stands alone" "'all' stands alone" -- io --algo flash2,all

# ---- --gqa needs a value, and says which ----
expect_msg -x "--gqa followed by an option: names the missing value and the allowed ones" \
    "--gqa needs a value: per-head, packed or both (got the option '--kv-heads')" -- io --decode --kv-len 4096 --gqa --kv-heads 8
expect_msg -x "--gqa at the end: message" "--gqa needs a value: per-head, packed or both" -- io --decode --kv-len 4096 --gqa
expect_exit 2 "--gqa bad value" -- io --decode --kv-len 4096 --gqa fast
expect_msg "--kv-len followed by an option: missing value named" "--kv-len needs a value (got the option '--gqa')" \
    -- io --decode --kv-len --gqa both
expect_exit 0 "--gqa packed" -- io --decode --kv-len 4096 --heads 32 --kv-heads 8 --gqa packed

# ---- --dtype: the fp8 spellings; a bad one lists the dtypes ----
for t in fp8 e4m3 fp8_e4m3 e5m2 fp8_e5m2; do
    "$FASIM" io --dtype $t --algo flash2 --format csv >/dev/null 2>&1 && pass "io --dtype $t" || fail "io --dtype $t"
done
expect_msg "io --dtype fp4: the dtypes listed" "fp8_e4m3, fp8_e5m2" -- io --dtype fp4

# ---- an overflow of the closed forms names the shape and the options to reduce ----
expect_msg "io --seqlen 2147483647: closed forms beyond 64 bits, the shape named" \
    "standard's closed-form matmul FLOPs exceed 64 bits for B = 1, H = 1, N_q = 2147483647, N_k = 2147483647, d = 64: at these B, H, d they fit up to N = 268435455 (use a smaller --seqlen" -- io --seqlen 2147483647

# ---- --heads alone on an MHA model keeps it MHA; on a GQA model the kv heads stay ----
"$FASIM" io --model analysis/models/gpt2-medium.json --heads 4 --algo flash2 2>"$T/err" | grep -q "H=4 H_kv=4 " \
    && pass "--heads 4 on GPT-2 (MHA) sets H_kv = 4" || fail "--heads on an MHA model: $(cat "$T/err")"
"$FASIM" io --model analysis/models/llama-3-8b.json --kv-heads 4 --algo flash2 2>"$T/err" | grep -q "H=32 H_kv=4 " \
    && pass "--kv-heads 4 on Llama-3 keeps H = 32" || fail "--kv-heads on a GQA model: $(cat "$T/err")"
