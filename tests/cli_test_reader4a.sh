# cli_test_reader4a.sh -- issue 18, the fourth fresh reader (notes/reader4_findings.md, findings
# 1, 2, 6, 7, 8, 14, 15, 17, 18, 20, 23): every table of `fasim io` and `fasim explain` counts the
# same kernel, says which, and explains a byte figure that differs from another on its screen.
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip; $T, $FASIM), after
# cli_test_reader3.sh, whose report ($T/r3_rep) it reuses.

# run alone (tests/cli_one.sh: each file in its own copy of $T), make reader3's report here
[ -f "$T/r3_out" ] || "$FASIM" report --no-plots --out-dir "$T/r3_rep" > "$T/r3_out" 2>&1
R4_ROOT="$(dirname "$0")/.."
R4_CIT="$R4_ROOT/docs/citations.md"
# a column of one row of `fasim io --format csv` output: r4_col FILE ALGO COLUMN
r4_col() { awk -F, -v a="$2" -v k="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == a { print $c[k] }' "$1"; }

# ---- 1, 7: io and explain count FlashAttention-2's split-KV kernel on a small grid, and say so ----
# N = 4096, d = 64, one head: 64 row blocks of 64 < 0.8 x 2 x 132 SMs: S = 4 splits of 64 x 256 tiles.
# Q 4 x 4096 x 64 x 2 = 2097152, K = V = T_r N_k d e = 64 x 4096 x 64 x 2 = 33554432, O_part written
# and read 4 x 4096 x 64 x 4 = 4194304, LSE_part 4 x 4096 x 4 = 65536 each way, O 524288, LSE 16384:
# 78266368 B
"$FASIM" io --algo flash2 --seqlen 4096 --headdim 64 --format csv > "$T/r4_io.csv" 2>&1
"$FASIM" io --algo flash2 --seqlen 4096 --headdim 64 --breakdown > "$T/r4_io" 2>&1
"$FASIM" explain --algo flash2 --seqlen 4096 --headdim 64 > "$T/r4_ex" 2>&1
r4_t="$(r4_col "$T/r4_io.csv" flash2 block_r)x$(r4_col "$T/r4_io.csv" flash2 block_c) $(r4_col "$T/r4_io.csv" flash2 hbm_bytes) $(r4_col "$T/r4_io.csv" flash2 formula_match)"
[ "$r4_t" = "64x256 78266368 1" ] \
    && grep -q "^  B_r = 64, B_c = 256 (the fa2 profile's tile table, its split-KV kernel's)" "$T/r4_ex" \
    && grep -q "S = 4 splits, 64 x 256 tiles" "$T/r4_ex" \
    && grep -q "^  counted by the memory model: 78266368 B (74.64 MiB) -- equal to the sum" "$T/r4_ex" \
    && grep -q "^   forward kernel: tiles 64 x 256, .* (split-KV)" "$T/r4_ex" \
    && pass "reader4a: io and explain count the same split-KV kernel (64 x 256, S = 4, 78266368 B) and the time model times it" \
    || fail "reader4a: io ($r4_t) and explain ($(grep -E '^  (B_r|counted)' "$T/r4_ex" | tr '\n' ' ')) disagree"
grep -Eq "^flash2 +O_part +4194304 +4194304 " "$T/r4_io" && grep -Eq "^flash2 +LSE_part +65536 +65536 " "$T/r4_io" \
    && grep -Eq "^flash2 +Q +2097152 +0 " "$T/r4_io" && grep -Eq "^flash2 +O +0 +524288 " "$T/r4_io" \
    && grep -Eq "^    O_part   write  S\*N_q\*d_v\*4 +=  *4\*4096\*64\*4 +=  +4194304$" "$T/r4_ex" \
    && grep -Eq "^    Q        read   Q_rows\*d\*e +=  *16384\*64\*2 +=  +2097152$" "$T/r4_ex" \
    && pass "reader4a: --breakdown and explain's terms list O_part, LSE_part (written, read back) and Q once per chunk" \
    || fail "reader4a: split-KV tensors: $(grep -E '^flash2 +(Q|O|O_part|LSE_part) ' "$T/r4_io" | tr '\n' ' ')"
grep -q "^note: flash2 (fa2): FlashAttention-2's split-KV kernel: B\*H\*ceil(N_q/64) = 64 row blocks would not fill 0.8 x 2 x 132 SMs, so its rule splits each row block's T_c = 16 key tiles (64 x 256) in S = 4 chunks of 4;" "$T/r4_io" \
    && grep -q 'docs/io-model.md, "Split-KV"' "$T/r4_io" \
    && grep -q "^### Split-KV: FlashAttention-2's kernel on a small grid" "$R4_ROOT/docs/io-model.md" \
    && grep -q "bytes (74.64 MiB). The unsplit loop on the table's 128 × 128 tiles moves 34 619 392" "$R4_ROOT/docs/io-model.md" \
    && pass "reader4a: io says the split happened under its table, and docs/io-model.md derives the 78266368 B" \
    || fail "reader4a: no split-KV note under io's table, or no Split-KV section in docs/io-model.md"
# 7: N = 512: S = 2; written O 65536 + LSE 2048 + O_part 2 x 512 x 64 x 4 = 262144 + LSE_part 4096;
# DRAM est = the split kernel's compulsory bytes (Q, K, V once: 3 x 65536; the partials written:
# 266240; every re-read hits the L2 at one head) + the combine's (partials read 266240, O, LSE
# written 67584) = 796672
"$FASIM" io --seqlen 512 --algo flash2 --format csv > "$T/r4_512.csv" 2>&1
r4_w="$(r4_col "$T/r4_512.csv" flash2 hbm_write_bytes) $(r4_col "$T/r4_512.csv" flash2 dram_est_bytes) $(r4_col "$T/r4_512.csv" flash2 formula_match)"
r4_js=$("$FASIM" io --seqlen 512 --algo flash2 --format json | jq -r '.[0].time_model.kernels[0] | "\(.splits) \(.block_r)x\(.block_c)"')
[ "$r4_w" = "333824 796672 1" ] && [ "$r4_js" = "2 64x256" ] \
    && pass "reader4a: N = 512: HBM write (333824 B) and DRAM est (796672 B) hold the partials; JSON names S = 2" \
    || fail "reader4a: N = 512 split bytes: write/DRAM est/formula '$r4_w', json '$r4_js'"

# ---- 2: explain --pass fwdbwd on the profile's tiles of each pass, as io ----
"$FASIM" explain --pass fwdbwd --algo flash1 --seqlen 256 > "$T/r4_fb" 2>&1
r4_fb=$("$FASIM" io --pass fwdbwd --algo flash1 --seqlen 256 --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["hbm_bytes"] }')
"$FASIM" explain --pass fwdbwd --algo flash2 --seqlen 4096 --headdim 64 > "$T/r4_fb2" 2>&1
r4_fb2=$("$FASIM" io --pass fwdbwd --algo flash2 --seqlen 4096 --headdim 64 --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["hbm_bytes"] }')
[ "$r4_fb" = 532480 ] && grep -q "^  forward B_r = 16, B_c = 256; backward B_r = 16, B_c = 256 (the fa1 profile's tile table)" "$T/r4_fb" \
    && grep -q "^  counted by the memory model: 532480 B (520 KiB) -- equal to the sum" "$T/r4_fb" \
    && grep -q "^  forward B_r = 64, B_c = 256; backward B_r = 128, B_c = 128 (the fa2 profile's tile table)" "$T/r4_fb2" \
    && grep -q "^  counted by the memory model: $r4_fb2 B " "$T/r4_fb2" \
    && pass "reader4a: explain --pass fwdbwd takes each pass's profile tiles and counts io's bytes (flash1 532480 B, flash2 $r4_fb2 B)" \
    || fail "reader4a: explain fwdbwd: io $r4_fb / $r4_fb2, explain $(grep -E '^  (forward B_r|B_r|counted)' "$T/r4_fb" "$T/r4_fb2" | tr '\n' ' ')"
"$FASIM" io --pass fwdbwd --algo flash2 --seqlen 4096 --headdim 64 > "$T/r4_fbio" 2>&1
grep -q "^note: flash2: B_r, B_c, T_r, T_c above are the forward kernel's; the backward's are 128 x 128 (T_r = 32, T_c = 32)" "$T/r4_fbio" \
    && grep -Eq "^flash2 +fa2 split +64x256 " "$T/r4_fbio" && grep -Eq "^flash2 +fa2 bwd +128x128 " "$T/r4_fbio" \
    && pass "reader4a: io --pass fwdbwd says its tiles columns are the forward's, and the backward's tiles" \
    || fail "reader4a: io fwdbwd tiles note: $(grep '^note' "$T/r4_fbio")"

# ---- 6: --blocks paper: the note stands under the rows whose own buffers exceed M ----
"$FASIM" io --blocks paper > "$T/r4_pp" 2>&1
r4_pp=$(awk '/^(standard|flash1|flash2) / { a = $1 } /^  note: --blocks paper/ { print a }' "$T/r4_pp" | tr '\n' ' ')
r4_ov=$("$FASIM" io --blocks paper --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "%s=%s ", $1, $c["sram_overflow_bytes"] }')
# flash's buffers at 64 x 454, d = 64, fp16: Q_i 8192 + K_j, V_j 2 x 58112 + S 116224 + O 16384 + m, l 512 = 257536
[ "$r4_pp" = "flash1 flash2 " ] && [ "$r4_ov" = "standard=0 flash1=25088 flash2=25088 " ] \
    && grep -q "^  note: --blocks paper (B_r = 64, B_c = 454): flash1's buffers need 257536 B of SRAM, 25088 B (10.8%) more than M = 232448 B" "$T/r4_pp" \
    && pass "reader4a: the --blocks paper note is under flash1 and flash2 only (standard's 186.2 KiB fit M)" \
    || fail "reader4a: --blocks paper notes under '$r4_pp', overflow $r4_ov"

# ---- 8: explain --pass bwd: the backward's registers and its algorithm's lines ----
"$FASIM" explain --pass bwd --algo flash2 --seqlen 4096 > "$T/r4_bw" 2>&1
grep -q "(the kernel keeps S_ij, dP_ij, dK_j, dV_j, dQ_i, L_i, D_i in registers)" "$T/r4_bw" \
    && ! grep -q "keeps S, O, m, l\|Alg. 1 line 1" "$T/r4_bw" \
    && grep -q "FlashAttention-2 Alg. 2 as FlashAttention-2's three kernels" "$T/r4_bw" \
    && grep -q "loading Q_i, dO_i, L_i, D_i (line 9)" "$T/r4_bw" && grep -q "on every visit (line 15)" "$T/r4_bw" \
    && grep -q "(FlashAttention Alg. 4 line 2)" "$T/r4_bw" && grep -q "with B = B_c = 128;" "$T/r4_bw" \
    && grep -q "^| 9 | load Q_i, O_i, dO_i, dQ_i, L_i, D_i into SRAM |" "$R4_CIT" \
    && grep -q "^| 15 | load dQ_i from HBM, on chip dQ_i ← dQ_i + dS_i^(j) K_j, write it back to HBM |" "$R4_CIT" \
    && grep -q "^| 18 | write dK_j, dV_j to HBM |" "$R4_CIT" \
    && grep -q "^| 2 | set the block sizes B_c = ⌈M/4d⌉, B_r = min(⌈M/4d⌉, d) |" "$R4_CIT" \
    && pass "reader4a: explain --pass bwd lists the backward's register buffers and cites FA2 Alg. 2 (lines 9, 15, 18) and FA1 Alg. 4 line 2" \
    || fail "reader4a: explain bwd: $(grep -E 'registers|Alg\.' "$T/r4_bw" | tr '\n' ' ')"

# ---- 14: eager and math have no warps of their own, in io as in the report ----
"$FASIM" io --seqlen 1024 > "$T/r4_w" 2>&1
r4_wj=$("$FASIM" io --seqlen 1024 --format json | jq -r '[.[].time_model.kernels[0].warps] | map(tostring) | join(" ")')
grep -Eq "^standard +eager +128x128 +- +- +- +- " "$T/r4_w" && [ "$r4_wj" = "0 4 4" ] \
    && grep -q "^standard (eager): library GEMMs and separate kernels, no fused kernel: no warps, smem/blk, regs or blocks/SM of its own ('-')" "$T/r4_w" \
    && { [ ! -f "$T/r3_out" ] || oneline "$T/r3_out" | grep -qF "warps, smem/blk, regs or blocks/SM of its own ('-'; kernels.csv writes 0)"; } \
    && pass "reader4a: io prints '-' for eager's warps (JSON 0), as the report's kernels table (kernels.csv 0)" \
    || fail "reader4a: eager warps: $(grep '^standard  eager' "$T/r4_w"), json $r4_wj"

# ---- 15: the math profile's fp32 DRAM beside the bf16 count, explained ----
"$FASIM" io --algo standard --profile math --seqlen 4096 --heads 32 --causal --dtype bf16 > "$T/r4_m" 2>&1
grep -q '^note: standard (math): DRAM est 24.72 GiB is the math profile'"'"'s kernels (docs/time-model.md section 6, "Standard attention": SDPA'"'"'s math backend computes in fp32' "$T/r4_m" \
    && grep -q "HBM total 6.031 GiB counts the standard algorithm in bf16 (docs/io-model.md section 2)$" "$T/r4_m" \
    && grep -q '`math` computes in fp32 and moves' "$R4_ROOT/docs/time-model.md" \
    && ! grep -q "^note: standard (eager)" "$T/r4_w" \
    && pass "reader4a: math's DRAM est (24.72 GiB, fp32) beside the bf16 count (6.031 GiB) carries a note naming both derivations" \
    || fail "reader4a: math note: $(grep '^note' "$T/r4_m")"

# ---- 17, 18: the L2 model's concurrent blocks never exceed the grid; DRAM est vs the replay ----
"$FASIM" io --seqlen 1024 --heads 8 --batch 2 --headdim 128 --dtype bf16 --l2 --algo standard,flash1 > "$T/r4_l2" 2>&1
"$FASIM" io --seqlen 1024 --heads 8 --batch 2 --headdim 128 --dtype bf16 --l2 --algo standard,flash1 --format csv > "$T/r4_l2.csv" 2>&1
r4_d=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "%s %s %s;", $1, $c["dram_est_bytes"], $c["dram_read_bytes"] + $c["dram_write_bytes"] }' "$T/r4_l2.csv")
grep -q "^flash1    L2 model (60 MiB L2 in 2 partitions, 16 thread blocks at a time: the whole grid, under the 396 slots of 132 SMs)" "$T/r4_l2" \
    && grep -q "^note: two estimates of the same DRAM traffic, which differ: DRAM est (the time model's: standard, each kernel's bytes, docs/time-model.md section 6; flash, compulsory + re-reads x (1 - hit), hit = min(1, L2 / working set), section 7) and the L2 model's replay" "$T/r4_l2" \
    && grep -q "(docs/l2-model.md; fasim compare uses it where measured DRAM bytes exist): standard .* vs .*, flash1 .* vs " "$T/r4_l2" \
    && echo "$r4_d" | awk -F';' '{ for (i = 1; i < NF; i++) { split($i, x, " "); if (x[2] == x[3]) exit 1 } }' \
    && grep -q "the whole grid, under the S slots" "$R4_ROOT/docs/l2-model.md" \
    && pass "reader4a: --l2 runs flash1's 16 blocks of a 16-block grid, and explains DRAM est vs the replay ($r4_d)" \
    || fail "reader4a: L2 blocks/note: $(grep -E 'L2 model|^note' "$T/r4_l2" | tr '\n' ' ') ($r4_d)"

