# cli_test_reader4b.sh -- issue 18, the fourth fresh reader (/work/notes/reader4_findings.md):
# the findings on model configs read as Transformers reads them, the tiles of the published
# kernels, and the report's tables saying what they time.  Each check names its finding (r4-N).
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg, $FASIM, $T).

R4_ROOT="$(dirname "$0")/.."
R4_MODELS="$R4_ROOT/analysis/models"

# ---- r4-3: MLA (DeepSeek-V2/V3): d_qk = qk_nope + qk_rope = 192, d_v = v_head_dim = 128 (their
# published config.json files), in io as in the report, and V/O counted at d_v
for m in deepseek-v2 deepseek-v3; do
    r4_dv=$("$FASIM" io --model "$R4_MODELS/$m.json" --seqlen 1024 --algo flash2 --format json 2>&1 | jq -r '.[0] | "\(.d) \(.d_v) \(.tensors.O.write_bytes)"')
    # O written once: B H N d_v e = 1 x 128 x 1024 x 128 x 2
    [ "$r4_dv" = "192 128 33554432" ] && "$FASIM" explain --model "$R4_MODELS/$m.json" --seqlen 1024 --algo flash2 2>&1 | grep -q " d=192 d_v=128 " \
        && pass "r4-3: io and explain --model $m take d = 192, d_v = 128 from the config" \
        || fail "r4-3: $m: d, d_v, O bytes = $r4_dv (expected 192 128 33554432)"
done
r4_dv=$("$FASIM" io --model "$R4_MODELS/deepseek-v2.json" --seqlen 1024 --headdim 160 --algo flash2 --format json 2>&1 | jq -r '.[0] | "\(.d) \(.d_v)"')
[ "$r4_dv" = "160 160" ] && pass "r4-3: --headdim on an MLA model still moves d_v with it" || fail "r4-3: --headdim 160 gave d, d_v = $r4_dv"

# ---- r4-4: the JSON carries the scale and softcap used; the table header names a scale that
# is not 1/sqrt(d)
r4_sc=$("$FASIM" io --scale 0.5 --softcap 30 --algo flash2 --format json 2>&1 | jq -c '.[0] | [.scale, .softcap]')
r4_gm=$("$FASIM" io --model "$R4_MODELS/gemma-2-27b.json" --seqlen 1024 --algo flash2 --format json 2>&1 | jq -c '.[0] | [.scale, .softcap]')
r4_df=$("$FASIM" io --headdim 64 --algo flash2 --format json 2>&1 | jq -c '.[0] | [.scale, .softcap]')
r4_dc=$("$FASIM" io --decode --kv-len 1024 --scale 0.25 --format json 2>&1 | jq -c '.[0] | [.scale, .softcap]')
# Gemma-2-27B: query_pre_attn_scalar 144 -> 1/12, attn_logit_softcapping 50
[ "$r4_sc" = "[0.5,30]" ] && [ "$r4_gm" = "[0.08333333333,50]" ] && [ "$r4_df" = "[0.125,null]" ] && [ "$r4_dc" = "[0.25,null]" ] \
    && "$FASIM" io --model "$R4_MODELS/gemma-2-27b.json" --seqlen 1024 --algo flash2 2>&1 | head -1 | grep -q "softcap 50, scale 0.0833333 (not 1/sqrt(d))" \
    && ! "$FASIM" io --algo flash2 2>&1 | head -1 | grep -q "scale" \
    && pass "r4-4: JSON scale/softcap are the ones used (--scale/--softcap, Gemma-2's 1/12 and 50, default 1/8), the header names a non-default scale" \
    || fail "r4-4: JSON scale/softcap: flags $r4_sc, gemma $r4_gm, default $r4_df, decode $r4_dc"

