# cli_test_io_trace.sh -- `fasim io --trace FILE`: '-' is refused (exit 2) instead of creating a
# file named '-' in the working directory; /dev/stdout prints; the errno texts of a path that
# cannot be written (none that misleads, as "No such file" for /proc did).  Sourced by
# tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip, expect_msg; $T, $FASIM).

# ---- '-' is not an output path (run in $T: no file '-' may appear there) ----
FASIM_ABS=$(cd "$(dirname "$FASIM")" && pwd)/$(basename "$FASIM")
it_cwd=$PWD; it_fasim=$FASIM; FASIM=$FASIM_ABS; cd "$T" || exit 1
expect_msg "io --trace - refused (exit 2)" "'-' is not an output path" -- io --trace - --algo flash2 --seqlen 64
cd "$it_cwd" || exit 1; FASIM=$it_fasim
[ ! -e "$T/-" ] && pass "io --trace -: no file named '-' left behind" || fail "io --trace -: a file named '-' was created"
nq=$("$FASIM" io --trace /dev/stdout --algo flash2 --seqlen 32 2>/dev/null | grep -c '^[0-9]*,Q,read,')
[ "$nq" -ge 1 ] && pass "io --trace /dev/stdout prints the trace" || fail "io --trace /dev/stdout printed no Q read"

# ---- errno texts ----
if [ -f /proc/version ] && ! (: > /proc/p2_probe) 2>/dev/null; then # even root cannot create files in /proc
    expect_msg -p "--trace /proc/version: the directory cannot take a temporary file" \
        "cannot write /proc/version: its directory /proc cannot take a temporary file (/proc/version.tmp." \
        -- io --trace /proc/version --algo flash2
    grep -q "No such file" "$T/err" && fail "--trace /proc/version still says No such file" \
        || pass "--trace /proc/version: no misleading errno text"
else
    skip "--trace /proc/version: the directory cannot take a temporary file" "no read-only /proc here"
    skip "--trace /proc/version: no misleading errno text" "no read-only /proc here"
fi
expect_msg -p "--trace into a missing directory: the message says the directory does not exist" "cannot write $T/p2_nodir/t.csv: the directory $T/p2_nodir does not exist" \
    -- io --trace "$T/p2_nodir/t.csv" --algo flash2
