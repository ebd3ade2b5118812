# cli_test_reader.sh -- issue 18, the second fresh reader: what `make run`, `fasim io`,
# `fasim compare` and the help print explains itself.  Sourced by tests/cli_test.sh (tests/cli_lib.sh).

# every kernel profile key (the table's own list, as the refusal of an unknown key prints it) is
# in io's --help and in the README
rd_keys=$("$FASIM" io --profile nope 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ',')
"$FASIM" io --help > "$T/rd_help" 2>&1
rd_miss=""; rd_rmiss=""
for k in $rd_keys; do
    grep -Eq "(^| |,)$k(,|$| )" "$T/rd_help" || rd_miss="$rd_miss $k"
    grep -q -- "$k" "$(dirname "$0")/../README.md" || rd_rmiss="$rd_rmiss $k"
done
[ -n "$rd_keys" ] && [ -z "$rd_miss" ] && pass "reader: io --help lists every profile key ($(echo $rd_keys | wc -w))" \
    || fail "reader: profile keys missing from io --help:$rd_miss (keys: $rd_keys)"
[ -n "$rd_keys" ] && [ -z "$rd_rmiss" ] && pass "reader: README lists every profile key" \
    || fail "reader: profile keys missing from README:$rd_rmiss"
# b200 wherever the GPUs are listed, as a datasheet-only profile
for rd_c in io report compare sweep; do
    "$FASIM" $rd_c --help 2>&1 | grep -q "a100|h100|h200|b200" && pass "reader: $rd_c --help lists b200" \
        || fail "reader: $rd_c --help does not list b200"
done
grep -q "b200: datasheet" "$T/rd_help" && pass "reader: io --help says b200 is datasheet-only" \
    || fail "reader: io --help does not say b200 is datasheet-only"
for rd_f in README.md docs/conventions.md; do
    grep -q "a100|h100|h200|b200" "$(dirname "$0")/../$rd_f" && pass "reader: $rd_f lists b200" || fail "reader: $rd_f does not list b200"
done
# io on b200: rows with a kernel profile (fa1's, fa2's tiles) are not called the paper's model
if "$FASIM" io --hw b200 --seqlen 2048 --headdim 64 > "$T/rd_b200" 2>&1; then
    grep -q "rows without a kernel profile: the paper's" "$T/rd_b200" \
        && fail "reader: io --hw b200 calls its profile rows the paper's: $(grep model: "$T/rd_b200")" \
        || pass "reader: io --hw b200 does not call fa1's and fa2's rows the paper's model"
    grep -q "^model: flash1 (fa1), flash2 (fa2): counted with the kernel profile's tiles and placement, but not timed on B200-SXM" "$T/rd_b200" \
        && grep -q "^note: flash1: profile fa1 runs on mma.sync" "$T/rd_b200" \
        && pass "reader: io --hw b200 says fa1, fa2 are counted with their tiles and not timed, and why" \
        || fail "reader: io --hw b200's model lines: $(grep -E '^(model|note):' "$T/rd_b200" | tr '\n' '|')"
else
    fail "reader: io --hw b200: $(cat "$T/rd_b200")"
fi
# io says what its FLOPs and TFLOP/s count; the time model's source without 'lent' or '))'
"$FASIM" io --seqlen 1024 > "$T/rd_io" 2>&1
grep -q "^FLOPs: every FLOP counted, matmul (FMA = 2) and the softmax's" "$T/rd_io" \
    && grep -q "^TFLOP/s: the FlashAttention-2 convention's FLOPs of the shape / time: 2 N_q N_k (d + d_v) a head forward (4 N^2 d" "$T/rd_io" \
    && pass "reader: io says its FLOPs include the softmax and its TFLOP/s use the FA2 convention" \
    || fail "reader: io's FLOPs/TFLOP/s notes: $(grep -E '^(FLOPs|TFLOP)' "$T/rd_io")"
grep "^time model" "$T/rd_io" | grep -Eq "lent|\)\)" && fail "reader: io's time-model header: $(grep '^time model' "$T/rd_io")" \
    || pass "reader: io's time-model header has no 'lent' and no doubled parenthesis"
