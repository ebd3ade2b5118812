# cli_test_hw_help.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_exit,
# expect_msg, hw_dir_save/hw_dir_restore; $T, $FASIM).  Hardware profiles from $FASIM_HW_DIR and
# their strict parsing (numbers are decimal, the key is the --hw key, a key's bytes are escaped in
# the message, FASIM_HW_DIR= (empty) is unset); every option a command accepts is in its --help;
# the files `fasim report` writes are named in its --help.  The ranges of the numbers:
# cli_test_hw_limits.sh.
HW_SRC=$(dirname "$0")/../sim/hw
CLI_SRC=$(dirname "$0")/../analysis/cli

# ---- hardware profiles: FASIM_HW_DIR and the strict format (docs/conventions.md) ----
mkdir -p "$T/hw"
cp "$HW_SRC"/*.hw "$T/hw/"
export FASIM_HW_DIR="$T/hw"
sed 's/^name = .*/name = My-H200/' "$HW_SRC/h200-sxm.hw" > "$T/hw/h200-sxm.hw"
"$FASIM" io --hw h200 --algo flash2 2>"$T/err" | grep -q "My-H200, M = 232448 B" \
    && pass "FASIM_HW_DIR: the profile is read from there" || fail "FASIM_HW_DIR not used: $(cat "$T/err")"
# hw_bad NAME SED-SCRIPT EXPECTED-MESSAGE: h200-sxm.hw edited by SED-SCRIPT must exit 2 with the message
hw_bad() {
    sed "$2" "$HW_SRC/h200-sxm.hw" > "$T/hw/h200-sxm.hw"
    expect_msg "hw: $1: names FILE:LINE, key, value" "$T/hw/h200-sxm.hw:$3" -- io --hw h200
}
hw_bad "typo of an optional key" 's/^l2_partitions =/l2_partition =/' "15: unknown key 'l2_partition'"
hw_bad "key given twice" '$a sms = 100' "$(($(wc -l < "$HW_SRC/h200-sxm.hw") + 1)): key sms given twice (first on line 10)"
hw_bad "fractional bytes" 's/^sram_per_block_bytes = .*/sram_per_block_bytes = 1000.5/' \
    "9: sram_per_block_bytes = '1000.5' is not a whole number"
hw_bad "fractional SM count" 's/^sms = .*/sms = 131.5/' "10: sms = '131.5' is not a whole number"
hw_bad "per-block SRAM above per-SM SRAM" 's/^sram_per_block_bytes = .*/sram_per_block_bytes = 233473/' \
    "9: sram_per_block_bytes = 233473 exceeds sram_per_sm_bytes = 233472"
hw_bad "key without a value" 's/^sms = .*/sms =/' "10: key sms has no value"
hw_bad "value without a key" 's/^sms = .*/= 132/' "10: expected key = value"
hw_bad "l2_partitions out of range" 's/^l2_partitions = .*/l2_partitions = 4/' "15: l2_partitions = '4' is not 1 or 2"
hw_bad "name too long" 's/^name = .*/name = NVIDIA-H200-SXM-141GB-HBM3e-with-a-very-long-names/' \
    "2: name = 'NVIDIA-H200-SXM-141GB-HBM3e-with-a-very-...' is 50 characters long (limit 47)"
hw_bad "load curve: duty above 1" 's/^wgmma_clock_by_load = .*/wgmma_clock_by_load = 0.5:1.7e9 1.2:1.6e9/'     "47: wgmma_clock_by_load = '0.5:1.7e9 1.2:1.6e9': point 2 is not duty:hz with 0 < duty <= 1"
hw_bad "load curve: duties not increasing" 's/^wgmma_clock_by_load = .*/wgmma_clock_by_load = 0.8:1.7e9 0.5:1.8e9/'     "47: wgmma_clock_by_load = '0.8:1.7e9 0.5:1.8e9': the duties must increase (point 2: 0.5 after 0.8)"
hw_bad "load curve: clock out of range" 's/^wgmma_clock_by_load = .*/wgmma_clock_by_load = 0.5:17e10/'     "47: wgmma_clock_by_load = '0.5:17e10': point 1's clock is not in 1e8 to 1e10 Hz"
hw_bad "load curve: not duty:hz" 's/^wgmma_clock_by_load = .*/wgmma_clock_by_load = fast/'     "47: wgmma_clock_by_load = 'fast': point 1 is not duty:hz"
hw_bad "ldsm_mma_overlap: c above 1" 's/^ldsm_mma_overlap = .*/ldsm_mma_overlap = 1:0.2 2:1.5/' \
    "111: ldsm_mma_overlap = '1:0.2 2:1.5': point 2's c is not in 0 to 1"