# ---- 20: explain derives windowed rows (--window, and --model with a sliding window) ----
# window 63,0 and causal, 64 x 64 tiles, N = 1024, d = 64: row block 0 visits its own tile, every
# other one two (its own and the previous): K_rows = 64 + 15 x 128 = 1984, so 131072 + 2 x 1984 x 128
# + 131072 + 4096 = 774144 B
r4_wio=$("$FASIM" io --algo flash2 --seqlen 1024 --window 63,0 --causal --block-r 64 --block-c 64 --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["hbm_bytes"] }')
"$FASIM" explain --algo flash2 --seqlen 1024 --window 63,0 --causal --block-r 64 --block-c 64 > "$T/r4_win" 2>&1
[ "$r4_wio" = 774144 ] && grep -q "^  = 1984 (instead of T_r\*N_k = 16384);$" "$T/r4_win" \
    && grep -q "^  Q_rows = query rows loaded (blocks that see a key) = 1024$" "$T/r4_win" \
    && grep -q "^  counted by the memory model: 774144 B (756 KiB) -- equal to the sum" "$T/r4_win" \
    && pass "reader4a: explain --window derives the windowed row (K_rows = 1984, 774144 B = io's)" \
    || fail "reader4a: explain --window: io $r4_wio, $(grep -E 'K_rows|= 1984|counted' "$T/r4_win" | tr '\n' ' ')"
