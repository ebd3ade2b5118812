# cli_test_report.sh -- `fasim report`: a --hw given twice is refused (each table would be
# printed twice); --help says what --quiet does; an output directory it cannot write, or a
# directory where one of its files goes, is exit 2 and leaves the old files as they were.
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_exit, expect_msg; $T,
# $FASIM).

expect_msg "report --hw a100 --hw a100: the repeated --hw named" "--hw a100 given twice" \
    -- report --hw a100 --hw a100 --out-dir "$T/o_rep2" --no-plots
[ ! -e "$T/o_rep2" ] && pass "refused report creates no directory" || fail "refused report created $T/o_rep2"

"$FASIM" report --help | grep -q -- "--quiet  *nothing on stdout" && pass "report --help: --quiet explained" \
    || fail "report --help: --quiet not explained"

# ---- an output directory that cannot be written: exit 2 before any work ----
echo "a file" > "$T/rp_file"
expect_exit 2 "report --out-dir under a file" -- report --out-dir "$T/rp_file/sub" --no-plots
[ "$(cat "$T/rp_file")" = "a file" ] && pass "report: the file in the way is untouched" || fail "report changed the file in the way"

# ---- a directory where an output file goes: exit 2, nothing written ----
mkdir -p "$T/o_rp/decode.csv"
echo "keep me" > "$T/o_rp/report.csv"
expect_exit 2 "report: decode.csv is a directory" -- report --out-dir "$T/o_rp"
[ "$(find "$T/o_rp" ! -type d)" = "$T/o_rp/report.csv" ] && [ "$(cat "$T/o_rp/report.csv")" = "keep me" ] \
    && pass "failed report writes no file and keeps the old report.csv" || fail "failed report left: $(find "$T/o_rp" ! -type d)"

# ---- the tables explain themselves (issue 18) ----
if "$FASIM" report --no-plots --out-dir "$T/o_rnotes" > "$T/rn_out" 2>"$T/err"; then
    oneline "$T/rn_out" | grep -qF "the causal mask and the window are applied to S but skip no tile" \
        && pass "report: the standard row's masks said to skip no tile" || fail "report: no note on standard's masks"
    grep -qF "flash2 accumulates dQ in fp32 in HBM" "$T/rn_out" && grep -qF "(128 x 128, T_c = 8)" "$T/rn_out" \
        && pass "report: the training table says why flash1 moves fewer bytes than flash2" || fail "report: no note on flash1 < flash2 bytes"
    grep -qF "The split gains rest on the wave model's assumption that a thread block gets 1/132 of the DRAM rate (the" "$T/rn_out" \
        && pass "report: the decode table names the wave model's assumption" || fail "report: no wave-model note"
    grep -qF "c: causal" "$T/rn_out" && pass "report: the papers table's c column explained" || fail "report: c column unexplained"
else
    fail "report notes: $(cat "$T/err")"
fi

# ---- what a fresh reader asked (issue 18): fa1's bound is the grid, as report.csv says; standard's
# rows that cannot fit the GPU say so; every kernels table names its GPUs; a window lowers standard's
# TFLOP/s (useful work), never raises it ----
"$FASIM" report --no-plots --out-dir "$T/r_fresh" >"$T/r_fresh.txt" 2>&1
grep -q "^H200-SXM        standard .*out of memory: .* live of 140.4 GiB$" "$T/r_fresh.txt" \
    && pass "report: a standard row past the GPU's memory says out of memory" || fail "report: no out-of-memory note"
awk '/== meta-llama\/Meta-Llama-3-8B/{f=1} f && /flash1 +fa1/{print $NF; exit}' "$T/r_fresh.txt" | grep -qx grid \
    && pass "report: Llama-3-8B's fa1 row is bound by the grid (32 blocks on 132 SMs)" || fail "report: fa1's bound is not grid"
awk '/^== kernels: google\/gemma-2-9b/{f=1; next} f && /^$/{exit} f' "$T/r_fresh.txt" | grep -c "^H[12]00-SXM\|^A100" | grep -qx 3 \
    && pass "report: gemma-2-9b's kernels table names all three GPUs" || fail "report: gemma-2-9b's kernels table lacks a GPU label"
mis=$(awk '/== mistralai\/Mistral-7B/{f=1} f && /standard +eager/{print $14; exit}' "$T/r_fresh.txt")
mix=$(awk '/== mistralai\/Mixtral-8x7B/{f=1} f && /standard +eager/{print $14; exit}' "$T/r_fresh.txt")
awk -v a="$mis" -v b="$mix" 'BEGIN { exit !(a + 0 < b + 0) }' \
    && pass "report: standard's TFLOP/s with Mistral's window ($mis) below Mixtral's full causal ($mix)" \
    || fail "report: windowed standard TFLOP/s $mis not below $mix"