hw_bad "ldsm_mma_overlap: hex refused as in scalar keys" 's/^ldsm_mma_overlap = .*/ldsm_mma_overlap = 1:0x1/' \
    "111: ldsm_mma_overlap = '1:0x1': point 1 ('1:0x1') is not two decimal numbers (digits, an optional '.' and e exponent; no hex, inf or nan)"
hw_bad "load curve: hex clock refused" 's/^wgmma_clock_by_load = .*/wgmma_clock_by_load = 0.23:0x6B49D200 1.0:1.603e9/' \
    "47: wgmma_clock_by_load = '0.23:0x6B49D200 1.0:1.603e9': point 1 ('0.23:0x6B49D200') is not two decimal numbers"
hw_bad "rate table: hex refused" 's/^torch_softmax_bytes_per_s_by_n = .*/torch_softmax_bytes_per_s_by_n = 0x800:4e12/' \
    "85: torch_softmax_bytes_per_s_by_n = '0x800:4e12': point 1 ('0x800:4e12') is not two decimal numbers"
hw_bad "ldsm_mma_overlap: warps not increasing" 's/^ldsm_mma_overlap = .*/ldsm_mma_overlap = 2:0.06 1:0.2/' \
    "111: ldsm_mma_overlap = '2:0.06 1:0.2': the warp counts must increase (point 2: 1 after 2)"
hw_bad "rate table: lengths not increasing" 's/^torch_softmax_bytes_per_s_by_n = .*/torch_softmax_bytes_per_s_by_n = 4096:2e12 512:4e12/' \
    "85: torch_softmax_bytes_per_s_by_n = '4096:2e12 512:4e12': the row lengths must increase (point 2: 512 after 4096)"
hw_bad "rate table: rate out of range" 's/^torch_all_bytes_per_s_by_n = .*/torch_all_bytes_per_s_by_n = 512:5e15/' \
    "86: torch_all_bytes_per_s_by_n = '512:5e15': point 1's rate is not in 1e9 to 1e15 bytes/s"
hw_bad "rate table: not N:rate" 's/^torch_all_bytes_per_s_by_n = .*/torch_all_bytes_per_s_by_n = fast/' \
    "86: torch_all_bytes_per_s_by_n = 'fast': point 1 is not N:bytes_per_s"
long=$(printf '%01100d' 0)
hw_bad "very long line" "1i # $long" "1: line longer than 1022 characters"
cp "$HW_SRC/h200-sxm.hw" "$T/hw/h200-sxm.hw"
printf 'memory_type = HBM3e\n' >> "$T/hw/h200-sxm.hw"
expect_msg "hw: unknown key in report, named" "unknown key 'memory_type'" -- report --hw h200 --out-dir "$T/rep_hw" --no-plots --quiet
rm -f "$T/hw/h200-sxm.hw"
expect_msg "hw: FASIM_HW_DIR without the profile: missing file named" "$T/hw/h200-sxm.hw" -- io --hw h200
unset FASIM_HW_DIR

# ---- numbers are decimal; a profile's key is the --hw key; FASIM_HW_DIR= (empty) is unset ----
LO_HW=$HW_SRC
mkdir -p "$T/lo_hw"
cp "$LO_HW"/*.hw "$T/lo_hw/"
export FASIM_HW_DIR="$T/lo_hw"
sed 's/^hbm_bandwidth_bytes_per_s = .*/hbm_bandwidth_bytes_per_s = 0x10/' "$LO_HW/h200-sxm.hw" > "$T/lo_hw/h200-sxm.hw"
expect_msg "hw: hexadecimal number refused: FILE:LINE, key and value named" \
    "$T/lo_hw/h200-sxm.hw:6: hbm_bandwidth_bytes_per_s = '0x10' is not a decimal number" -- io --hw h200
sed 's/^sms = .*/sms = 0x84/' "$LO_HW/h200-sxm.hw" > "$T/lo_hw/h200-sxm.hw"
expect_exit 2 "hw: hexadecimal count refused" -- io --hw h200
sed 's/^key = .*/key = h100/' "$LO_HW/h200-sxm.hw" > "$T/lo_hw/h200-sxm.hw"
expect_msg "hw: key differs from --hw: FILE:LINE, value and the expected key named" \
    "$T/lo_hw/h200-sxm.hw:3: key = 'h100' differs from the profile requested, --hw h200" -- io --hw h200
expect_exit 2 "hw: report --hw h200 --hw h100 with a mislabelled h200 file" \
    -- report --hw h200 --hw h100 --out-dir "$T/lo_rep" --no-plots --quiet
