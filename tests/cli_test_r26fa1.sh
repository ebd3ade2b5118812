# cli_test_r26fa1.sh -- sourced by tests/cli_test.sh: reader 26's findings 3 and 4 (the fa1 profile on
# shapes FlashAttention-1's kernel does not run; what the regs column counts).  Values checked against
# flash-attention v1.0.9 csrc/flash_attn/fmha_api.cpp (mha_fwd: no window argument; CHECK_SHAPE(k,
# total_k, num_heads, head_size); head_size % 8 == 0 && head_size <= 128; run_fmha_fwd: d <= 32, 64, 128)
# and 7f67966c hopper/flash_fwd_kernel.h (warpgroup_reg_alloc<kNWarps == 12 ? 240 : 160>).
R26F_ROOT="$(dirname "$0")/.."

# ---- 3: a window: the real kernel has none ----
"$FASIM" io --algo flash1 --seqlen 4096 --heads 16 --headdim 64 --causal --window 100,0 > "$T/r26f_win" 2>&1; r26f_rc=$?
"$FASIM" io --algo flash1 --seqlen 4096 --heads 16 --headdim 64 --causal > "$T/r26f_nowin" 2>&1
[ "$r26f_rc" = 0 ] \
    && grep -qF "note: flash1 (fa1): FlashAttention-1's kernel has no sliding window (v1.0.9 fmha_api.cpp: mha_fwd and mha_bwd take none)" "$T/r26f_win" \
    && ! grep -q "has no sliding window" "$T/r26f_nowin" \
    && pass "reader26 #3: fa1 with a window gets the no-window note; without one, none" \
    || fail "reader26 #3: fa1 window note (rc $r26f_rc): $(grep -n '^note' "$T/r26f_win" | head -3)"

# ---- 3: GQA: K, V repeated to H heads; H = 16, H_kv = 4, N 4096, d 64, fp16: K + V = 4 x 4096 x 128 x 2 B = 4 MiB ----
"$FASIM" io --algo flash1 --seqlen 4096 --heads 16 --kv-heads 4 --headdim 64 > "$T/r26f_gqa" 2>&1; r26f_rc=$?
[ "$r26f_rc" = 0 ] \
    && grep -qF "note: flash1 (fa1): H = 16 > H_kv = 4: FlashAttention-1 has no GQA or MQA" "$T/r26f_gqa" \
    && grep -qF "4x the K, V in HBM (16 MiB, not 4 MiB) and 4x their loads" "$T/r26f_gqa" \
    && pass "reader26 #3: fa1 at H/H_kv = 4: the repeat_kv note with 16 MiB against 4 MiB" \
    || fail "reader26 #3: fa1 GQA note (rc $r26f_rc): $(grep -n '^note' "$T/r26f_gqa" | head -4)"

# ---- 3: head dims: 100 refused by FA1, 96 runs in the d = 128 kernel (128 / 96 = 1.33), 64 and 128 as they are ----
"$FASIM" io --algo flash1 --seqlen 4096 --heads 16 --headdim 100 > "$T/r26f_d100" 2>&1; r26f_rc=$?
"$FASIM" io --algo flash1 --seqlen 4096 --heads 16 --headdim 96 > "$T/r26f_d96" 2>&1
"$FASIM" io --algo flash1 --seqlen 4096 --heads 16 --headdim 128 > "$T/r26f_d128" 2>&1
"$FASIM" io --algo flash1 --seqlen 4096 --heads 16 --headdim 24 > "$T/r26f_d24" 2>&1
[ "$r26f_rc" = 0 ] \
    && grep -qF "note: flash1 (fa1): FlashAttention-1 refuses d = 100 (v1.0.9 fmha_api.cpp: head_size % 8 == 0 and head_size <= 128)" "$T/r26f_d100" \
    && grep -qF "note: flash1 (fa1): FlashAttention-1 has no kernel for d = 96: it runs it in its d = 128 kernel" "$T/r26f_d96" \
    && grep -qF "MMA work is up to 1.33x these" "$T/r26f_d96" \
    && grep -qF "has no kernel for d = 24: it runs it in its d = 32 kernel" "$T/r26f_d24" \
    && ! grep -q "FlashAttention-1 has no kernel\|FlashAttention-1 refuses" "$T/r26f_d128" \
    && pass "reader26 #3: fa1 head dims: 100 refused, 96 -> 128 kernel (1.33x), 24 -> 32 kernel, 128 silent" \
    || fail "reader26 #3: fa1 head-dim notes: $(grep -h 'FlashAttention-1 \(has no kernel\|refuses\)' "$T"/r26f_d* | head -4)"