# ---- the papers' GB and misses, the decode table's S and +part. columns (issue 18) ----
if "$FASIM" report --no-plots --out-dir "$T/o_rnotes2" > "$T/rn2_out" 2>"$T/err"; then
    grep -qF "(GB as the papers print it: 10^9 bytes, not the GiB = 2^30 of the tables above" "$T/rn2_out" \
        && pass "report: the papers table says GB = 10^9 bytes" || fail "report: the papers' GB unexplained"
    grep -qF "The misses and why: docs/time-model.md, \"The papers," "$T/rn2_out" \
        && grep -qF "its profile takes the block shape Nsight Compute shows" "$T/rn2_out" && grep -qF "FlashAttention-1 at long N (the fa1 profile runs one" "$T/rn2_out" \
        && pass "report: the papers' misses pointed to docs/time-model.md" || fail "report: the papers' misses unexplained"
    grep -q "^### The papers, reproduced" "$(dirname "$0")/../docs/time-model.md" && pass "report: docs/time-model.md has the section it points to" \
        || fail "report: docs/time-model.md lacks 'The papers, reproduced'"
    grep -qF "(S: the number of splits of the KV sequence" "$T/rn2_out" && grep -qF " +part.: the partial outputs O_part and LSE_part written by the S splits" "$T/rn2_out" \
        && pass "report: the decode table's S and +part. columns explained" || fail "report: S, +part. unexplained"
else
    fail "report notes 2: $(cat "$T/err")"
fi

