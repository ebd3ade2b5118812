# cli_test_compare.sh -- `fasim compare --measured FILE`: the tiles must fit M; strict rows and
# header (FILE:LINE and the limit named); ms > 0 and an empty field read as the column left out;
# the numbers as printed without the L2 model.  Sourced by tests/cli_test.sh (tests/cli_lib.sh:
# pass, fail, expect_msg; $T, $FASIM); the header's names in cli_test_compare_header.sh.

# ---- compare: the tiles must fit M ----
H='kernel,B,H,N_q,d,dtype,block_r,block_c'
printf '%s\nv3,1,1,1024,128,bf16,512,512\n' "$H" > "$T/cc_512.csv"
expect_msg "compare: 512 x 512 tiles at d = 128" "cc_512.csv:2: tiles B_r x B_c = 512 x 512 do not fit SRAM: Q_i, K_j, V_j (d = 128, d_v = 128, bf16) need 393216 B, M = 232448 B" -- compare --measured "$T/cc_512.csv"
printf '%s\nv3,1,1,1024,64,bf16,64,64\nv3,1,1,1024,64,bf16,100000,64\n' "$H" > "$T/cc_100k.csv"
expect_msg "compare: 100000 x 64 tiles (line 3, nothing printed)" "cc_100k.csv:3: tiles B_r x B_c = 100000 x 64" -- compare --measured "$T/cc_100k.csv"
printf '%s\nv3,1,1,1024,64,bf16,64,64\n' "$H" > "$T/cc_64.csv"
printf 'kernel,B,H,N_q,d,ms\nv3,1,16,1024,64,0.1\n\000v3,1,16,2048,64,0.2\n' > "$T/cc_nul.csv"
expect_msg "compare: a NUL byte starting a row (the row is not dropped)" "cc_nul.csv:3: a NUL byte ('\\x00'): a measured file is text, not binary" -- compare --measured "$T/cc_nul.csv" --no-l2
printf 'kernel,B,H,N_q,d,ms\nv3,1,16,1024,64,0.1\000garbage,,\n' > "$T/cc_nul2.csv"
expect_msg "compare: a NUL byte inside a row" "cc_nul2.csv:2: a NUL byte" -- compare --measured "$T/cc_nul2.csv" --no-l2
printf 'kernel,B,H,N_q,d,ms,dram_read_bytes\nv3,1,1,1024,64,0.1,123456\n' > "$T/cc_dr.csv"
expect_msg "compare: dram_read_bytes without its write column" "cc_dr.csv:2: dram_read_bytes = '123456' but dram_write_bytes is not a column: fasim compares the sum of the two, give both or neither" -- compare --measured "$T/cc_dr.csv"
printf 'kernel,B,H,N_q,d,ms,l2_read_bytes,l2_write_bytes\nv3,1,1,1024,64,0.1,1e6,2e6\nv3,1,1,1024,64,0.1,,2e6\n' > "$T/cc_lw.csv"
expect_msg "compare: an l2_write_bytes whose read field is empty (line 3)" "cc_lw.csv:3: l2_write_bytes = '2e6' but l2_read_bytes is empty" -- compare --measured "$T/cc_lw.csv"
expect_msg "compare: --sram 1KiB with 64 x 64 tiles" "cc_64.csv:2: tiles B_r x B_c = 64 x 64 do not fit SRAM: Q_i, K_j, V_j (d = 64, d_v = 64, bf16) need 24576 B, M = 1024 B" -- compare --measured "$T/cc_64.csv" --sram 1KiB
printf 'kernel,B,H,N_q,d\nv3,1,1,1024,64\n' > "$T/cc_fit.csv"
expect_msg "compare: --sram 1KiB, tiles from the profile's table" "cc_fit.csv:2: tiles B_r x B_c = 128 x 64 (profile v3) do not fit SRAM: Q_i, K_j, V_j (d = 64, d_v = 64, bf16) need 32768 B, M = 1024 B" -- compare --measured "$T/cc_fit.csv" --sram 1KiB
# the fp32 S_ij and O_i a kernel keeps in registers may exceed M: v3_br256 (256 x 64, d = 128,
# bf16) ran on the H200; fasim's buffers need 296960 B, its Q_i, K_j, V_j 98304 B
printf '%s\nv3_br256,1,1,1024,128,bf16,256,64\n' "$H" > "$T/cc_reg.csv"
"$FASIM" compare --measured "$T/cc_reg.csv" >/dev/null 2>&1 && pass "compare: Q_i, K_j, V_j fit, S_ij and O_i in registers" \
    || fail "compare refused 256 x 64 at d = 128"
