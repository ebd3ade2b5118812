# cli_test_compare_header.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail,
# expect_msg; $T, $FASIM).  `fasim compare --measured FILE` reads the header strictly: a column name it does not
# know (a typo such as 'causl', which used to drop the column and compute the row non-causal) is
# an error naming the column and listing the accepted names; a UTF-8 byte order mark before the
# header is skipped, not read as part of the first name.


# ---- unknown column names ----
printf 'kernel,B,H,N_q,d,causl\nv3,1,1,1024,64,1\n' > "$T/ch_causl.csv"
expect_msg "compare: typo 'causl' refused" "ch_causl.csv:1: unknown column 'causl' (column 6 of the header)" \
    -- compare --measured "$T/ch_causl.csv" --no-l2
grep -qF "the accepted columns are kernel, B or batch, H or heads, H_kv or kv_heads, N_q or N or seqlen_q or seqlen, N_k or seqlen_k, d or headdim, d_v, causal, dtype, algo, block_r, block_c, blocks_per_sm, ms or time_ms, dram_read_bytes or dram__bytes_read.sum, dram_write_bytes or dram__bytes_write.sum, l2_read_bytes or l1tex__m_xbar2l1tex_read_bytes.sum, l2_write_bytes or l1tex__m_l1tex2xbar_write_bytes.sum" "$T/err" \
    && pass "compare: unknown column: every accepted name listed" || fail "compare: accepted names: $(cat "$T/err")"
printf 'kernel,B,H,N_q,d,dram_read_byte,dram_write_bytes\nv3,1,1,1024,64,100,100\n' > "$T/ch_dram.csv"
expect_msg "compare: 'dram_read_byte' refused" "ch_dram.csv:1: unknown column 'dram_read_byte' (column 6 of the header)" \
    -- compare --measured "$T/ch_dram.csv" --no-l2
printf 'kernel,B,H,N_q,d,Causal\nv3,1,1,1024,64,1\n' > "$T/ch_case.csv"
expect_msg "compare: names are case-sensitive ('Causal')" "unknown column 'Causal'" -- compare --measured "$T/ch_case.csv" --no-l2
printf 'kernel, B,H,N_q,d\nv3,1,1,1024,64\n' > "$T/ch_space.csv"
expect_msg "compare: ' B' (a space) is not B" "unknown column ' B' (column 2 of the header)" -- compare --measured "$T/ch_space.csv" --no-l2
printf 'kernel,B,H,N_q,d,notes\nv3,1,1,1024,64,\n' > "$T/ch_notes.csv"
expect_msg "compare: an extra metric column is refused, even empty" "unknown column 'notes'" -- compare --measured "$T/ch_notes.csv" --no-l2
# a typo of a required column names the typo, not "the header needs ..."
printf 'kernal,B,H,N_q,d\nv3,1,1,1024,64\n' > "$T/ch_kernal.csv"
expect_msg "compare: typo of a required column" "unknown column 'kernal'" -- compare --measured "$T/ch_kernal.csv" --no-l2
# the aliases and the Nsight Compute names are still accepted
printf 'kernel,batch,heads,seqlen,headdim,time_ms,dram__bytes_read.sum,dram__bytes_write.sum\nv3,1,1,1024,64,0.5,100,100\n' > "$T/ch_alias.csv"
"$FASIM" compare --measured "$T/ch_alias.csv" --no-l2 --format csv > "$T/out" 2>"$T/err" \
    && [ "$(tail -1 "$T/out" | cut -d, -f5,17,19)" = "1024,200,0.5" ] \
    && pass "compare: aliases and Nsight Compute names accepted" || fail "compare aliases: $(cat "$T/out" "$T/err")"

# ---- a UTF-8 byte order mark before the header ----
printf '\357\273\277kernel,B,H,N_q,d,causal\r\nv3,1,1,1024,64,1\r\n' > "$T/ch_bom.csv"
printf 'kernel,B,H,N_q,d,causal\nv3,1,1,1024,64,1\n' > "$T/ch_nobom.csv"
a=$("$FASIM" compare --measured "$T/ch_bom.csv" --no-l2 --format csv 2>"$T/err")
rc=$?
b=$("$FASIM" compare --measured "$T/ch_nobom.csv" --no-l2 --format csv 2>&1)
[ "$rc" -eq 0 ] && [ -n "$a" ] && [ "$a" = "$b" ] && pass "compare: UTF-8 BOM (CRLF file) skipped: same rows as without" \
    || fail "compare BOM: rc $rc, '$a' vs '$b' ($(cat "$T/err"))"
[ "$(echo "$a" | tail -1 | cut -d, -f1,9)" = "v3,1" ] && pass "compare: BOM file: kernel and causal read" \
    || fail "compare BOM row: $a"
printf '\357\273\277"kernel",B,H,N_q,d\nv3,1,1,1024,64\n' > "$T/ch_bomq.csv"
"$FASIM" compare --measured "$T/ch_bomq.csv" --no-l2 >/dev/null 2>"$T/err" && pass "compare: BOM before a quoted name" \
    || fail "compare BOM quoted: $(cat "$T/err")"
# a BOM is skipped once, at the start only: a second one is part of a name, named as such
printf '\357\273\277\357\273\277kernel,B,H,N_q,d\nv3,1,1,1024,64\n' > "$T/ch_bom2.csv"
expect_msg "compare: two BOMs: the second is refused" "ch_bom2.csv:1: unknown column" -- compare --measured "$T/ch_bom2.csv" --no-l2
printf 'kernel,\357\273\277B,H,N_q,d\nv3,1,1,1024,64\n' > "$T/ch_bommid.csv"
expect_msg "compare: BOM in the middle of the header is refused" "(column 2 of the header)" -- compare --measured "$T/ch_bommid.csv" --no-l2

# ---- the shipped input still loads (its header names only accepted columns) ----
CH_CI=analysis/measured/h200/compare_input.csv
"$FASIM" compare --measured "$CH_CI" --hw h200 --no-l2 --format csv > "$T/out" 2>"$T/err" \
    && [ "$(wc -l < "$T/out")" -eq 19 ] && pass "compare: shipped compare_input.csv header accepted" \
    || fail "compare: shipped compare_input.csv: $(cat "$T/err")"