[ ! -e "$T/lo_rep" ] && pass "hw: refused report writes nothing" || fail "hw: refused report left $(ls "$T/lo_rep")"
export FASIM_HW_DIR=
expect_exit 0 "hw: FASIM_HW_DIR= (empty) reads sim/hw" -- io --hw h200 --algo flash2
grep -q "H200-SXM" "$T/out" && pass "hw: empty FASIM_HW_DIR: the shipped profile" || fail "hw: empty FASIM_HW_DIR: $(cat "$T/out")"
unset FASIM_HW_DIR

# ---- a binary key is escaped in the message ----
mkdir -p "$T/p2_hw"
cp "$HW_SRC"/*.hw "$T/p2_hw/"
printf '\211PNG\001\002 = \377\376\375 long value long value long value long value\n' >> "$T/p2_hw/h200-sxm.hw"
hw_dir_save
export FASIM_HW_DIR="$T/p2_hw"
expect_msg -p "hw profile: a binary key escaped" "unknown key '\\x89PNG\\x01\\x02'" -- io --hw h200
hw_dir_restore

# ---- every option a command accepts is listed in its --help ----
# Candidates: every "--option" string of the command-line sources.  Each one that `fasim CMD
# --help` does not list (as a word) must be rejected: `fasim CMD OPT @@v --zz-end=1` has to call
# OPT unknown (the unknown --zz-end=1 stops every command before it runs anything).
cands=$(grep -oh '"--[a-z0-9][a-z0-9-]*' "$CLI_SRC"/*.c | tr -d '"' | sort -u | grep -v -e '^--help$' -e '^--version$')
mkdir -p "$T/probe"
case $FASIM in /*) FASIM_ABS=$FASIM ;; *) FASIM_ABS=$PWD/$FASIM ;; esac
for c in io report sweep check compare explain animate; do
    "$FASIM" $c --help > "$T/probe/help" 2>&1 || fail "$c --help: exit status not 0"
    unlisted=""
    for o in $cands; do
        grep -Eq -- "(^|[^a-z0-9-])$o([^a-z0-9-]|\$)" "$T/probe/help" || unlisted="$unlisted $o"
    done
    for o in $unlisted --zz-not-an-option; do
        (cd "$T/probe" && ASAN_OPTIONS=detect_leaks=0 "$FASIM_ABS" $c "$o" @@v --zz-end=1 >/dev/null \
            2>"$T/probe/err.$c$o") &
    done
    wait
    grep -q "unknown.* '--zz-not-an-option'" "$T/probe/err.$c--zz-not-an-option" \
        || fail "$c: the probe does not see an unknown option: $(cat "$T/probe/err.$c--zz-not-an-option")"
    miss=""
    for o in $unlisted; do
        grep -Eq -- "unknown.* '$o'|^fasim: $o is not an option of fasim $c " "$T/probe/err.$c$o" || miss="$miss $o"
    done
    [ -z "$miss" ] && pass "$c --help lists every option it accepts ($(echo $unlisted | wc -w) others rejected)" \
        || fail "$c accepts options its --help omits:$miss"
done
# options the probe cannot see (they are taken only in a mode) and the dtype spellings (what io
# accepts: cli_test_io_values.sh)
"$FASIM" check --help | grep -q -- "--quiet" && pass "check --help: --quiet (of --study)" || fail "check --help: --quiet"
"$FASIM" compare --help | grep -q -- "--no-l2" && pass "compare --help: --no-l2" || fail "compare --help: --no-l2"
for c in io sweep explain check; do
    "$FASIM" $c --help | grep -q "fp8_e4m3|fp8_e5m2" && "$FASIM" $c --help | grep -q "fp8, e4m3\|fp8 and e4m3" \
        && pass "$c --help: the fp8 dtypes and their aliases" || fail "$c --help: fp8 dtypes"
done

# ---- the files of `fasim report` are named in its --help ----
"$FASIM" report --help > "$T/probe/rhelp"
if "$FASIM" report --no-plots --quiet --out-dir "$T/rep_files" >/dev/null 2>"$T/err"; then
    miss=""
    for f in "$T/rep_files"/*; do
        stem=$(basename "$f" | sed -e 's/\.[a-z]*$//' -e 's/^hbm_vs_n_.*/hbm_vs_n_<model>/')
        grep -qF "$stem." "$T/probe/rhelp" || miss="$miss $(basename "$f")"
    done
    [ -z "$miss" ] && pass "report --help names every file it writes" || fail "report --help omits:$miss"
else
    fail "report --no-plots: $(cat "$T/err")"
fi