rows=$(fasim_memo compare --measured "$(dirname "$0")/../analysis/measured/h200/compare_input.csv" --hw h200 --format csv 2>/dev/null | wc -l)
[ "$rows" -eq 19 ] && pass "compare takes every row of analysis/measured/h200/compare_input.csv" || fail "compare_input.csv: $rows lines"
expect_msg "compare: --block-r/--block-c refused" "tile sizes from the file" -- compare --measured "$T/cc_fit.csv" --block-r 64 --block-c 64
printf 'kernel,B,H,N_q,d,block_r\nv3,1,1,1024,64,64\n' > "$T/cc_half.csv"
expect_msg "compare: block_r column alone" "cc_half.csv:2: block_r = '64' but block_c = ''" -- compare --measured "$T/cc_half.csv"
expect_msg "compare: --blocks paper refused" "tile sizes from the file" -- compare --measured "$T/cc_fit.csv" --blocks paper

# ---- compare: strict rows and header ----
printf 'kernel,B,H,N_q,d\nv3,1,1,1024,64,5\n' > "$T/cc_more.csv"
expect_msg "compare: more fields than the header" "cc_more.csv:2: 6 fields, the header has 5" -- compare --measured "$T/cc_more.csv"
printf 'kernel,B,H,N_q,d\nv3,1,1,1024\n' > "$T/cc_less.csv"
expect_msg "compare: fewer fields than the header" "cc_less.csv:2: 4 fields, the header has 5" -- compare --measured "$T/cc_less.csv"
printf 'kernel,B,H,N_q,d,d\nv3,1,1,1024,64,64\n' > "$T/cc_dup.csv"
expect_msg "compare: column d twice" "cc_dup.csv:1: column 'd' appears twice in the header (columns 5 and 6)" -- compare --measured "$T/cc_dup.csv"
printf 'kernel,B,H,N,N_q,d\nv3,1,1,1024,1024,64\n' > "$T/cc_alias.csv"
expect_msg "compare: both N and N_q" "cc_alias.csv:1: the header names both 'N_q' and 'N'" -- compare --measured "$T/cc_alias.csv"
printf 'kernel,B,H,N,d\nv3,1,1,1024.5,64\n' > "$T/cc_frac.csv"
expect_msg "compare: N = 1024.5" "cc_frac.csv:2: column N = '1024.5' must be a whole number from 1 to 2147483647" -- compare --measured "$T/cc_frac.csv"
printf 'kernel,B,H,N,d,block_r,block_c\nv3,1,1,1024,64,64,32.5\n' > "$T/cc_bfrac.csv"
expect_msg "compare: block_c = 32.5" "column block_c = '32.5' must be a whole number from 1 to 1048576" -- compare --measured "$T/cc_bfrac.csv"
printf 'kernel,B,H,N,d\n,1,1,1024,64\n' > "$T/cc_nok.csv"
expect_msg "compare: empty kernel" "cc_nok.csv:2: column kernel is empty" -- compare --measured "$T/cc_nok.csv"
printf 'kernel,B,H,N,d\nv3,,1,1024,64\n' > "$T/cc_noB.csv"
expect_msg "compare: empty B" "cc_noB.csv:2: column B is empty" -- compare --measured "$T/cc_noB.csv"
printf 'kernel,B,H,N,d\nv3,0x10,1,1024,64\n' > "$T/cc_hex.csv"
expect_msg "compare: B = 0x10" "column B = '0x10' must be a whole number from 1" -- compare --measured "$T/cc_hex.csv"
printf 'kernel,B,,N,d\nv3,1,1,1024,64\n' > "$T/cc_noname.csv"
expect_msg "compare: unnamed header column" "cc_noname.csv:1: column 3 of the header has no name" -- compare --measured "$T/cc_noname.csv"
for occ in abc -1 0 33 2.5; do
    printf 'kernel,B,H,N,d,blocks_per_sm\nv3,1,1,1024,64,%s\n' "$occ" > "$T/cc_occ.csv"
    expect_msg "compare: blocks_per_sm = $occ names the range" "cc_occ.csv:2: column blocks_per_sm = '$occ' must be a whole number from 1 to 32" -- compare --measured "$T/cc_occ.csv"
