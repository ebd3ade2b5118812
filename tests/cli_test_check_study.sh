# cli_test_check_study.sh -- `fasim check --study DIR` (the error study, docs/numerics.md): it
# refuses the options it does not use and --no-plots goes only with it; it sweeps N over powers
# of two; its N and d limits; an output directory it cannot write is exit 2 before any work, and
# a failed or interrupted study leaves no file, temporary or directory behind.  Sourced by
# tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_exit, expect_msg, nothing_in; $T,
# $FASIM).

# ---- only its own options; --no-plots only with it ----
for lo_o in "--batch 2" "--heads 2" "--causal" "--dtype bf16" "--format json" "--seqlen-k 64" "--headdim-v 16" \
         "--tol 1e-3" "--algo flash2" "--exp2" "--acc fp64" "--pass bwd" "--hw h100" "--sram 64KiB" \
         "--block-r 16" "--window 4,0" "--save-npy $T/lo_npy"; do
    lo_opt=${lo_o%% *}
    # shellcheck disable=SC2086
    expect_msg "check --study $lo_o refused, $lo_opt named" "check --study does not use $lo_opt" \
        -- check --study "$T/lo_st" --seqlen 32 --headdim 16 --no-plots $lo_o
done
[ ! -e "$T/lo_st" ] && [ ! -e "$T/lo_npy" ] && pass "refused studies create nothing" || fail "refused study created files"
expect_msg "check --no-plots without --study: says why" "--no-plots applies only to --study" -- check --no-plots
expect_exit 2 "check --no-plots without --study (with a shape)" -- check --seqlen 64 --no-plots

# ---- the N sweep: powers of two from 16 to the largest <= --seqlen ----
lo_ns() { cut -d, -f4 "$1/err_vs_n.csv" | sed 1d | sort -nu | tr '\n' ' '; }
for lo_c in "100:16 32 64 " "64:16 32 64 " "32:16 32 " "16:16 "; do
    lo_n=${lo_c%%:*}
    lo_want=${lo_c#*:}
    rm -rf "$T/lo_sw"
    if "$FASIM" check --study "$T/lo_sw" --seqlen "$lo_n" --headdim=16 --seed=7 --no-plots --quiet >"$T/out" 2>"$T/err"; then
        [ "$(lo_ns "$T/lo_sw")" = "$lo_want" ] && [ ! -s "$T/out" ] && pass "check --study --seqlen $lo_n: N = $lo_want" \
            || fail "check --study --seqlen $lo_n: N = $(lo_ns "$T/lo_sw"), expected $lo_want"
    else
        fail "check --study --seqlen $lo_n: $(cat "$T/err")"
    fi
done
"$FASIM" check --help > "$T/lo_help"
grep -q "powers of two from 16" "$T/lo_help" && grep -q "MAXN <= 4096" "$T/lo_help" && grep -q "MAXD <= 1024" "$T/lo_help" \
    && pass "check --help: the N sweep rule and the study's limits" || fail "check --help: study rule or limits missing"
grep -q "powers of two" "$(dirname "$0")/../docs/numerics.md" && pass "docs/numerics.md: the N sweep rule" \
    || fail "docs/numerics.md: N sweep rule missing"

# ---- an output directory that cannot be written: exit 2 before any work ----
echo "a file" > "$T/st_file"
expect_exit 2 "check --study under a file" -- check --study "$T/st_file/sub" --no-plots
expect_exit 2 "check --study onto a file" -- check --study "$T/st_file" --no-plots
[ "$(cat "$T/st_file")" = "a file" ] && pass "check --study: the file in the way is untouched" || fail "check --study changed the file in the way"

# ---- a directory where an output file goes: exit 2, nothing written ----
mkdir -p "$T/o_st/err_outliers.csv"
expect_msg "check --study: err_outliers.csv is a directory, the path named" "err_outliers.csv: it is a directory" \
    -- check --study "$T/o_st" --seqlen 32 --headdim 16 --no-plots
nothing_in "$T/o_st" && pass "failed study leaves no file (not err_vs_n.csv, no temporary)" || fail "failed study left: $(find "$T/o_st" ! -type d)"

# ---- N and d limits (the study is O(N^2 d) fp64 work per point) ----
expect_msg "check --study --seqlen 100000000: the N limit named" "100000000 is over the limit 4096" \
    -- check --study "$T/o_big" --seqlen 100000000 --no-plots
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
