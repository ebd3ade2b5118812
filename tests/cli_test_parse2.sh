# cli_test_parse2.sh -- sourced by tests/cli_test.sh (helpers: pass, fail, expect_exit, $T, $FASIM).
# Messages that quote a file's content show a short printable excerpt (\xNN escapes, cut with
# "...") and name FILE:LINE:COLUMN; number options refuse blanks as they refuse '+'; errno texts
# that misled (/proc, a directory given as .npy); every error of a sweep point names the point,
# and a varied parameter is never also fixed.

# p2_msg NAME TEXT -- ARGS: expect_msg, and the message printable (no raw file bytes)
p2_msg() { em_printable=1; expect_msg "$@"; em_printable=0; }

# ---- 1. file content quoted: short, printable, FILE:LINE:COLUMN ----
printf '0,5\n9,\211PNG\000\001\033[2Jabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\n' > "$T/p2_cu.bin"
p2_msg "cu-seqlens binary file: FILE:LINE:COL, escaped" "--cu-seqlens: $T/p2_cu.bin:2:3: '\\x89PNG\\x00\\x01\\x1b[2Jabc" \
    -- io --cu-seqlens "$T/p2_cu.bin"
grep -qF "...' is not an integer in [0, 2147483647]" "$T/err" && [ "$(wc -c < "$T/err")" -lt 200 ] \
    && pass "cu-seqlens binary file: excerpt cut with ..." || fail "cu-seqlens excerpt: $(cat "$T/err")"
printf '0 4\n 99999999999\n' > "$T/p2_cu.txt"
p2_msg "cu-seqlens file: too large an offset at its line and column" "$T/p2_cu.txt:2:2: '99999999999' is not an integer" \
    -- io --cu-seqlens "$T/p2_cu.txt"
p2_msg "cu-seqlens list: an item still named as before" "--cu-seqlens = '99999999999' must be an integer" \
    -- io --cu-seqlens 0,99999999999
printf '0101\n01\303\2511\n0000\n1111\n' > "$T/p2_mask.txt"
p2_msg "mask: a non-ASCII byte escaped, with its column" "$T/p2_mask.txt:2:3: '\\xc3' is not 0 or 1" \
    -- io --mask "$T/p2_mask.txt" --seqlen 4 --algo flash2
printf '0101\n01\00011\n0000\n1111\n' > "$T/p2_mask0.txt"
p2_msg "mask: a NUL byte is refused (it ended the text silently)" "$T/p2_mask0.txt:2:3: a NUL byte ('\\x00')" \
    -- io --mask "$T/p2_mask0.txt" --seqlen 4 --algo flash2
printf '\001\002\003\004\005\006\007\010' > "$T/p2_mask.bin"
head -c 200 /dev/zero | tr '\000' '\377' >> "$T/p2_mask.bin"
p2_msg "block mask: a binary file, no raw bytes echoed" "$T/p2_mask.bin" -- io --block-mask "$T/p2_mask.bin" --seqlen 64
p2_msg "dense mask: a binary file, the first byte escaped" "$T/p2_mask.bin:1:1: '\\x01' is not 0 or 1" \
    -- io --mask "$T/p2_mask.bin" --seqlen 4 --algo flash2