done
printf 'kernel,B,H,N,d\nv3,1,1,1024,100000\n' > "$T/cc_bigd.csv"
expect_msg "compare: d = 100000 (file:line)" "cc_bigd.csv:2: profile v3 is fasim's kernel kernels/attn_v3_flash2_tc.cu, built for head dims d = d_v = 64 and 128 only, not d = 100000" -- compare --measured "$T/cc_bigd.csv"
printf 'kernel,B,H,N,d,block_r,block_c\nv3,2000000000,2000000000,2000000000,16,16,16\n' > "$T/cc_huge.csv"
expect_msg "compare: huge B x H x N (file:line)" "cc_huge.csv:2: " -- compare --measured "$T/cc_huge.csv"
grep -q "64 bits" "$T/err" && pass "compare: huge B x H x N names 64 bits" || fail "compare huge: $(cat "$T/err")"
# whole numbers as a spreadsheet writes them, CRLF line ends and blank lines are fine
printf 'kernel,B,H,N,d\r\nv3,1,1,1024.0,64\r\n\r\nv3,1,1,1e3,64\r\n' > "$T/cc_ok.csv"
[ "$("$FASIM" compare --measured "$T/cc_ok.csv" --format csv | cut -d, -f5 | tr '\n' ' ')" = "N_q 1024 1000 " ] \
    && pass "compare: 1024.0, 1e3 and CRLF lines" || fail "compare whole numbers"
# --no-l2 is a flag, before or after --measured: no DRAM prediction
v=$("$FASIM" compare --no-l2 --measured "$T/cc_64.csv" --format csv 2>&1 | tail -1 | cut -d, -f16)
[ "$v" = "nan" ] && pass "compare --no-l2 --measured FILE" || fail "compare --no-l2 first: got '$v'"
v=$("$FASIM" compare --measured "$T/cc_64.csv" --no-l2 --format csv 2>&1 | tail -1 | cut -d, -f16)
[ "$v" = "nan" ] && pass "compare --measured FILE --no-l2" || fail "compare --no-l2 last: got '$v'"

# ---- compare: extra trailing fields, a duplicate last column, CR inside a line ----
# compare_input.csv has CRLF line ends: fields appended after them must still count
CI=analysis/measured/h200/compare_input.csv
{ head -1 "$CI"; sed -n 2p "$CI" | sed 's/$/,extra/'; } > "$T/cc_x1.csv"
expect_msg "compare: 18-field header, row + ',extra' (CRLF)" "cc_x1.csv:2: 19 fields, the header has 18" -- compare --measured "$T/cc_x1.csv"
{ head -1 "$CI"; sed -n 2p "$CI" | sed 's/$/,a,b/'; } > "$T/cc_x2.csv"
expect_msg "compare: 18-field header, row + ',a,b' (CRLF)" "cc_x2.csv:2: 20 fields, the header has 18" -- compare --measured "$T/cc_x2.csv"
{ head -2 "$CI" | tr -d '\r' | sed '2s/$/,extra/'; } > "$T/cc_x3.csv"
expect_msg "compare: 18-field header, row + ',extra' (LF)" "cc_x3.csv:2: 19 fields, the header has 18" -- compare --measured "$T/cc_x3.csv"
{ head -1 "$CI" | sed 's/$/,d/'; sed -n 2p "$CI" | sed 's/$/,64/'; } > "$T/cc_xd.csv"
expect_msg "compare: header '...,l2_write_bytes,d' (d twice, last)" "cc_xd.csv:1: column 'd' appears twice in the header (columns 7 and 19)" -- compare --measured "$T/cc_xd.csv"
printf 'kernel,B,H,N_q,d\nv3,1\r,1,1024,64\n' > "$T/cc_cr.csv"
expect_msg "compare: carriage return inside a row" "cc_cr.csv:2: column B holds a carriage return" -- compare --measured "$T/cc_cr.csv"
printf 'kernel,B,H\r,N_q,d\nv3,1,1,1024,64\n' > "$T/cc_crh.csv"
expect_msg "compare: carriage return inside the header" "cc_crh.csv:1: column 3 of the header holds a carriage return" -- compare --measured "$T/cc_crh.csv"
fasim_memo compare --measured "$CI" --hw h200 --format csv >/dev/null 2>&1 && pass "compare: CRLF compare_input.csv still read" \
    || fail "compare: CRLF compare_input.csv refused"

