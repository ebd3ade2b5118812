# cli_test_animate.sh -- `fasim animate`: the tiles must fit M as in `fasim io`; bad input is
# exit 2 with one message before anything is written, and a failed run leaves no file, temporary
# or directory behind (analysis/cli/cli_outset.h); a run leaves its data files but not
# gnuplot.log.  Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip, expect_exit,
# expect_msg, nothing_in; $T, $FASIM).  Tests run as root, for whom a read-only directory is
# writable: the unwritable paths here lie under a regular file, or a directory stands where an
# output file goes.

# ---- the tiles must fit the SRAM M, as in `fasim io` ----
expect_msg "animate: default 4 x 4 tiles of N = 100000 exceed M, the need and M named" \
    "need 2516200000 B (2.343 GiB) of SRAM, more than M = 232448 B" -- animate --seqlen 100000 --out-dir "$T/o_a1"
[ ! -e "$T/o_a1" ] && pass "animate over M creates no directory" || fail "animate over M created $T/o_a1"
expect_exit 2 "animate --sram 16KiB: tiles over M" -- animate --sram 16KiB --out-dir "$T/o_a2"
expect_exit 2 "animate --heatmap --sram 16KiB: tiles over M" -- animate --heatmap --sram 16KiB --out-dir "$T/o_a2"
expect_exit 2 "animate explicit tiles over M" -- animate --seqlen 256 --block-r 128 --block-c 128 --sram 64KiB --out-dir "$T/o_a2"
[ ! -e "$T/o_a2" ] && pass "animate over M (all forms) creates no directory" || fail "animate over M created $T/o_a2"
if command -v gnuplot >/dev/null 2>&1; then
    "$FASIM" animate --heatmap --seqlen 64 --headdim 16 --sram 16KiB --out-dir "$T/o_a3" >/dev/null 2>"$T/err" \
        && [ -s "$T/o_a3/heatmap.csv" ] && pass "animate --heatmap with tiles that fit --sram 16KiB" || fail "animate fitting tiles: $(cat "$T/err")"
else
    skip "animate --heatmap with tiles that fit --sram 16KiB" "no gnuplot"
fi
expect_exit 2 "animate --out-dir with a quote" -- animate --seqlen 64 --out-dir "$T/o_a'q"

# ---- an output directory that cannot be written: exit 2 before any work ----
echo "a file" > "$T/an_file"
expect_exit 2 "animate --out-dir under a file" -- animate --seqlen 64 --headdim 16 --out-dir "$T/an_file/sub"
expect_exit 2 "animate --heatmap --out-dir under a file" -- animate --heatmap --seqlen 64 --headdim 16 --out-dir "$T/an_file/sub"
[ "$(cat "$T/an_file")" = "a file" ] && pass "animate: the file in the way is untouched" || fail "animate changed the file in the way"

# ---- a directory where an output file goes: exit 2, nothing written ----
mkdir -p "$T/o_an/anim.gif"
expect_exit 2 "animate: anim.gif is a directory" -- animate --seqlen 64 --headdim 16 --out-dir "$T/o_an"
nothing_in "$T/o_an" && pass "failed animate leaves no frame or data file" || fail "failed animate left $(find "$T/o_an" ! -type d | wc -l) files"
mkdir -p "$T/o_hm/heatmap.png"
expect_exit 2 "animate --heatmap: heatmap.png is a directory" -- animate --heatmap --seqlen 64 --headdim 16 --out-dir "$T/o_hm"
nothing_in "$T/o_hm" && pass "failed heatmap leaves no heatmap.csv" || fail "failed heatmap left: $(find "$T/o_hm" ! -type d)"

# a failure after the work started (gnuplot missing its script): exit 1, and the directories the
# run created are removed again with every temporary
FASIM_PLOTS_DIR="$T/no_plots" "$FASIM" animate --heatmap --seqlen 64 --headdim 16 --out-dir "$T/o_new" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && [ ! -e "$T/o_new" ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -s "$T/out" ] \
    && pass "gnuplot failure: exit 1, one message, the directory it created removed" || fail "gnuplot failure: rc $rc, $(cat "$T/err"); $(find "$T/o_new" 2>/dev/null)"

