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

# ---- r4-19, r4-24: the kernels table says which layer type each model's rows time (kernels.csv:
# layer_type, mask), and blocks/SM is what runs, min(occupancy, ceil(grid / SMs)) (docs/
# time-model.md, section 3): fa1 on Mistral-7B (B x H = 32 thread blocks on 108 SMs) runs 1 a SM
# of the 2 its shared memory allows -- as explain says ("1 shares an SM here")
r4_kc="$r4_d/kernels.csv" # written by the gemma-2-9b run above; r4_rep1's kernels were gemma + mistral
"$FASIM" report --model "$R4_MODELS/gemma-2-9b.json" --model "$R4_MODELS/mistral-7b.json" --no-plots --out-dir "$T/r4_rep3" > "$T/r4_rep3.out" 2>&1
r4_kc="$T/r4_rep3/kernels.csv"
r4_lt=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["model"] ":" $c["layer_type"] ":" $c["mask"] }' "$r4_kc" | sort -u | tr '\n' '|')
[ "$r4_lt" = "gemma-2-9b:full:causal (bottom-right); softcap 50|mistral-7b:sliding:causal (bottom-right); window (4095; 0)|" ] \
    && grep -q "^== kernels: google/gemma-2-9b, N = 8192, fwd of one of its 21 full-attention layers (causal (bottom-right), softcap 50; its 21 sliding-window layers: the model's table above)" "$T/r4_rep3.out" \
    && grep -q "^== kernels: mistralai/Mistral-7B-v0.1, N = 32768, fwd of one sliding-window layer (causal (bottom-right), window (4095, 0) = --window 4095,0: a sliding window of 4096 keys, the diagonal's included)" "$T/r4_rep3.out" \
    && pass "r4-19: the kernels table and kernels.csv name the layer type and mask each model's rows time" \
    || fail "r4-19: kernels layer types: $r4_lt"
r4_f1=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["model"] == "mistral-7b" && $c["profile"] == "fa1" && $c["hw"] == "a100" { print $c["blocks_per_sm"] " " $c["occupancy"] }' "$r4_kc")
r4_f1t=$(awk '/^== kernels: mistralai/ { on = 1 } on && /^A100/ { a = 1 } on && a && / fa1 / { print $7 " " $8 " " $9; exit }' "$T/r4_rep3.out")
r4_ex=$("$FASIM" explain --model "$R4_MODELS/mistral-7b.json" --seqlen 32768 --algo flash1 --hw a100 --causal --window 4095,0 2>&1 | grep -c "2 blocks per SM (limit: shared memory), 1 shares an SM here")
[ "$r4_f1" = "1 2" ] && [ "$r4_f1t" = "1 of 2" ] \
    && "$FASIM" io --model "$R4_MODELS/mistral-7b.json" --seqlen 32768 --algo flash1 --hw a100 --causal 2>&1 | grep -q " 1 of 2 (shared memory) " \
    && "$FASIM" explain --model "$R4_MODELS/mistral-7b.json" --seqlen 32768 --algo flash1 --hw a100 --causal 2>&1 | grep -q "2 blocks per SM (limit: shared memory), 1 shares an SM here" \
    && pass "r4-24: fa1's blocks/SM is what runs (1 of the 2 its occupancy allows) in the kernels table, kernels.csv, io and explain" \
    || fail "r4-24: fa1 on Mistral-7B, A100: kernels.csv $r4_f1, table '$r4_f1t' (explain $r4_ex)"

