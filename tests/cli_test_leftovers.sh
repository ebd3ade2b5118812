# cli_test_leftovers.sh -- sourced by tests/cli_test.sh (helpers: pass, fail, expect_exit, $T, $FASIM).
# Profile numbers are decimal and a profile's key is the --hw key; FASIM_HW_DIR= (empty) is
# unset; check --study refuses the options it does not use and sweeps N over powers of two;
# animate leaves its data files but not gnuplot.log; report --help says what --quiet does.
LO_HW=$(dirname "$0")/../sim/hw

# ---- hardware profiles (docs/conventions.md, "Hardware profiles") ----
mkdir -p "$T/lo_hw"
cp "$LO_HW"/*.hw "$T/lo_hw/"
export FASIM_HW_DIR="$T/lo_hw"
sed 's/^hbm_bandwidth_bytes_per_s = .*/hbm_bandwidth_bytes_per_s = 0x10/' "$LO_HW/h200-sxm.hw" > "$T/lo_hw/h200-sxm.hw"
expect_exit 2 "hw: hexadecimal number refused" -- io --hw h200
grep -qF "$T/lo_hw/h200-sxm.hw:6: hbm_bandwidth_bytes_per_s = '0x10' is not a decimal number" "$T/err" \
    && pass "hw: hex number: FILE:LINE, key and value named" || fail "hw: hex message: $(cat "$T/err")"
sed 's/^sms = .*/sms = 0x84/' "$LO_HW/h200-sxm.hw" > "$T/lo_hw/h200-sxm.hw"
expect_exit 2 "hw: hexadecimal count refused" -- io --hw h200
sed 's/^key = .*/key = h100/' "$LO_HW/h200-sxm.hw" > "$T/lo_hw/h200-sxm.hw"
expect_exit 2 "hw: key differs from --hw" -- io --hw h200
grep -qF "$T/lo_hw/h200-sxm.hw:3: key = 'h100' differs from the profile requested, --hw h200" "$T/err" \
    && pass "hw: wrong key: FILE:LINE, value and the expected key named" || fail "hw: wrong key message: $(cat "$T/err")"
expect_exit 2 "hw: report --hw h200 --hw h100 with a mislabelled h200 file" \
    -- report --hw h200 --hw h100 --out-dir "$T/lo_rep" --no-plots --quiet
[ ! -e "$T/lo_rep" ] && pass "hw: refused report writes nothing" || fail "hw: refused report left $(ls "$T/lo_rep")"
export FASIM_HW_DIR=
expect_exit 0 "hw: FASIM_HW_DIR= (empty) reads sim/hw" -- io --hw h200 --algo flash2
grep -q "H200-SXM" "$T/out" && pass "hw: empty FASIM_HW_DIR: the shipped profile" || fail "hw: empty FASIM_HW_DIR: $(cat "$T/out")"
unset FASIM_HW_DIR

# ---- check --study: only its own options; --no-plots only with it ----
for lo_o in "--batch 2" "--heads 2" "--causal" "--dtype bf16" "--format json" "--seqlen-k 64" "--headdim-v 16" \
         "--tol 1e-3" "--algo flash2" "--exp2" "--acc fp64" "--pass bwd" "--hw h100" "--sram 64KiB" \
         "--block-r 16" "--window 4,0" "--save-npy $T/lo_npy"; do
    # shellcheck disable=SC2086
    expect_exit 2 "check --study $lo_o refused" -- check --study "$T/lo_st" --seqlen 32 --headdim 16 --no-plots $lo_o
    lo_opt=${lo_o%% *}
    grep -qF "check --study does not use $lo_opt" "$T/err" && pass "check --study $lo_opt: the option named" \
        || fail "check --study $lo_opt: $(cat "$T/err")"
done
[ ! -e "$T/lo_st" ] && [ ! -e "$T/lo_npy" ] && pass "refused studies create nothing" || fail "refused study created files"
expect_exit 2 "check --no-plots without --study" -- check --no-plots
grep -q "\-\-no-plots applies only to --study" "$T/err" && pass "check --no-plots: says why" || fail "check --no-plots: $(cat "$T/err")"
expect_exit 2 "check --no-plots without --study (with a shape)" -- check --seqlen 64 --no-plots
# the N sweep: powers of two from 16 to the largest <= --seqlen
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

# ---- animate: the .dat files stay (listed in --help), gnuplot.log does not ----
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
fi

# ---- report --help says what --quiet does ----
"$FASIM" report --help | grep -q -- "--quiet  *nothing on stdout" && pass "report --help: --quiet explained" \
    || fail "report --help: --quiet not explained"
