# cli_test_sweep.sh -- `fasim sweep`: one tile size varied with the other fixed (a row equals
# `fasim io` on its tiles); a --vary list refuses blanks; every error of a point names the point
# (and the algorithm), and a varied parameter is never also fixed; '-' is not an output path; the
# varied whole number stays an integer in JSON.  Sourced by tests/cli_test.sh (tests/cli_lib.sh:
# pass, fail, expect_msg; $T, $FASIM).

# ---- sweep: one tile size varied, the other fixed ----
"$FASIM" sweep --block-c 64 --vary block-r=16:256:+16 --algo flash2 --quiet > "$T/sw_br.csv"
v=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "block_r") r = i; if ($i == "block_c") c = i } next }
             { printf "%s%s:%s", (NR > 2 ? " " : ""), $r, $c }' "$T/sw_br.csv")
want=$(i=16; s=""; while [ $i -le 256 ]; do s="$s${s:+ }$i:64"; i=$((i + 16)); done; echo "$s")
[ "$v" = "$want" ] && pass "sweep --block-c 64 --vary block-r=16:256:+16: 16 rows, B_r 16..256, B_c 64" \
    || fail "sweep vary block-r: got '$v'"
# a row equals fasim io on the same tiles (B_r = 48, the third point)
a=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "hbm_bytes") h = i; next } NR == 4 { print $h }' "$T/sw_br.csv")
b=$("$FASIM" io --block-r 48 --block-c 64 --algo flash2 --format json | jq '.[0].hbm_bytes')
[ -n "$a" ] && [ "$a" = "$b" ] && pass "sweep row B_r = 48, B_c = 64 equals fasim io ($a B)" || fail "sweep B_r = 48: $a, io $b"
v=$("$FASIM" sweep --vary block-c=16,32 --block-r 64 --algo flash2 --quiet |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "block_r") r = i; if ($i == "block_c") c = i } next }
             { printf "%s%s:%s", (NR > 2 ? " " : ""), $r, $c }')
[ "$v" = "64:16 64:32" ] && pass "sweep --vary block-c=16,32 --block-r 64" || fail "sweep vary block-c: got '$v'"
"$FASIM" sweep --vary block-c=16,32 --block-r 64 --format json --quiet | jq -e 'length == 6 and all(.[]; .block_r == 64)' >/dev/null \
    && pass "sweep json, block-c varied: 2 points x 3 algorithms" || fail "sweep json block-c"
expect_msg "sweep: vary block-r, no block-c" "needs the other one" -- sweep --vary block-r=16,32
expect_msg "sweep: --block-r alone" "give both --block-r and --block-c" -- sweep --vary seqlen=64,128 --block-r 16
expect_msg "sweep: vary block-r and fix it" "vary it or fix it" -- sweep --vary block-r=16,32 --block-r 16 --block-c 16
expect_msg "sweep: block-r over 2^20" "[1, 1048576]" -- sweep --vary block-r=16,2000000 --block-c 16
expect_msg "sweep: varied tiles over M" "does not fit" -- sweep --block-c 64 --vary block-r=64,4096

# ---- a --vary list: no blanks, the value named ----
expect_msg -p "--vary sram= 64KiB refused" "--vary sram: byte size ' 64KiB' has a blank" -- sweep --vary "sram= 64KiB"
expect_msg -p "--vary seqlen=64, 128 refused" "--vary seqlen = ' 128'" -- sweep --vary "seqlen=64, 128"

# ---- every error of a point names the point; vary or fix, not both ----
expect_msg -p "sweep splits=1,64: the point named" "fasim: at splits = 64: splits = 64 must be between 1" \
    -- sweep --vary splits=1,64 --decode --kv-len 100
expect_msg -p "sweep heads=3,4: the point named" "fasim: at heads = 3: heads = 3 is not a multiple of kv-heads = 2" \
    -- sweep --vary heads=3,4 --kv-heads 2
expect_msg -p "sweep two parameters: both named" "fasim: at seqlen = 48, heads = 3: " \
    -- sweep --vary seqlen=48 --vary heads=3,4 --kv-heads 2
expect_msg -p "sweep seqlen with --doc-mask: the point named" "fasim: at seqlen = 128: --doc-mask: the document lengths sum to 64" \
    -- sweep --vary seqlen=64,128 --doc-mask 32,32
expect_msg -p "sweep seqlen: SRAM too small, the point named" "fasim: at seqlen = 64: SRAM M = 1024 B" \
    -- sweep --vary seqlen=64,128 --sram 1KiB
expect_msg -p "sweep --vary seqlen with --seqlen refused" "--vary seqlen and --seqlen both given" -- sweep --vary seqlen=64,128 --seqlen 64
expect_msg -p "sweep --vary kv-len with --kv-len refused" "--vary kv-len and --kv-len both given" \
    -- sweep --decode --vary kv-len=64,128 --kv-len 100
expect_msg -p "sweep --vary splits with --splits refused" "--vary splits and --splits both given" \
    -- sweep --decode --kv-len 4096 --vary splits=1,2 --splits auto
expect_msg -p "sweep --vary page-size with --page-size refused" "--vary page-size and --page-size both given" \
    -- sweep --decode --kv-len 100 --vary page-size=16,32 --page-size 4
"$FASIM" sweep --decode --vary kv-len=64,128 --quiet >/dev/null 2>"$T/err" \
    && pass "sweep --vary kv-len alone still runs" || fail "sweep --vary kv-len: $(cat "$T/err")"

# ---- sweep: a failing point is named ----
expect_msg "sweep: tiles over M name the point and algorithm" "at block-r = 512 (standard): SRAM buffer O_i" -- sweep --vary block-r=16:4096:x2 --block-c 64
expect_msg "sweep --algo flash2: the point and algorithm" "at block-r = 512 (flash2): SRAM buffer O_i" -- sweep --vary block-r=16:4096:x2 --block-c 64 --algo flash2
expect_msg "sweep: two varied names" "at block-r = 512, seqlen = 1024 (flash1): " -- sweep --vary block-r=16:4096:x2 --vary seqlen=1024 --block-c 64 --algo flash1

# ---- '-' is not an output path (run in $T: no file '-' may appear there) ----
FASIM_ABS=$(cd "$(dirname "$FASIM")" && pwd)/$(basename "$FASIM")
sw_cwd=$PWD; sw_fasim=$FASIM; FASIM=$FASIM_ABS; cd "$T" || exit 1
expect_msg "sweep --out - refused (exit 2)" "'-' is not an output path" -- sweep --vary seqlen=64,128 --out -
cd "$sw_cwd" || exit 1; FASIM=$sw_fasim
[ ! -e "$T/-" ] && pass "sweep --out -: no file named '-' left behind" || fail "sweep --out -: a file named '-' was created"

# ---- JSON: the varied whole number stays an integer ----
"$FASIM" sweep --vary seqlen=256,512 --format json 2>/dev/null | grep -q '"seqlen": 256,' \
    && pass "sweep json: varied seqlen is an integer" || fail "sweep json varied value not an integer"
