# cli_test_r27b.sh -- sourced by tests/cli_test.sh: reader 27's findings 1, 3 and 4.
# 1: the regs column is the kernel's own count where the source has one: kernels/attn_v5_fa3.cu V5Regs
#    (consumer = NC == 2 ? 232 : 160), attn_v5_fp8.cu Fp8Regs (232).
# 3: FlashAttention-1 v1.0.9 fmha_api.cpp (max_seqlen_k_ <= 128 -> 128) and fmha_fwd_hdim64.cu
#    (seqlen_k == 128: FMHA_kernel_traits<128, 64, 16, 1, 4, ...>): 16 x 128 at N_k <= 128, d <= 64.
# 4: --page-size's limit is [1, 2147483647].

"$FASIM" io --algo flash2 --profile v5 --seqlen 8192 --heads 16 --headdim 128 --dtype bf16 > "$T/r27b_v5" 2>&1; r27b_rc=$?
"$FASIM" io --algo flash2 --profile v5 --seqlen 8192 --heads 16 --headdim 64 --dtype bf16 > "$T/r27b_v5d64" 2>&1
"$FASIM" io --algo flash2 --profile v5_fp8 --seqlen 8192 --heads 16 --headdim 128 --dtype fp8_e4m3 > "$T/r27b_fp8" 2>&1
[ "$r27b_rc" = 0 ] \
    && grep -q "^flash2 *v5 *128x160 *12 .* 232 1 " "$T/r27b_v5" \
    && grep -q "^flash2 *v5 *192x128 *16 .* 160 1 " "$T/r27b_v5d64" \
    && grep -q "^flash2 *v5_fp8 *128x128 *12 .* 232 1 " "$T/r27b_fp8" \
    && pass "reader27 #1: v5 and v5_fp8 print their setmaxnreg counts (232, 160, 232)" \
    || fail "reader27 #1: v5 regs (rc $r27b_rc): $(grep -h '^flash2 *v5' "$T"/r27b_v5 "$T"/r27b_v5d64 "$T"/r27b_fp8 | cut -c1-70)"

"$FASIM" io --algo flash1 --seqlen 128 --headdim 64 > "$T/r27b_f1s" 2>&1; r27b_rc=$?
"$FASIM" io --algo flash1 --seqlen 129 --headdim 64 > "$T/r27b_f1l" 2>&1
"$FASIM" io --algo flash1 --pass bwd --seqlen 100 --headdim 32 > "$T/r27b_f1b" 2>&1
[ "$r27b_rc" = 0 ] \
    && grep -q "^flash1 *fa1 *16x128 *4 " "$T/r27b_f1s" \
    && grep -q "^flash1 *fa1 *16x256 *4 " "$T/r27b_f1l" \
    && grep -q "^flash1 *fa1 bwd *16x128 *8 " "$T/r27b_f1b" \
    && pass "reader27 #3: fa1 runs 16 x 128 at N_k <= 128 (d <= 64), 16 x 256 beyond; the backward too" \
    || fail "reader27 #3: fa1 short-sequence tiles (rc $r27b_rc): $(grep -h '^flash1 *fa1' "$T"/r27b_f1s "$T"/r27b_f1l "$T"/r27b_f1b | cut -c1-60)"

expect_msg -x "reader27 #4: --page-size's range is [1, 2147483647]" "--page-size = 'x' must be an integer in [1, 2147483647]" -- \
    io --decode --kv-len 64 --page-size x
expect_msg "reader27 #4: --page-size 0 names the range" "--page-size 0: a page holds at least one token (1 to 2147483647)" -- \
    io --decode --kv-len 64 --page-size 0