r4_mis=$("$FASIM" io --model "$R4_ROOT/analysis/models/mistral-7b.json" --causal --seqlen 8192 --algo flash2 --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["hbm_bytes"] }')
r4_mwin=$("$FASIM" io --model "$R4_ROOT/analysis/models/mistral-7b.json" --causal --seqlen 8192 --window 4095,0 --algo flash2 --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["hbm_bytes"] }')
"$FASIM" explain --model "$R4_ROOT/analysis/models/mistral-7b.json" --causal --seqlen 8192 --algo flash2 > "$T/r4_mex" 2>&1
[ -n "$r4_mis" ] && [ "$r4_mis" = "$r4_mwin" ] && grep -q "causal (bottom-right), window (4095, 0)" "$T/r4_mex" \
    && grep -q "^note: --model .*mistral-7b.json: every layer attends to a 4096-token sliding window: counted with --window 4095,0, as fasim report does" "$T/r4_mex" \
    && grep -q "^  counted by the memory model: $r4_mis B " "$T/r4_mex" \
    && pass "reader4a: --model mistral-7b --causal keeps its 4096-token window in io and explain ($r4_mis B)" \
    || fail "reader4a: mistral window: io $r4_mis vs --window $r4_mwin; $(head -3 "$T/r4_mex" | tr '\n' ' ')"