# ---- README names how many model configs the report covers (issue 18) ----
rm_n=$(ls "$(dirname "$0")"/../analysis/models/*.json | wc -l)
grep -qF "every model config in analysis/models/ ($rm_n:" "$(dirname "$0")/../README.md" \
    && pass "README: the report covers every config in analysis/models/ ($rm_n)" || fail "README: the report's models not $rm_n configs"

# ---- the fresh reader's pass of h18 (issue 18): the FLOPs columns agree with fasim io, the window
# costs no FLOPs at N = w, the notes define scale, softcap and TFLOP/s, flash2's memory peak ----
# the long-context table's N = 4096 = w row: full and windowed FLOPs equal (they were 141.7 G
# against 143.7 G: the closed form's matmul FLOPs beside a run's matmul + softmax FLOPs)
awk '/^== long context:/{f=1; next} f && $1 == 4096 {print $7, $8, $9, $10; exit}' "$T/r_fresh.txt" > "$T/lc4k"
read -r lc_f lc_fu lc_w lc_wu < "$T/lc4k"
[ -n "$lc_f" ] && [ "$lc_f $lc_fu" = "$lc_w $lc_wu" ] && pass "report: long context at N = w = 4096: full FLOPs = window FLOPs ($lc_f $lc_fu)" \
    || fail "report: long context at N = 4096: full '$lc_f $lc_fu' vs window '$lc_w $lc_wu'"
grep -qF "(FLOPs: the matmul FLOPs (Q K^T and P V, FMA = 2) of the tiles flash2 visits" "$T/r_fresh.txt" \
    && grep -qF "up to N = w = 4096 the window drops no key, so both agree" "$T/r_fresh.txt" \
    && pass "report: the long-context table says what its FLOPs are" || fail "report: long-context FLOPs unexplained"
# the training table's matmul FLOPs are fasim io's flops_matmul for the same pass and kernels
tr_io=$("$FASIM" io --pass fwdbwd --batch 64 --heads 16 --seqlen 1024 --headdim 64 --causal --hw h200 --algo flash2 \
    --format csv | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "flops_matmul") c = i} NR == 2 {printf "%.4g G\n", $c / 1e9}')
tr_rep=$(awk '/^== training:/{f=1} f && $1 == "flash2" {print $9, $10; exit}' "$T/r_fresh.txt")
[ -n "$tr_rep" ] && [ "$tr_rep" = "$tr_io" ] && pass "report: training flash2 matmul FLOPs = fasim io's flops_matmul ($tr_rep)" \
    || fail "report: training flash2 matmul FLOPs '$tr_rep', fasim io '$tr_io'"
grep -q "^algo .* matmul FLOPs   FLOP/B " "$T/r_fresh.txt" && grep -qF "FLOP/B = matmul" "$T/r_fresh.txt" \
    && pass "report: the training table names its FLOPs matmul and defines FLOP/B" || fail "report: training FLOPs unnamed"
grep -qF " HBM peak: the largest HBM footprint of the step" "$T/r_fresh.txt" \
    && pass "report: the training table's HBM peak defined" || fail "report: HBM peak undefined"
oneline "$T/r_fresh.txt" > "$T/r_fresh1.txt"
grep -qF " scale: the softmax scale Transformers uses, S = scale Q K^T, and the config key it comes from:" "$T/r_fresh1.txt" \
    && grep -qF "each score becomes C tanh(S / C) before the softmax; it moves no byte," "$T/r_fresh1.txt" \
    && grep -qF "and the time model leaves its tanh out (docs/time-model.md, section 4)" "$T/r_fresh1.txt" \
    && pass "report: the model tables' note defines scale and softcap" || fail "report: scale, softcap undefined"
grep -qF "softcap C (Gemma-2's" "$T/r_fresh.txt" && grep -qF "Score modifiers are not in the table: a softcap C" \
    "$(dirname "$0")/../docs/time-model.md" && pass "report: docs/time-model.md says the softcap is not timed" \
    || fail "report: the softcap's time undocumented"
grep -qF " TFLOP/s: the FlashAttention-2 convention's FLOPs of the shape," "$T/r_fresh1.txt" \
    && grep -qF " 2 N_q N_k (d + d_v) per head in the forward (the backward 2.5x that), halved by the causal mask" "$T/r_fresh1.txt" \
    && pass "report: the TFLOP/s column's FLOPs defined" || fail "report: TFLOP/s's FLOPs undefined"
# the TFLOP/s definition holds: Llama-3-8B on the H200, flash2: 2 N^2 (d + d_v) H / 2 / time
l3=$(awk '/^== meta-llama\/Meta-Llama-3-8B/{f=1} f && /flash2 +fa2/ {n++} f && n == 3 {print $10, $11, $13; exit}' "$T/r_fresh.txt")
echo "$l3" | awk '{t = $1 * ($2 == "ms" ? 1e-3 : $2 == "us" ? 1e-6 : 1); w = 2 * 8192 * 8192 * 256 * 32 / 2;
    r = w / t / 1e12; exit !(r / $3 > 0.995 && r / $3 < 1.005)}' \
    && pass "report: Llama-3-8B H200 flash2 TFLOP/s = 2 N^2 (d + d_v) H / 2 / time ($l3)" \
    || fail "report: TFLOP/s not the note's definition: $l3"
grep -qF " flash1's because its backward holds dQ in an fp32 accumulator, 4 N d bytes a head, beside dQ" "$T/r_fresh.txt" \
    && pass "report: the memory table says why flash2's peak is above flash1's" || fail "report: flash2 > flash1 peak unexplained"
# the papers' standard-attention rows: the note's ranges are papers.csv's (causal up to 1.8, their
# cause named; without a mask down to 0.67), and docs/time-model.md has the bullet it points to
if [ -s "$T/r_fresh/papers.csv" ]; then
    awk -F, 'NR > 1 && ($4 == "Standard attention" || $4 == "PyTorch") {
        if ($8 == 1) { if (clo == "" || $13 < clo) clo = $13; if ($13 > chi) chi = $13 }
        else if (flo == "" || $13 < flo) flo = $13 }
        END { exit !(clo >= 0.955 && clo < 0.97 && chi > 1.75 && chi <= 1.8 && flo >= 0.665 && flo < 0.675) }' "$T/r_fresh/papers.csv" \
        && grep -qF " attention causal (up to 1.8: the eager profile gives" "$T/r_fresh.txt" \
        && grep -qF "standard without a mask at long N (0.67-0.8, not explained" "$T/r_fresh.txt" \
        && grep -qF "Causal 0.96-1.78 (Figure 5: 1.42-1.78; Figure 4: 0.96-1.33)" "$(dirname "$0")/../docs/time-model.md" \
        && pass "report: the papers' standard-attention misses named, their ranges papers.csv's" \
        || fail "report: the papers' standard-attention rows: note or ranges differ from papers.csv"
else
    fail "report: no papers.csv under $T/r_fresh"
fi
# the eager profile's causal time is its full time (the cause the note names)
eg_f=$("$FASIM" io --algo standard --profile eager --hw h100 --batch 2 --heads 32 --seqlen 8192 --headdim 64 --dtype bf16 --format csv | awk -F, 'NR==1{for(i=1;i<=NF;i++) if ($i == "time_s") c = i} NR==2{print $c}')
eg_c=$("$FASIM" io --algo standard --profile eager --hw h100 --batch 2 --heads 32 --seqlen 8192 --headdim 64 --dtype bf16 --causal --format csv | awk -F, 'NR==1{for(i=1;i<=NF;i++) if ($i == "time_s") c = i} NR==2{print $c}')
[ -n "$eg_f" ] && [ "$eg_f" = "$eg_c" ] && pass "eager: the causal mask takes no time in the profile ($eg_f s both), as the papers' note says" \
    || fail "eager: causal $eg_c s vs full $eg_f s: the papers' note on standard's causal rows is stale"
# FlashAttention-1's rows at N <= 1k: the note's 1.4-1.8 is papers.csv's range, and the docs say it
r_f1s=$(awk -F, 'NR > 1 && $4 == "FlashAttention" && $2 == "Figure 4" && $9 <= 1024 {
    if (lo == "" || $13 < lo) lo = $13; if ($13 > hi) hi = $13 } END { printf "%.2f-%.2f", lo, hi }' "$T/r_fresh/papers.csv")
[ "$r_f1s" = "1.28-1.71" ] && grep -qF "d = 64 0.74 at 4k, 0.68 at 8k, 0.34 at 16k) and at N <= 1k ($r_f1s, not explained yet)" "$T/r_fresh.txt" \
    && grep -qF "N <= 1k the model is too fast, $r_f1s" "$(dirname "$0")/../docs/time-model.md" \
    && pass "report: FlashAttention-1's short-N miss named with papers.csv's range" || fail "report: FlashAttention-1 at N <= 1k: note or range differ"
# FlashAttention-4's Figure 4 on the B200 (issue 20): the report prints each FA4 series of
# papers.csv's b200 rows as one line, every N's published -> fasim (ratio), tagged a prediction;
# the block says no B200 was here; docs/results.md's table holds the same numbers, rounded
fa4_hdr="== FlashAttention-4 (arXiv 2603.05451) on the B200: every fasim number a prediction (no B200 here:"
awk -F, 'NR > 1 && $3 == "b200" { n++; if ($4 != "FA4" || $5 != "fa4" || $2 != "Figure 4" || $6 != "fwd" || $7 != 128) bad++ }
    END { exit !(n == 12 && !bad) }' "$T/r_fresh/papers.csv" \
    && pass "report: papers.csv has FA4's 12 Figure 4 rows on b200 (fa4, fwd, d = 128), no other b200 row" \
    || fail "report: papers.csv's b200 rows: $(grep -c ',b200,' "$T/r_fresh/papers.csv")"
for fa4_c in 0 1; do
    fa4_want=$(awk -F, -v c="$fa4_c" 'NR > 1 && $3 == "b200" && $8 == c {
        if (!n++) printf "%-14s %-6s %-18.18s %-6s %4d %2d  %d: %.4g -> %.4g %s (%.2f)", $2, $3, $4, $6, $7, $8, $9, $11, $12, $10, $13
        else printf "  %d: %.4g -> %.4g (%.2f)", $9, $11, $12, $13 }
        END { if (n == 6) printf "  [prediction: no B200 here]"; else print "only " n " rows" }' "$T/r_fresh/papers.csv")
    grep -qxF -- "$fa4_want" "$T/r_fresh.txt" \
        && pass "report: FA4 causal $fa4_c on b200: six N, published -> fasim (ratio), tagged a prediction" \
        || fail "report: FA4 causal $fa4_c line not printed: '$fa4_want'"
done
grep -qxF -- "$fa4_hdr" "$T/r_fresh.txt" && pass "report: the FlashAttention-4 block says every number is a prediction" \
    || fail "report: no FlashAttention-4 prediction header"
fa4_doc=$(awk -F, 'NR > 1 && $3 == "b200" { k = $9 / 1024 "k"; p[k, $8] = $11; f[k, $8] = sprintf("%.0f", $12); r[k, $8] = sprintf("%.2f", $13); ks[k] = 1 }
    END { for (k in ks) printf "| %s | %s | %s | %s | %s | %s | %s | prediction (no B200 here) |\n", k, p[k, 0], f[k, 0], r[k, 0], p[k, 1], f[k, 1], r[k, 1] }' \
    "$T/r_fresh/papers.csv")
fa4_miss=$(echo "$fa4_doc" | while IFS= read -r fa4_l; do grep -qxF -- "$fa4_l" "$(dirname "$0")/../docs/results.md" || echo "$fa4_l"; done)
[ "$(echo "$fa4_doc" | grep -c .)" -eq 6 ] && [ -z "$fa4_miss" ] \
    && pass "report: docs/results.md's FlashAttention-4 table is papers.csv's b200 rows" \
    || fail "report: docs/results.md's FlashAttention-4 table differs from papers.csv: $fa4_miss"