# ---- 3 and 4 in report: the fa1 footnote names the windowed, GQA and d = 96 models; the regs legend ----
"$FASIM" report --no-plots --hw h100 --model "$R26F_ROOT/analysis/models/mistral-7b.json" --model "$R26F_ROOT/analysis/models/gpt-neox-20b.json" \
    --out-dir "$T/r26f_rep_dir" > "$T/r26f_rep" 2>&1; r26f_rc=$?
[ "$r26f_rc" = 0 ] \
    && oneline "$T/r26f_rep" | grep -qF "fa1 rows count Algorithm 1 on the model's shape, which FlashAttention-1's kernel (v1.0.9 fmha_api.cpp) does not always run: it has no sliding window (mistralai/Mistral-7B-v0.1:" \
    && oneline "$T/r26f_rep" | grep -qF "it has no GQA or MQA, K and V are checked against num_heads (mistralai/Mistral-7B-v0.1:" \
    && oneline "$T/r26f_rep" | grep -qF "refuses d not a multiple of 8 or over 128 (EleutherAI/gpt-neox-20b:" \
    && oneline "$T/r26f_rep" | grep -qF "For the warp-specialized fa3 and cudnn it is the consumer warps' count (fa3: 240 with 2 consumer warpgroups, 160 with 3, hopper/flash_fwd_kernel.h warpgroup_reg_alloc); the producer warpgroup runs at 24, so warps x regs is more than the block holds." \
    && oneline "$T/r26f_rep" | grep -q "fa3 *128x128 *12 .* 240 " \
    && pass "reader26 #3/#4: report's fa1 footnote (window, GQA, d = 96) and the regs legend" \
    || fail "reader26 #3/#4: report footnotes (rc $r26f_rc): $(grep -n 'fa1 rows count\|regs:' "$T/r26f_rep" | head -3)"

# ---- fa3 beyond its kernels (0251105a hopper/flash_api.cpp): no FP8 backward, no e5m2, O in bf16 from FP8
# inputs (B 1, H 16, N 8192, d_v 128: 16 Mi elements, 16 MiB more at 2 B than at 1); no d = 256 backward
# placement the profile models ----
expect_msg "reader26 fa3: FP8 backward refused" "FlashAttention-3 has no FP8 backward" -- \
    io --profile fa3 --algo flash2 --seqlen 8192 --heads 16 --hw h100 --headdim 128 --dtype fp8_e4m3 --pass fwdbwd
expect_msg "reader26 fa3: e5m2 refused" "not --dtype fp8_e5m2" -- \
    io --profile fa3 --algo flash2 --seqlen 8192 --heads 16 --hw h100 --headdim 128 --dtype fp8_e5m2
expect_msg "reader26 fa3: d = 256 backward refused, naming FA3's tile" "runs d = 256's backward at 64 x 80 with one dO and one dS stage" -- \
    io --profile fa3 --algo flash2 --seqlen 8192 --heads 16 --hw h100 --headdim 256 --pass bwd
"$FASIM" io --profile fa3 --algo flash2 --seqlen 8192 --heads 16 --hw h100 --headdim 128 --dtype fp8_e4m3 > "$T/r26f_fp8o" 2>&1; r26f_rc=$?
[ "$r26f_rc" = 0 ] \
    && grep -qF "note: flash2 (fa3): FlashAttention-3's FP8 forward writes O in bf16 (hopper/flash_api.cpp at 0251105a: out_type = BFloat16 for e4m3 inputs), 2 B an element where the counts write O at 1 B: 16 MiB more written than counted" "$T/r26f_fp8o" \
    && pass "reader26 fa3: the FP8 forward's bf16 O note (16 MiB)" \
    || fail "reader26 fa3: FP8 O note (rc $r26f_rc): $(grep -n '^note' "$T/r26f_fp8o" | head -3)"