# ---- r4-5: the tile tables follow the kernels' sources (analysis/profiles.c cites the commits):
# FlashAttention-2 flash_fwd_launch_template.h -- hdim192 <192, 128, 64, 8>; hdim256 <256, 128, 64,
# 8> on the A100 (164 KiB per SM < 192 KiB), <256, 64, 64, 4> on the H100/H200; the backward's
# hdim192/256 <64, 64, 8>; FlashAttention-3 tile_size.h at d <= 192: 128 x 128 for d_v <= 128, else
# 128 x 112; its backward at d = 192: 64 x 96 with 16 warps
r4_tiles() { # HW PROFILE D DV PASS -> "BRxBC warps" of the pass's kernel
    "$FASIM" io --hw "$1" --profile "$2" --headdim "$3" --headdim-v "$4" --pass "$5" --seqlen 4096 --heads 16 --dtype bf16 --format json 2>&1 \
        | jq -r '.[0].time_model.kernels[0] | "\(.block_r)x\(.block_c) \(.warps)"' 2>/dev/null
}
r4_t=""
for c in "a100 fa2 192 192 fwd=128x64 8" "h200 fa2 192 128 fwd=128x64 8" "a100 fa2 256 256 fwd=128x64 8" \
         "h100 fa2 256 256 fwd=64x64 4" "h200 fa2 256 256 fwd=64x64 4" "a100 fa2 128 128 fwd=128x64 4" \
         "h200 fa2 192 192 bwd=64x64 8" "a100 fa2 256 256 bwd=64x64 8" \
         "h200 fa3 192 128 fwd=128x128 12" "h100 fa3 192 192 fwd=128x112 12" "h200 fa3 256 256 fwd=128x80 12" \
         "h200 fa3 192 128 bwd=64x96 16"; do
    set -- ${c%%=*}
    want=${c#*=}
    got=$(r4_tiles "$1" "$2" "$3" "$4" "$5")
    [ "$got" = "$want" ] || r4_t="$r4_t [$1 $2 d=$3 d_v=$4 $5: $got, want $want]"
done
[ -z "$r4_t" ] && pass "r4-5: fa2 and fa3 tiles at d = 192 and 256 are their sources' (12 cases)" || fail "r4-5: tiles:$r4_t"

# ---- r4-9, r4-21: the long-context table takes the first model whose every layer slides (so
# Gemma-2, which alternates, is passed over for Mistral-7B) and says so; with no such model the
# report says the section is skipped.  A report into a directory of an earlier one removes the
# earlier files this run would not write -- the report's own file names only -- and nothing else.
r4_d="$T/r4_rep"
"$FASIM" report --model "$R4_MODELS/gemma-2-9b.json" --model "$R4_MODELS/mistral-7b.json" --no-plots --out-dir "$r4_d" > "$T/r4_rep1" 2>&1
r4_lc=$(grep -c "^== long context: mistralai/Mistral-7B" "$T/r4_rep1")
"$FASIM" report --help > "$T/r4_rhelp" 2>&1
[ "$r4_lc" = 1 ] && [ -f "$r4_d/long_context.csv" ] && [ -f "$r4_d/hbm_vs_n_mistral-7b.csv" ] \
    && tr '\n' ' ' < "$T/r4_rhelp" | tr -s ' ' | grep -q "the first model whose every layer has a sliding window (Mistral-7B; a model that mixes full-attention layers in, as Gemma-2/3, is passed over)" \
    && tr '\n' ' ' < "$R4_ROOT/docs/report-csv.md" | tr -s ' ' | grep -q "whose every layer has a sliding window: Mistral-7B" \
    && pass "r4-9: long context takes Mistral-7B over Gemma-2-9b (every layer slides), as report --help and report-csv.md say" \
    || fail "r4-9: long context with gemma-2-9b + mistral-7b ($r4_lc headers) or the wording"
echo "my notes" > "$r4_d/notes.txt"; echo "mine" > "$r4_d/hbm_vs_n_mine.txt"
printf 'not a png' > "$r4_d/hbm_vs_sram.png"  # as an earlier run with plots would have left
ln -s notes.txt "$r4_d/hbm_vs_n_link.csv"
# a failed run changes nothing
"$FASIM" report --model "$T/r4_nope.json" --no-plots --out-dir "$r4_d" > /dev/null 2>&1
r4_f0=$(LC_ALL=C ls "$r4_d" | tr '\n' ' ')
"$FASIM" report --model "$R4_MODELS/gemma-2-9b.json" --no-plots --out-dir "$r4_d" > "$T/r4_rep2" 2>&1; r4_rc=$?
r4_f=$(LC_ALL=C ls "$r4_d" | tr '\n' ' ')
r4_want="cp.csv decode.csv hbm_vs_block.csv hbm_vs_n_gemma-2-9b.csv hbm_vs_n_link.csv hbm_vs_n_mine.txt hbm_vs_sram.csv kernels.csv memory_vs_n.csv notes.txt papers.csv report.csv "
[ "$r4_rc" = 0 ] && [ "$r4_f" = "$r4_want" ] && [ "$(cat "$r4_d/notes.txt")" = "my notes" ] \
    && echo "$r4_f0" | grep -q " long_context.csv " && echo "$r4_f0" | grep -q " hbm_vs_n_mistral-7b.csv " \
    && grep -q "^removed from $r4_d, an earlier report's files this run did not write" "$T/r4_rep2" \
    && [ "$(grep -c "^  $r4_d/\(long_context.csv\|hbm_vs_n_mistral-7b.csv\|hbm_vs_sram.png\)$" "$T/r4_rep2")" = 3 ] \
    && pass "r4-21: a report into an earlier one's directory removes its stale files (long_context.csv, another model's hbm_vs_n, a PNG after --no-plots), lists them, keeps the rest" \
    || fail "r4-21: rc $r4_rc; files after: $r4_f (before: $r4_f0)"
grep -q "^== long context: skipped, no model given has a sliding window on every layer" "$T/r4_rep2" \
    && ! grep -q "^== long context: google" "$T/r4_rep2" \
    && pass "r4-9: with no model whose every layer slides, the report says the long-context section is skipped" \
    || fail "r4-9: no long-context message with gemma-2-9b alone"

# ---- r4-10: --cp P without --cp-scheme runs the schemes the shape admits; ulysses at H = 1 is
# "not applicable" with its reason; --cp-scheme ulysses there is still refused
"$FASIM" io --cp 2 --seqlen 1024 > "$T/r4_cp" 2>"$T/err"; r4_rc=$?
r4_rows=$(grep -cE "^(ring|zigzag|allgather) +2 +[0-9]" "$T/r4_cp")
r4_js=$("$FASIM" io --cp 2 --seqlen 1024 --format json 2>/dev/null | jq -c '[.[] | [.scheme, .applicable]]')
r4_csv=$("$FASIM" io --cp 2 --seqlen 1024 --format csv 2>"$T/r4_cperr" | awk -F, 'NR > 1 { printf "%s ", $1 }')
[ "$r4_rc" = 0 ] && [ "$r4_rows" = 3 ] && grep -Eq "^ulysses +2  not applicable: H = 1 query heads is not a multiple of P = 2" "$T/r4_cp" \
    && [ "$r4_js" = '[["ring",true],["zigzag",true],["allgather",true],["ulysses",false]]' ] && [ "$r4_csv" = "ring zigzag allgather " ] \
    && grep -q "not applicable, no row: ulysses: H = 1" "$T/r4_cperr" \
    && pass "r4-10: --cp 2 at H = 1 runs ring, zigzag, allgather and reports ulysses not applicable (table, JSON, CSV)" \
    || fail "r4-10: --cp 2 at H = 1: rc $r4_rc, $r4_rows rows, json $r4_js, csv $r4_csv ($(head -c 200 "$T/err"))"
expect_msg -x "r4-10: --cp-scheme ulysses at H = 1 is still refused" \
    "ulysses: H = 1 query heads is not a multiple of P = 2 (each GPU computes H/P heads)" -- io --cp 2 --seqlen 1024 --cp-scheme ulysses
expect_msg "r4-10: a shape no scheme admits is refused with the first reason" "ring: N = 1000 is not a multiple of P = 3" -- io --cp 3 --seqlen 1000 --heads 3