# ---- compare: ms > 0; an empty ms is the column left out ----
for ms in 0 0.0 -1 -0.5 0x1p-3 inf; do
    printf 'kernel,B,H,N_q,d,ms\nv3,1,1,1024,64,%s\n' "$ms" > "$T/cc_ms.csv"
    expect_msg "compare: ms = $ms names the range" "cc_ms.csv:2: column ms = '$ms' must be a finite number > 0" -- compare --measured "$T/cc_ms.csv"
done
printf 'kernel,B,H,N_q,d,ms\nv3,1,1,1024,64,\n' > "$T/cc_msempty.csv"
printf 'kernel,B,H,N_q,d\nv3,1,1,1024,64\n' > "$T/cc_msnone.csv"
a=$("$FASIM" compare --measured "$T/cc_msempty.csv" | tail -n +2)
b=$("$FASIM" compare --measured "$T/cc_msnone.csv" | tail -n +2)
[ -n "$a" ] && [ "$a" = "$b" ] && pass "compare: empty ms prints as no ms column (table)" || fail "compare empty ms: '$a' vs '$b'"
echo "$a" | grep -qiE 'nan|inf' && fail "compare table prints nan/inf: $a" || pass "compare table: no nan or inf"
# the last two columns are busiest and bound
v=$(echo "$a" | sed -n 2p | awk '{ print $(NF - 3), $(NF - 2) }')
[ "$v" = "- -" ] && pass "compare table: missing meas ms and ratio print '-'" || fail "compare table placeholder: '$v'"
a=$("$FASIM" compare --measured "$T/cc_msempty.csv" --format csv | tail -1 | cut -d, -f19)
b=$("$FASIM" compare --measured "$T/cc_msnone.csv" --format csv | tail -1 | cut -d, -f19)
[ "$a" = "nan" ] && [ "$b" = "nan" ] && pass "compare csv: empty or absent ms is nan" || fail "compare csv ms: '$a' '$b'"
"$FASIM" compare --measured "$T/cc_msempty.csv" --format json | jq -e '.[0].meas_ms == null' >/dev/null \
    && pass "compare json: empty ms is null" || fail "compare json empty ms"
# a measured byte count of 0 is allowed, but gives no ratio
printf 'kernel,B,H,N_q,d,ms,dram_read_bytes,dram_write_bytes\nv3,1,1,1024,64,0.5,0,0\n' > "$T/cc_zero.csv"
v=$("$FASIM" compare --measured "$T/cc_zero.csv" | tail -1)
echo "$v" | grep -qiE 'nan|inf' && fail "compare: 0 measured bytes print nan/inf: $v" || pass "compare: 0 measured bytes, no inf"

# ---- the numbers as printed: without the L2 model no blocks per SM ('-', not 0), a tiny time in
# significant digits (not 0.000) ----
printf 'kernel,B,H,N,d,ms\nv3,1,1,64,64,0.0000005\n' > "$T/tiny.csv"
"$FASIM" compare --measured "$T/tiny.csv" --no-l2 >"$T/out" 2>"$T/err" || fail "compare tiny --no-l2: $(cat "$T/err")"
sed -n 3p "$T/out" | grep -q " 128   64    - |" && pass "compare --no-l2: b/SM '-' (v3's 128 x 64 tiles at N = 64)" || fail "compare --no-l2 row: $(sed -n 3p "$T/out")"
sed -n 3p "$T/out" | grep -q "5e-07" && pass "compare: a time below 1 us in significant digits" || fail "compare tiny time: $(sed -n 3p "$T/out")"
"$FASIM" compare --measured "$T/tiny.csv" --no-l2 --format csv 2>/dev/null | tail -1 | cut -d, -f20 | grep -qx '' \
    && pass "compare --no-l2 csv: blocks_per_sm empty" || fail "compare --no-l2 csv row"

