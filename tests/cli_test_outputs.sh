# cli_test_outputs.sh -- the commands that write a directory of files (animate, check --study,
# report): bad input is exit 2 with one message before anything is written, and a failed run
# leaves no file, temporary or directory behind (analysis/cli/cli_outset.h).  Sourced by
# cli_test.sh (pass, fail, expect_exit, $T, $FASIM).  Tests run as root, for whom a read-only
# directory is writable: the unwritable paths here lie under a regular file, or a directory
# stands where an output file goes.

# nothing_in DIR: DIR holds nothing but the directories the test put there (no file, no temporary)
nothing_in() { [ -z "$(find "$1" ! -type d 2>/dev/null)" ]; }

# ---- animate: the tiles must fit the SRAM M, as in `fasim io` ----
expect_exit 2 "animate: default 4 x 4 tiles of N = 100000 exceed M" -- animate --seqlen 100000 --out-dir "$T/o_a1"
grep -q "need .* B .* of SRAM, more than M = 232448 B" "$T/err" && pass "animate SRAM message names the need and M" \
    || fail "animate SRAM message: $(cat "$T/err")"
[ ! -e "$T/o_a1" ] && pass "animate over M creates no directory" || fail "animate over M created $T/o_a1"
expect_exit 2 "animate --sram 16KiB: tiles over M" -- animate --sram 16KiB --out-dir "$T/o_a2"
expect_exit 2 "animate --heatmap --sram 16KiB: tiles over M" -- animate --heatmap --sram 16KiB --out-dir "$T/o_a2"
expect_exit 2 "animate explicit tiles over M" -- animate --seqlen 256 --block-r 128 --block-c 128 --sram 64KiB --out-dir "$T/o_a2"
[ ! -e "$T/o_a2" ] && pass "animate over M (all forms) creates no directory" || fail "animate over M created $T/o_a2"
"$FASIM" animate --heatmap --seqlen 64 --headdim 16 --sram 16KiB --out-dir "$T/o_a3" >/dev/null 2>"$T/err" \
    && [ -s "$T/o_a3/heatmap.csv" ] && pass "animate --heatmap with tiles that fit --sram 16KiB" || fail "animate fitting tiles: $(cat "$T/err")"
expect_exit 2 "animate --out-dir with a quote" -- animate --seqlen 64 --out-dir "$T/o_a'q"

# ---- an output directory that cannot be written: exit 2 before any work ----
echo "a file" > "$T/o_file"
expect_exit 2 "check --study under a file" -- check --study "$T/o_file/sub" --no-plots
expect_exit 2 "animate --out-dir under a file" -- animate --seqlen 64 --headdim 16 --out-dir "$T/o_file/sub"
expect_exit 2 "animate --heatmap --out-dir under a file" -- animate --heatmap --seqlen 64 --headdim 16 --out-dir "$T/o_file/sub"
expect_exit 2 "report --out-dir under a file" -- report --out-dir "$T/o_file/sub" --no-plots
expect_exit 2 "check --study onto a file" -- check --study "$T/o_file" --no-plots
[ "$(cat "$T/o_file")" = "a file" ] && pass "the file in the way is untouched" || fail "the file in the way was changed"

# ---- a directory where an output file goes: exit 2, nothing written ----
mkdir -p "$T/o_st/err_outliers.csv"
expect_exit 2 "check --study: err_outliers.csv is a directory" -- check --study "$T/o_st" --seqlen 32 --headdim 16 --no-plots
grep -q "err_outliers.csv: it is a directory" "$T/err" && pass "study names the path in the way" || fail "study message: $(cat "$T/err")"
nothing_in "$T/o_st" && pass "failed study leaves no file (not err_vs_n.csv, no temporary)" || fail "failed study left: $(find "$T/o_st" ! -type d)"

mkdir -p "$T/o_rp/decode.csv"
echo "keep me" > "$T/o_rp/report.csv"
expect_exit 2 "report: decode.csv is a directory" -- report --out-dir "$T/o_rp"
[ "$(find "$T/o_rp" ! -type d)" = "$T/o_rp/report.csv" ] && [ "$(cat "$T/o_rp/report.csv")" = "keep me" ] \
    && pass "failed report writes no file and keeps the old report.csv" || fail "failed report left: $(find "$T/o_rp" ! -type d)"

mkdir -p "$T/o_an/anim.gif"
expect_exit 2 "animate: anim.gif is a directory" -- animate --seqlen 64 --headdim 16 --out-dir "$T/o_an"
nothing_in "$T/o_an" && pass "failed animate leaves no frame or data file" || fail "failed animate left $(find "$T/o_an" ! -type d | wc -l) files"
mkdir -p "$T/o_hm/heatmap.png"
expect_exit 2 "animate --heatmap: heatmap.png is a directory" -- animate --heatmap --seqlen 64 --headdim 16 --out-dir "$T/o_hm"
nothing_in "$T/o_hm" && pass "failed heatmap leaves no heatmap.csv" || fail "failed heatmap left: $(find "$T/o_hm" ! -type d)"

# a failure after the work started (gnuplot missing its script): exit 1, and the directories the
# run created are removed again with every temporary
FASIM_PLOTS_DIR="$T/no_plots" "$FASIM" animate --heatmap --seqlen 64 --headdim 16 --out-dir "$T/o_new/a/b" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && [ ! -e "$T/o_new" ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -s "$T/out" ] \
    && pass "gnuplot failure: exit 1, one message, created directories removed" || fail "gnuplot failure: rc $rc, $(cat "$T/err"); $(find "$T/o_new" 2>/dev/null)"

# ---- check --study: N and d limits (the study is O(N^2 d) fp64 work per point) ----
expect_exit 2 "check --study --seqlen 100000000" -- check --study "$T/o_big" --seqlen 100000000 --no-plots
grep -q "100000000 is over the limit 4096" "$T/err" && pass "study N limit named in the message" || fail "study N message: $(cat "$T/err")"
expect_exit 2 "check --study --seqlen 4097" -- check --study "$T/o_big" --seqlen 4097 --no-plots
expect_exit 2 "check --study --headdim 1025" -- check --study "$T/o_big" --headdim 1025 --no-plots
[ ! -e "$T/o_big" ] && pass "refused study creates no directory" || fail "refused study created $T/o_big"

# ---- a signal during the study removes its temporaries and the directory it created ----
(
    "$FASIM" check --study "$T/o_sig/x" --seqlen 2048 --no-plots --quiet &
    pid=$!
    sleep 1
    kill -TERM $pid
    wait $pid
) 2>/dev/null
[ ! -e "$T/o_sig/x" ] && pass "SIGTERM during the study leaves nothing behind" || fail "SIGTERM left: $(find "$T/o_sig")"