# ---- the .dat files stay (listed in --help), gnuplot.log does not ----
"$FASIM" animate --help > "$T/lo_help"
grep -q "frames.dat" "$T/lo_help" && grep -q "labels.dat" "$T/lo_help" && grep -q "bytes.dat" "$T/lo_help" \
    && pass "animate --help lists the .dat files" || fail "animate --help: .dat files missing"
if command -v gnuplot >/dev/null 2>&1; then
    if "$FASIM" animate --seqlen 64 --headdim 16 --out-dir "$T/lo_an" >"$T/out" 2>"$T/err"; then
        lo_left=$(cd "$T/lo_an" && ls | grep -v -e '^frame_[0-9][0-9][0-9][0-9]\.png$' -e '^anim\.gif$' \
            -e '^frames\.dat$' -e '^labels\.dat$' -e '^bytes\.dat$' | tr '\n' ' ')
        [ -z "$lo_left" ] && [ -s "$T/lo_an/frames.dat" ] && [ -s "$T/lo_an/bytes.dat" ] && [ -s "$T/lo_an/labels.dat" ] \
            && pass "animate leaves only frames, anim.gif and the .dat files" || fail "animate leftovers: $lo_left"
        grep -q "frames.dat, labels.dat, bytes.dat" "$T/out" && pass "animate: the wrote line names the .dat files" \
            || fail "animate wrote line: $(cat "$T/out")"
    else
        fail "animate: $(cat "$T/err")"
    fi
    if "$FASIM" animate --heatmap --seqlen 64 --headdim 16 --out-dir "$T/lo_hm" >"$T/out" 2>"$T/err"; then
        [ "$(cd "$T/lo_hm" && ls | tr '\n' ' ')" = "heatmap.csv heatmap.png " ] \
            && pass "animate --heatmap leaves only heatmap.csv and .png" || fail "heatmap leftovers: $(ls "$T/lo_hm")"
    else
        fail "animate --heatmap: $(cat "$T/err")"
    fi
else
    skip "animate leaves only frames, anim.gif and the .dat files" "no gnuplot"
    skip "animate: the wrote line names the .dat files" "no gnuplot"
    skip "animate --heatmap leaves only heatmap.csv and .png" "no gnuplot"
fi

# ---- a full disk: gnuplot exits 0 with its images cut short; fasim says so, exit 1, nothing left ----
if command -v gnuplot >/dev/null 2>&1 && mkdir -p "$T/full" && mount -t tmpfs -o size=100k tmpfs "$T/full" 2>/dev/null; then
    "$FASIM" animate --out-dir "$T/full/an" >/dev/null 2>"$T/err"; rc=$?
    [ $rc = 1 ] && grep -q "the image gnuplot wrote is cut short or empty (is the disk full?)" "$T/err" && [ ! -e "$T/full/an" ] \
        && pass "animate on a full disk: exit 1, the cut image named, nothing left" || fail "animate on a full disk: rc $rc, $(cat "$T/err"); $(ls "$T/full")"
    "$FASIM" check --study "$T/full/st" --seqlen 64 --headdim 32 --quiet >/dev/null 2>"$T/err"; rc=$?
    [ $rc = 1 ] && grep -qE "cut short or empty|No space left on device" "$T/err" && [ ! -e "$T/full/st" ] \
        && pass "check --study on a full disk: exit 1, nothing left" || fail "check --study on a full disk: rc $rc, $(cat "$T/err"); $(ls "$T/full")"
    umount "$T/full"
else
    skip "animate and check --study on a full disk" "no gnuplot, or no tmpfs mount here"
    skip "check --study on a full disk" "no gnuplot, or no tmpfs mount here"
fi
