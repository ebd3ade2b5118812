# cli_test_reader17.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail; $T, $FASIM).
# The seventeenth fresh reading (issue 18): a split-KV forward's HBM peak holds its partials; the
# report's tile note says when a sequence shorter than a tile clamps it; docs/results.md's summary
# carries the v5-backward figures the README quotes.
R17_ROOT=$(dirname "$0")/..

# ---- 1: hbm_peak_bytes of the split-KV forward (default shape: B = H = 1, N = 1024, d = 64, fp16,
# S = 4 splits): Q K V O (4 x 131072) + LSE (4096) + O_part (4 x 1024 x 4 x 64 = 1048576) +
# LSE_part (4 x 1024 x 4 = 16384) = 1593344 B; the same pass unsplit (--block-r/--block-c) 528384 B ----
r17_split=$("$FASIM" io --algo flash2 --format json | sed -n 's/.*"hbm_peak_bytes": \([0-9]*\).*/\1/p')
r17_plain=$("$FASIM" io --algo flash2 --block-r 128 --block-c 128 --format json | sed -n 's/.*"hbm_peak_bytes": \([0-9]*\).*/\1/p')
r17_csv=$("$FASIM" io --algo flash2 --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "hbm_peak_bytes") c = i } NR == 2 { print $c }')
[ "$r17_split" = 1593344 ] && [ "$r17_plain" = 528384 ] && [ "$r17_csv" = 1593344 ] \
    && grep -q "4·B·H·N_q·S·(d_v + 1) bytes" "$R17_ROOT/docs/io-model-backward.md" \
    && pass "reader17: the split-KV forward's hbm_peak_bytes holds O_part and LSE_part (1593344 B; unsplit 528384 B)" \
    || fail "reader17: hbm_peak_bytes split '$r17_split' csv '$r17_csv' plain '$r17_plain'"

# ---- 2: the report's B_r, B_c note at N shorter than the tiles ----
"$FASIM" report --seqlen 100 --model "$R17_ROOT/analysis/models/gpt2-medium.json" --no-plots --out-dir "$T/r17_r100" > "$T/r17_r100.out" 2>&1
"$FASIM" report --seqlen 300 --model "$R17_ROOT/analysis/models/gpt2-medium.json" --no-plots --out-dir "$T/r17_r300" > "$T/r17_r300.out" 2>&1
r17_tiles=$(awk '$1 == "H200-SXM" && $3 == "eager" { e = $4 "x" $5 } $1 == "flash1" && $2 == "fa1" { f = $3 "x" $4 } END { print e, f }' "$T/r17_r100.out")
tr '\n' ' ' < "$T/r17_r100.out" | tr -s ' ' | grep -qF "At N = 100 some tiles are longer than the sequence: a kernel allocates and computes its whole tile (the B_r and B_c the table shows, its shared memory and occupancy), while the counts move only the 100 rows and keys there are (docs/time-model.md, section 2)" \
    && [ "$r17_tiles" = "128x128 16x128" ] && ! grep -q "longer than the sequence" "$T/r17_r300.out" \
    && pass "reader17: at N = 100 the report says its kernels run their whole tiles (eager 128x128, fa1 16x128: FlashAttention-1's kernel for N_k <= 128) and the counts the 100 rows; at N = 300 it says nothing" \
    || fail "reader17: the tile-clamp note: tiles '$r17_tiles'"

# ---- 3: the README's v5-backward figures are in docs/results.md's summary ----
grep -q "s11_final_ratios.txt: d = 128 1.020–1.167, d = 64" "$R17_ROOT/README.md" \
    && sed -n '/In one paragraph/,/^## /p' "$R17_ROOT/docs/results.md" | tr '\n' ' ' | grep -qF "**1.020–1.167× at d = 128 and 1.061–1.232× at d = 64**, its deterministic mode 0.86–1.00× of it" \
    && pass "reader17: the README's v5-backward figures (1.020-1.167, 1.061-1.232, 0.86-1.00) stand in results.md's summary" \
    || fail "reader17: README and results.md's summary disagree on the v5 backward"

# ---- 1b: the footprint table names the partials where they set the peak, and only there ----
"$FASIM" io --algo flash2 --pass fwdbwd > "$T/r17_fp1" 2>&1
"$FASIM" io --algo flash2 --pass fwdbwd --batch 8 --heads 16 --seqlen 4096 > "$T/r17_fp2" 2>&1
grep -qF "flash2        516 KiB /    1.52 MiB   (Q, K, V, O and LSE; the peak: the split-KV forward's fp32 partials O_part, LSE_part beside them)" "$T/r17_fp1" \
    && grep -qF "flash2        258 MiB /     642 MiB   (Q, K, V, O and LSE)" "$T/r17_fp2" \
    && pass "reader17: the footprint table says the split-KV partials set flash2's peak (1.52 MiB), not where the grid is unsplit (642 MiB)" \
    || fail "reader17: footprint table: $(grep '^flash2 ' "$T/r17_fp1" | tail -1)"
