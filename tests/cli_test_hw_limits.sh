# cli_test_hw_limits.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_exit,
# expect_msg; $T, $FASIM).
# Every numeric key of a hardware profile has a range (docs/conventions.md, "Hardware profiles"):
# a value outside it is refused when the profile is read, with FILE:LINE, the key, the value and
# the limit, exit 2 -- before `sms = 1e9` can make the L2 model run for minutes in gigabytes, or
# `l2_bytes = 1` fail later without naming the file.
HL_SRC=$(dirname "$0")/../sim/hw

mkdir -p "$T/hl_hw"
cp "$HL_SRC"/*.hw "$T/hl_hw/"
export FASIM_HW_DIR="$T/hl_hw"
# hl_bad NAME SED-SCRIPT EXPECTED-MESSAGE [ARGS]: h200-sxm.hw edited by SED-SCRIPT makes
# `fasim io --hw h200 --algo flash2 --l2` (or ARGS) exit 2 with "...h200-sxm.hw:EXPECTED-MESSAGE"
hl_bad() {
    hl_name=$1; hl_sed=$2; hl_msg=$3; shift 3
    sed "$hl_sed" "$HL_SRC/h200-sxm.hw" > "$T/hl_hw/h200-sxm.hw"
    if [ $# -eq 0 ]; then set -- io --hw h200 --algo flash2 --l2; fi
    expect_msg "hw limits: $hl_name: FILE:LINE, key, value, limit" "$T/hl_hw/h200-sxm.hw:$hl_msg" -- "$@"
}
hl_bad "sms = 1e9" 's/^sms = .*/sms = 1e9/' "10: sms = '1e9' is out of range: the limit is 1 to 1024"
hl_bad "a NUL byte in a value (sms = 1<NUL>32 was read as 1)" 's/^sms = .*/sms = 1\x0032/' "10: a NUL byte ('\\x00'): a hardware profile is text, not binary"
hl_bad "sms = 1025" 's/^sms = .*/sms = 1025/' "10: sms = '1025' is out of range: the limit is 1 to 1024"
hl_bad "l2_bytes = 1" 's/^l2_bytes = .*/l2_bytes = 1/' "12: l2_bytes = '1' is out of range: the limit is 2048 to 1073741824"
hl_bad "l2_bytes = 2 GiB" 's/^l2_bytes = .*/l2_bytes = 2147483648/' "12: l2_bytes = '2147483648' is out of range"
hl_bad "l2_bytes: one set, two partitions" 's/^l2_bytes = .*/l2_bytes = 2048/' \
    "12: l2_bytes = 2048 makes 1 set of 16 ways x 128-byte lines, which do not split into l2_partitions = 2 (line 15): the L2 model takes l2_bytes / 2048 sets, rounded down, and they must split evenly (a multiple of 4096 bytes does)"
hl_bad "l2_bytes: 3 sets, two partitions" 's/^l2_bytes = .*/l2_bytes = 6144/' \
    "12: l2_bytes = 6144 makes 3 sets"
hl_bad "hbm_bandwidth 1e-3" 's/^hbm_bandwidth_bytes_per_s = .*/hbm_bandwidth_bytes_per_s = 1e-3/' \
    "6: hbm_bandwidth_bytes_per_s = '1e-3' is out of range: the limit is 1e9 to 1e15 bytes/s"
hl_bad "hbm_bandwidth 1e20" 's/^hbm_bandwidth_bytes_per_s = .*/hbm_bandwidth_bytes_per_s = 1e20/' \
    "6: hbm_bandwidth_bytes_per_s = '1e20' is out of range"
hl_bad "sram_per_sm 2 GiB" 's/^sram_per_sm_bytes = .*/sram_per_sm_bytes = 2147483648/' \
    "8: sram_per_sm_bytes = '2147483648' is out of range: the limit is 1024 to 1073741824"
hl_bad "sram_per_block 100" 's/^sram_per_block_bytes = .*/sram_per_block_bytes = 100/' \
    "9: sram_per_block_bytes = '100' is out of range: the limit is 1024 to"
hl_bad "peak_fp16 1e30" 's/^peak_fp16_flops = .*/peak_fp16_flops = 1e30/' \
    "17: peak_fp16_flops = '1e30' is out of range: the limit is 1e9 to 1e18 FLOP/s"
hl_bad "peak_fp32 5" 's/^peak_fp32_flops = .*/peak_fp32_flops = 5/' "18: peak_fp32_flops = '5' is out of range"
hl_bad "hbm_capacity 1e18" 's/^hbm_capacity_bytes = .*/hbm_capacity_bytes = 1e18/' \
    "20: hbm_capacity_bytes = '1e18' is out of range: the limit is 1048576 to 1125899906842624"
# the same refusal in the other commands that read a profile
hl_bad "report: sms = 1e9" 's/^sms = .*/sms = 1e9/' "10: sms = '1e9'" \
    report --hw h200 --out-dir "$T/hl_rep" --no-plots --quiet
[ ! -e "$T/hl_rep" ] && pass "hw limits: refused report writes nothing" || fail "hw limits: refused report left $T/hl_rep"
printf 'kernel,B,H,N_q,d\nv3,1,1,1024,64\n' > "$T/hl_cmp.csv"
hl_bad "compare: l2_bytes = 1" 's/^l2_bytes = .*/l2_bytes = 1/' "12: l2_bytes = '1'" compare --measured "$T/hl_cmp.csv" --hw h200

# the limits themselves are accepted: sms 1 and 1024, l2_bytes 4096 (two partitions) and 1 GiB,
# l2_bytes 2048 with one partition
hl_ok() {
    sed "$2" "$HL_SRC/h200-sxm.hw" > "$T/hl_hw/h200-sxm.hw"
    expect_exit 0 "hw limits: $1 accepted" -- io --hw h200 --algo flash2 --seqlen 256 --l2
}
hl_ok "sms = 1" 's/^sms = .*/sms = 1/'
hl_ok "sms = 1024" 's/^sms = .*/sms = 1024/'
hl_ok "l2_bytes = 4096, 2 partitions" 's/^l2_bytes = .*/l2_bytes = 4096/'
hl_ok "l2_bytes = 2048, 1 partition" 's/^l2_bytes = .*/l2_bytes = 2048/; s/^l2_partitions = .*/l2_partitions = 1/'
hl_ok "l2_bytes = 1 GiB" 's/^l2_bytes = .*/l2_bytes = 1073741824/'
hl_ok "l2_bytes = 50e6 (sets even)" 's/^l2_bytes = .*/l2_bytes = 50e6/'
# the shipped profiles are inside every range
unset FASIM_HW_DIR
for hl_k in a100 h100 h200; do
    expect_exit 0 "hw limits: shipped $hl_k profile" -- io --hw $hl_k --algo flash2
done