# ---- 23: io --model counts an fp32-published model in bf16, as the report ----
"$FASIM" io --model "$R4_ROOT/analysis/models/gemma-2-9b.json" --causal --hw h200 --algo flash2 > "$T/r4_g" 2>&1
"$FASIM" io --model "$R4_ROOT/analysis/models/gemma-2-9b.json" --causal --hw h200 --algo flash2 --format csv > "$T/r4_g.csv" 2>&1
r4_g="$(r4_col "$T/r4_g.csv" flash2 dtype) $(r4_col "$T/r4_g.csv" flash2 profile) $(r4_col "$T/r4_g.csv" flash2 hbm_bytes)"
r4_grep=""
[ -f "$T/r3_rep/report.csv" ] && r4_grep=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["model"] == "gemma-2-9b" && $c["algo"] == "flash2" && $c["hw"] == "h200" && $c["mask"] !~ /window/ { print $c["dtype"] " " $c["profile"] " " $c["hbm_bytes"] }' "$T/r3_rep/report.csv")
case "$r4_g" in "bf16 fa2 "*) r4_gok=1 ;; *) r4_gok=0 ;; esac
[ "$r4_gok" = 1 ] && { [ -z "$r4_grep" ] || [ "$r4_grep" = "$r4_g" ]; } \
    && grep -q "^note: --model .*gemma-2-9b.json: the model is published in fp32; counted in bf16 as fasim report does" "$T/r4_g" \
    && grep -q "counted: a full-attention layer, as fasim report's kernels table (--window 4095,0 for a sliding one)" "$T/r4_g" \
    && ! grep -q "not one for fp32" "$T/r4_g" \
    && pass "reader4a: io --model gemma-2-9b counts bf16 on fa2 as the report does ($r4_g${r4_grep:+ = report.csv})" \
    || fail "reader4a: gemma-2-9b: io '$r4_g', report '$r4_grep': $(grep '^note' "$T/r4_g")"