# ---- compare: the file itself (analysis/compare.c's fa_cmp_open and fa_cmp_next) ----
: > "$T/cc_empty.csv"
expect_msg "compare: an empty file" "measured file $T/cc_empty.csv is empty" -- compare --measured "$T/cc_empty.csv"
mkdir -p "$T/cc_dir"
expect_msg "compare: a directory" "measured file $T/cc_dir is a directory" -- compare --measured "$T/cc_dir"
expect_msg "compare: a missing file, the errno text named" "cannot open measured file $T/cc_none.csv: No such file or directory" \
    -- compare --measured "$T/cc_none.csv"
awk 'BEGIN { printf "kernel,B,H,N_q,d"; for (i = 0; i < 5000; i++) printf ",x"; print "" }' > "$T/cc_longh.csv"
expect_msg "compare: a header over 8190 characters" "cc_longh.csv:1: the header is longer than 8190 characters" \
    -- compare --measured "$T/cc_longh.csv"
awk 'BEGIN { print "kernel,B,H,N_q,d"; printf "v3,1,1,64,64"; for (i = 0; i < 9000; i++) printf " "; print "" }' > "$T/cc_longr.csv"
expect_msg "compare: a row over 8190 characters" "cc_longr.csv:2: the line is longer than 8190 characters" \
    -- compare --measured "$T/cc_longr.csv"
awk 'BEGIN { printf "kernel"; for (i = 0; i < 70; i++) printf ",c%d", i; print "" }' > "$T/cc_cols.csv"
expect_msg "compare: a header of 71 columns" "cc_cols.csv:1: the header has more than 64 columns" -- compare --measured "$T/cc_cols.csv"
{ echo 'kernel,B,H,N_q,d'; awk 'BEGIN { printf "v3"; for (i = 0; i < 69; i++) printf ",1"; print "" }'; } > "$T/cc_flds.csv"
expect_msg "compare: a row of 70 fields" "cc_flds.csv:2: over 64 fields, the header has 5" -- compare --measured "$T/cc_flds.csv"
printf 'kernel,B,H,N_q,d,dtype\nv3,1,1,64,64,fp9\n' > "$T/cc_dt.csv"
expect_msg "compare: an unknown dtype, the dtypes listed" "cc_dt.csv:2: dtype 'fp9' is not one of fp32, fp16, bf16, fp8_e4m3, fp8_e5m2" \
    -- compare --measured "$T/cc_dt.csv"
printf 'kernel,B,H,N_q,d,algo\nv3,1,1,64,64,flash9\n' > "$T/cc_al.csv"
expect_msg "compare: an unknown algo, the algorithms listed" "cc_al.csv:2: algo 'flash9' is not one of standard, flash1, flash2" \
    -- compare --measured "$T/cc_al.csv"
printf 'kernel,B,H,N_q,d\n# a comment\n\n' > "$T/cc_norows.csv"
expect_msg "compare: comments and blank lines only" "measured file $T/cc_norows.csv has a header but no rows" \
    -- compare --measured "$T/cc_norows.csv"
# RFC 4180 quoting: a quoted kernel name keeps its comma and quote, and is written back quoted
printf 'kernel,B,H,N,d,ms\n"v3,""x""",1,1,256,64,0.1\n' > "$T/cq.csv"
"$FASIM" compare --measured "$T/cq.csv" --format csv --no-l2 | tail -1 | grep -q '^"v3,""x""",1,1,1,256,' \
    && pass "compare: a quoted kernel name read and written as CSV" || fail "compare: quoted name: $("$FASIM" compare --measured "$T/cq.csv" --format csv --no-l2 2>&1 | tail -1)"
printf 'kernel,B,H,N,d,ms\n"v3"x,1,1,256,64,0.1\n' > "$T/cq2.csv"
expect_msg "compare: text after a closing quote" "cq2.csv:2: a quoted field is not closed, or text follows its closing quote" \
    -- compare --measured "$T/cq2.csv" --no-l2