grep -Eq "^standard +eager +[0-9]+x[0-9]+ +- +- +- +- " "$T/rd_io" && pass "reader: io prints '-' for eager's warps, smem, regs, blocks/SM" \
    || fail "reader: io's eager row: $(grep '^standard  eager' "$T/rd_io")"
# compare: a legend of its columns, b/SM explained
fasim_memo compare --measured "$(dirname "$0")/../analysis/measured/h200/timemodel_input.csv" > "$T/rd_cmp" 2>&1
grep -q "^(columns: B batch, H heads (H/H_kv where fewer K/V heads serve them" "$T/rd_cmp" && oneline "$T/rd_cmp" | grep -qF "d head dim, c causal (1) or not (0), pass the pass" \
    && grep -q "b/SM the thread blocks per SM" "$T/rd_cmp" && grep -q "'-' where no replay ran" "$T/rd_cmp" \
    && pass "reader: compare defines its columns and b/SM's '-'" || fail "reader: compare's legend: $(head -4 "$T/rd_cmp")"
# the report's notes
if "$FASIM" report --no-plots --out-dir "$T/rd_rep" > "$T/rd_rep.txt" 2>&1; then
    tr '\n' ' ' < "$T/rd_rep.txt" | sed 's/  */ /g' > "$T/rd_flat"
    rd_has() { grep -qF -- "$2" "$T/rd_flat" && pass "reader: report $1" || fail "reader: report $1: '$2' not in the output"; }
    rd_has "says where cuDNN's tiles come from" "cuDNN's tiles are not published: its profile takes the block shape Nsight Compute shows"
    rd_has "says cuDNN's tiles differ from FlashAttention-3's at d = 64" "FlashAttention-3 itself runs 192 x 128 with 16 warps at d = 64"
    grep -qF "its profile assumes FlashAttention-3's)" "$T/rd_flat" && fail "reader: report still says cudnn assumes FA3's tiles" \
        || pass "reader: report no longer says cudnn assumes FA3's tiles"
    rd_has "explains flash1 below flash2 in forward bytes" "flash1 against flash2: each runs its own kernel's tiles"
    rd_has "defines standard's B_r, B_c" "standard: the GEMMs' thread-block tile fasim assumes"
    rd_has "memory note: the statistics pull the other way" "The statistics pull the other way, by less"
    rd_has "kept fwd->bwd lists every tensor" "standard Q, K, V, O and P (P: N x N per head"
    rd_has "papers: missing N explained" "An N missing from a series (Figure 4 FlashAttention-2"
    rd_has "papers: Figure 2's A100 40GB" "Figure 2's A100 was the 40 GB SXM4"
    grep -E "^ +(eager|math) +[0-9]+x[0-9]+ +[0-9]+ +- +0 +0 " "$T/rd_rep.txt" >/dev/null \
        && fail "reader: kernels table prints regs/blocks 0 for eager or math" || pass "reader: kernels table prints '-' for eager's regs and blocks/SM"
    grep -E "^H200-SXM +eager +[0-9]+x[0-9]+ +- +- +- +- " "$T/rd_rep.txt" >/dev/null \
        && pass "reader: kernels table's eager row: warps, smem, regs, blocks/SM all '-'" || fail "reader: kernels table's eager row"
else
    fail "reader: report --no-plots: $(tail -3 "$T/rd_rep.txt")"
fi
# report --hw b200: fa1's and fa2's rows say their time is the roofline, not the time model
if "$FASIM" report --hw b200 --no-plots --model "$(dirname "$0")/../analysis/models/gpt2-medium.json" \
        --out-dir "$T/rd_b2" > "$T/rd_b2.txt" 2>&1; then
    [ "$(grep -c "roofline time and TFLOP/s, in parentheses, not the time model (so no time 'vs std'): profile fa[12] runs on mma.sync" "$T/rd_b2.txt")" -eq 2 ] \
        && pass "reader: report --hw b200 marks fa1's and fa2's rows as roofline times" \
        || fail "reader: report --hw b200: $(grep -E 'fa1|fa2' "$T/rd_b2.txt" | head -2)"
else
    fail "reader: report --hw b200: $(tail -2 "$T/rd_b2.txt")"
fi