# ---- r4-16: an fp32 SIMT kernel's GEMMs (v2) are fp32-pipe time, as math's SGEMMs: busy_tensor_s 0,
# busy_fp32_s = GEMMs + softmax; the time is unchanged.  v2 at d = 128, 64 x 64 tiles: a tile's
# GEMMs 2 x 2 x 64 x 64 x 128 = 2097152 FLOP at 66e12 / 132 FLOP/s an SM = 4.194 us, 4 x 16 x 64 x 64 =
# 262144 tiles over 132 SMs: 8.33 ms of GEMMs
r4_v2=$("$FASIM" io --profile v2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype fp32 --hw h200 --format csv 2>&1 \
    | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { g = 262144 * 2097152 / (66e12 / 132) / 132;
        print ($c["busy_tensor_s"] == 0) " " ($c["busy_fp32_s"] > g && $c["busy_fp32_s"] < g * 1.05) " " $c["time_s"] " " $c["busiest_pipe"] }')
sh "$R4_ROOT/plots/model_csv.sh" pipes "$FASIM" 128 "$T/r4_pipes.csv" 2>/dev/null
r4_pp=$(awk -F, '$1 == "v2" { print ($3 == 0) " " ($6 > 8.3) }' "$T/r4_pipes.csv")
[ "$r4_v2" = "1 1 2.215267e-02 smem" ] && [ "$r4_pp" = "1 1" ] \
    && "$FASIM" explain --profile v2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype fp32 2>&1 | grep -q "a tile: GEMMs on the FMA units (fp32 pipe; busy under fp32)" \
    && pass "r4-16: v2's GEMMs are fp32-pipe time (busy_fp32_s, pipes_d128.csv, explain), its time unchanged by the relabelling (22.15 ms in fp32, the kernel's dtype)" \
    || fail "r4-16: v2 busy (tensor 0, fp32 ok, time, bound): $r4_v2; pipes csv: $r4_pp"

# ---- r4-11, r4-12, r4-25: the B200 has its datasheet memory (180 GB, DGX B200 User Guide); a GPU
# whose memory is unknown prints "unknown", never "0 B"; on the B200 no ratio sets a roofline
# against the time model, roofline times are labelled, and the kernels table has fa4; the cp
# footnote explains why ring/zigzag memory per GPU does not drop from P = 1 to 2
"$FASIM" report --hw b200 --model "$R4_MODELS/llama-3-8b.json" --model "$R4_MODELS/mistral-7b.json" --no-plots --out-dir "$T/r4_b200" > "$T/r4_b200.out" 2>&1
r4_j=$(tr '\n' ' ' < "$T/r4_b200.out" | tr -s ' ')
r4_fits=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { n[$c["fits"]]++ } END { print n[0] + 0, n[1] + 0, n[""] + 0 }' "$T/r4_b200/cp.csv")
# 80 x 2 x (N/P) x 8 x 128 x 2 B = 320 GiB at N/P = 1M (P = 1 at N = 1M, 4 schemes) exceeds 167.6 GiB; 160 GiB fits
[ "$r4_fits" = "4 60 0" ] && grep -Eq "^B200-SXM +167.6 GiB " "$T/r4_b200.out" && ! grep -q "its 0 B" "$T/r4_b200.out" \
    && echo "$r4_j" | grep -q "(cp.csv: fits = 0, 4 rows here): the 80 layers' K,V of a GPU's share alone exceed its 167.6 GiB" \
    && grep -q "^hbm_capacity_bytes = 180000000000" "$R4_ROOT/sim/hw/b200.hw" && grep -q "DGX B200 User Guide" "$R4_ROOT/sim/hw/b200.hw" \
    && pass "r4-11: the B200's 180 GB (cited) in the memory table, the cp marks and cp.csv fits" \
    || fail "r4-11: B200 memory: fits $r4_fits"
r4_hw="$T/r4_hw"; mkdir -p "$r4_hw"; cp "$R4_ROOT"/sim/hw/*.hw "$r4_hw/"
grep -v '^hbm_capacity_bytes' "$R4_ROOT/sim/hw/h200-sxm.hw" > "$r4_hw/h200-sxm.hw"
hw_dir_save; export FASIM_HW_DIR="$r4_hw"
"$FASIM" report --hw h200 --model "$R4_MODELS/llama-3-8b.json" --no-plots --out-dir "$T/r4_nocap" > "$T/r4_nocap.out" 2>&1; r4_rc=$?
hw_dir_restore
[ "$r4_rc" = 0 ] && grep -Eq "^H200-SXM +unknown +unknown +unknown +unknown$" "$T/r4_nocap.out" && ! grep -q "its 0 B\|^H200-SXM  *0 B" "$T/r4_nocap.out" \
    && tr '\n' ' ' < "$T/r4_nocap.out" | tr -s ' ' | grep -q "No row is judged \"out of memory\": H200-SXM's memory is unknown" \
    && [ "$(head -1 "$T/r4_nocap/memory_vs_n.csv")" = "N,standard,flash1,flash2" ] \
    && pass "r4-11: a profile without hbm_capacity_bytes prints 'unknown' (memory table, cp note), no capacity column" \
    || fail "r4-11: unknown capacity (rc $r4_rc): $(grep -E '^H200-SXM +' "$T/r4_nocap.out" | head -2)"
r4_vs=$(awk '/^== meta-llama/ { on = 1; next } on && /^$/ { exit } on && / fa[12] / { print $1 ":" $11 }' "$T/r4_b200.out" | tr '\n' ' ')
r4_tr=$(awk '/^== training/ { on = 1; next } on && /^flash[12] / { print $1 ":" substr($12, 1, 1) substr($13, length($13)) ":" $14 }' "$T/r4_b200.out" | tr '\n' ' ')
r4_fa4=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["profile"] == "fa4" { printf "%s ", $c["model"] }' "$T/r4_b200/kernels.csv")
[ "$r4_vs" = "flash1:- flash2:- " ] && [ "$r4_tr" = "flash1:():- flash2:():- " ] && [ "$r4_fa4" = "llama-3-8b mistral-7b " ] \
    && echo "$r4_j" | grep -q "roofline time and TFLOP/s, in parentheses, not the time model (so no time 'vs std')" \
    && echo "$r4_j" | grep -q "(time in parentheses: a roofline, max(FLOPs / peaks, bytes / bandwidth), not the time model" \
    && grep -q "full roof.  win roof." "$T/r4_b200.out" \
    && grep -Eq "^ +N scheme +P +HBM/GPU +sent/GPU memory/GPU K,V x 80/GPU +roofline +vs P=1" "$T/r4_b200.out" \
    && echo "$r4_j" | grep -q "time: the roofline, max(FLOPs / peak, bytes / bandwidth), of each local call -- not the time model" \
    && pass "r4-12: on the B200 no time ratio mixes a roofline with the time model; roofline times labelled (model, training, long context, cp); fa4 in the kernels table" \
    || fail "r4-12: B200: vs std $r4_vs; training $r4_tr; fa4 rows: $r4_fa4"
echo "$r4_j" | grep -q "at bf16 with d = d_v, 4 H d_v = q + o, so the second buffer and O_acc make up for the split: P = 2 needs exactly P = 1's memory" \
    && "$FASIM" io --cp 2 --seqlen 131072 --heads 64 --kv-heads 8 --headdim 128 --dtype bf16 --causal 2>&1 | tr '\n' ' ' | tr -s ' ' | grep -q "make up for the split, so here P = 2 needs no less memory than one GPU" \
    && pass "r4-25: the report's and io --cp's notes say why ring/zigzag memory per GPU does not drop from P = 1 to 2" \
    || fail "r4-25: no note on ring memory at P = 2"

# ---- r4-13: the decoding wave model charges the sustained DRAM rate (the H200's dram_bytes_per_s,
# 3.94e12), as the time model does: batch 1, 1024 keys, packed (Llama-3-8B's 32/8 heads, d = 128):
# 8 blocks of 2 x 1024 x 128 x 2 + 4 x 128 x 2 x 2 + 4 x 4 = 526352 B, each at 1/132 of the rate:
# 526352 x 132 / 3.94e12 s = 17.634 us; the roofline stays the datasheet's (4.8e12)
r4_dec=$("$FASIM" io --decode --kv-len 1024 --heads 32 --kv-heads 8 --headdim 128 --dtype bf16 --gqa packed --hw h200 --format json 2>&1 \
    | jq -r '.[0] | "\(.hbm_bytes) \(.programs) \(.time_s * 1e9 | round) \(.time_roofline_s * 1e12 | round)"')
# roofline: 4210816 B / 4.8e12 = 877.25 ns (the FLOPs' time is below it)
[ "$r4_dec" = "4210816 8 17634 877253" ] \
    && grep -q "bandwidth D/sms, peaks P/sms, where D is the hardware" "$R4_ROOT/docs/inference.md" \
    && grep -q "| 1 | 1024 | 17.63 µs (8 blocks) |" "$R4_ROOT/docs/inference.md" \
    && pass "r4-13: the decode wave model charges dram_bytes_per_s (17.63 us at batch 1, 1k keys), as docs/inference.md says" \
    || fail "r4-13: decode bytes, blocks, time (ns), roofline (ps): $r4_dec"

# ---- r4-22: "sliding_window": 0 -- Transformers tests the key for None only, so 0 would be a window
# of no key: refused with the range the other values get; null is no window; use_sliding_window
# false (Qwen2) discards it, 0 included
printf '{"model_type": "mistral", "num_attention_heads": 8, "hidden_size": 512, "sliding_window": 0}' > "$T/r4_sw0.json"
printf '{"model_type": "mistral", "num_attention_heads": 8, "hidden_size": 512, "sliding_window": -5}' > "$T/r4_swm.json"
printf '{"model_type": "mistral", "num_attention_heads": 8, "hidden_size": 512, "sliding_window": null}' > "$T/r4_swn.json"
printf '{"model_type": "qwen2", "num_attention_heads": 8, "hidden_size": 512, "sliding_window": 0, "use_sliding_window": false}' > "$T/r4_swq.json"
expect_msg -x "r4-22: sliding_window 0 is refused with the range" \
    "model file $T/r4_sw0.json: sliding_window = 0 must be an integer in [1, 2147483647], or null for no window (Transformers reads 0 as a window of no key, which masks every key)" \
    -- io --model "$T/r4_sw0.json"
expect_msg "r4-22: sliding_window -5 names the same range" "sliding_window = -5 must be an integer in [1, 2147483647]" -- io --model "$T/r4_swm.json"
"$FASIM" report --model "$T/r4_swn.json" --model "$T/r4_swq.json" --seqlen 512 --no-plots --out-dir "$T/r4_sw" > "$T/r4_sw.out" 2>&1; r4_rc=$?
r4_sw=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["model"] ":" $c["mask"] }' "$T/r4_sw/report.csv" | sort -u | tr '\n' ' ')
[ "$r4_rc" = 0 ] && [ "$r4_sw" = "r4_swn:causal (bottom-right) r4_swq:causal (bottom-right) " ] \
    && grep -q "0 is refused with that range: Transformers tests the key for None only" "$R4_ROOT/docs/conventions.md" \
    && pass "r4-22: null and use_sliding_window false (with 0) mean no window, as docs/conventions.md says" \
    || fail "r4-22: null / qwen2 0 (rc $r4_rc): $r4_sw"

# ---- r4-26: "packed" means GQA packing only (the varlen-packed row); the sequences laid end to end
# are the concatenated batch, and the padded comparison names the row it divides by
"$FASIM" io --cu-seqlens 0,100,300,1000 --heads 8 --kv-heads 2 > "$T/r4_vl" 2>&1
r4_vb=$(awk '$1 == "varlen" && $2 == 1 { print $10 $11 }' "$T/r4_vl")
[ "$r4_vb" = "11.16MiB" ] && grep -q "^padded to 3 x (N_q = 700, N_k = 700), FlashAttention-2 would move 28.78 MiB (2.58x the unpadded, concatenated batch: the varlen row)$" "$T/r4_vl" \
    && ! grep -q "the packed batch" "$T/r4_vl" && ! grep -q "packed tensors\|packed along the row axis" "$R4_ROOT/docs/inference.md" \
    && pass "r4-26: the varlen output calls the unpadded batch concatenated and names its row (28.78 / 11.16 MiB = 2.58x)" \
    || fail "r4-26: varlen wording: $(grep padded "$T/r4_vl") ($r4_vb)"