mkdir -p "$T/p2_hw"
cp "$(dirname "$0")"/../sim/hw/*.hw "$T/p2_hw/"
printf '\211PNG\001\002 = \377\376\375 long value long value long value long value\n' >> "$T/p2_hw/h200-sxm.hw"
p2_hwdir=${FASIM_HW_DIR-}
p2_hwset=${FASIM_HW_DIR+set}
export FASIM_HW_DIR="$T/p2_hw"
p2_msg "hw profile: a binary key escaped" "unknown key '\\x89PNG\\x01\\x02'" -- io --hw h200
if [ "$p2_hwset" = set ]; then FASIM_HW_DIR=$p2_hwdir; else unset FASIM_HW_DIR; fi
printf '{"num_attention_heads": 12, "hidden_size": 768, "torch_dtype": "fl\\u0001oat"}' > "$T/p2_model.json"
p2_msg "model: torch_dtype escaped" "torch_dtype 'fl\\x01oat'" -- io --model "$T/p2_model.json"

# ---- 2. integers and byte sizes: no blanks, no '+', the value named ----
p2_msg "--seqlen ' 12' (leading blank) refused" "--seqlen = ' 12' must be an integer in [1, 2147483647] (digits only: no blanks)" \
    -- io --seqlen " 12"
p2_msg "--seqlen '12 ' (trailing blank) refused" "--seqlen = '12 '" -- io --seqlen "12 "
p2_msg "--seqlen TAB12 refused" "no blanks" -- io --seqlen "	12"
p2_msg "--seqlen +12 still refused" "--seqlen = '+12' must be an integer" -- io --seqlen +12
p2_msg "--kv-len ' 64' refused" "--kv-len = ' 64'" -- io --decode --kv-len " 64"
p2_msg "--doc-mask '32, 32' refused" "--doc-mask = ' 32'" -- io --seqlen 64 --doc-mask "32, 32"
p2_msg "--sram ' 64KiB' refused" "byte size ' 64KiB' has a blank" -- io --sram " 64KiB"
p2_msg "--sram '64KiB ' refused" "byte size '64KiB ' has a blank" -- io --sram "64KiB "
p2_msg "--sram '64 KiB' refused" "byte size '64 KiB' has a blank" -- io --sram "64 KiB"
p2_msg "--vary sram= 64KiB refused" "--vary sram: byte size ' 64KiB' has a blank" -- sweep --vary "sram= 64KiB"
p2_msg "--vary seqlen=64, 128 refused" "--vary seqlen = ' 128'" -- sweep --vary "seqlen=64, 128"
p2_msg "--window ' 8,0' refused" "--window ' 8,0'" -- io --window " 8,0"
p2_msg "--window +8,0 refused" "--window '+8,0'" -- io --window +8,0
p2_msg "--scale ' 0.5' refused" "--scale = ' 0.5' is not a positive finite number" -- io --scale " 0.5"
"$FASIM" io --seqlen 12 --sram 64KiB --window 8,0 --algo flash2 >/dev/null 2>"$T/err" \
    && pass "plain values still accepted" || fail "plain values: $(cat "$T/err")"

# ---- 3. errno texts ----
if [ -f /proc/version ] && ! (: > /proc/p2_probe) 2>/dev/null; then # even root cannot create files in /proc
    p2_msg "--trace /proc/version: the directory cannot take a temporary file" \
        "cannot write /proc/version: its directory /proc cannot take a temporary file (/proc/version.tmp." \
        -- io --trace /proc/version --algo flash2
    grep -q "No such file" "$T/err" && fail "--trace /proc/version still says No such file" \
        || pass "--trace /proc/version: no misleading errno text"
fi
p2_msg "--trace into a missing directory: the errno text stays" "cannot write $T/p2_nodir/t.csv: No such file or directory" \
    -- io --trace "$T/p2_nodir/t.csv" --algo flash2
mkdir -p "$T/p2_dir"
p2_msg "check --q DIRECTORY: is a directory" "$T/p2_dir is a directory" \
    -- check --q "$T/p2_dir" --k "$T/p2_dir" --v "$T/p2_dir" --out "$T/p2_o.npy"

# ---- 4. sweep: every point error names the point; vary or fix, not both ----
p2_msg "sweep splits=1,64: the point named" "fasim: at splits = 64: splits = 64 must be between 1" \
    -- sweep --vary splits=1,64 --decode --kv-len 100
p2_msg "sweep heads=3,4: the point named" "fasim: at heads = 3: heads = 3 is not a multiple of kv-heads = 2" \
    -- sweep --vary heads=3,4 --kv-heads 2
p2_msg "sweep two parameters: both named" "fasim: at seqlen = 48, heads = 3: " \
    -- sweep --vary seqlen=48 --vary heads=3,4 --kv-heads 2
p2_msg "sweep seqlen with --doc-mask: the point named" "fasim: at seqlen = 128: --doc-mask: the document lengths sum to 64" \
    -- sweep --vary seqlen=64,128 --doc-mask 32,32
p2_msg "sweep seqlen: SRAM too small, the point named" "fasim: at seqlen = 64: SRAM M = 1024 B" \
    -- sweep --vary seqlen=64,128 --sram 1KiB
p2_msg "sweep --vary seqlen with --seqlen refused" "--vary seqlen and --seqlen both given" -- sweep --vary seqlen=64,128 --seqlen 64
p2_msg "sweep --vary kv-len with --kv-len refused" "--vary kv-len and --kv-len both given" \
    -- sweep --decode --vary kv-len=64,128 --kv-len 100
p2_msg "sweep --vary splits with --splits refused" "--vary splits and --splits both given" \
    -- sweep --decode --kv-len 4096 --vary splits=1,2 --splits auto
p2_msg "sweep --vary page-size with --page-size refused" "--vary page-size and --page-size both given" \
    -- sweep --decode --kv-len 100 --vary page-size=16,32 --page-size 4
"$FASIM" sweep --decode --vary kv-len=64,128 --quiet >/dev/null 2>"$T/err" \
    && pass "sweep --vary kv-len alone still runs" || fail "sweep --vary kv-len: $(cat "$T/err")"
