# cli_test_r28.sh -- sourced by tests/cli_test.sh: reader 28's findings.
# 1: PyTorch's eager and math attention have no fp8 (torch.matmul and softmax take fp32, fp16, bf16):
#    --profile eager refuses it, and io's default standard row says so and counts the paper's model.
# 2: --version takes no argument.  3: compiled register counts are printed as compiled (v3 187 and v4
#    216 at d = 128: the tile table, ptxas -v).
"$FASIM" io --algo all --dtype fp8_e4m3 --seqlen 4096 > "$T/r28_fp8" 2>&1; r28_rc=$?
[ "$r28_rc" = 0 ] \
    && grep -qF "note: standard: profile eager: PyTorch's eager attention takes fp32, fp16 or bf16, not fp8 (torch.matmul and softmax have no float8 kernels; a float8 GEMM is torch._scaled_mm, another op): --profile paper counts it" "$T/r28_fp8" \
    && pass "reader28 #1: the default standard row in fp8 names eager's refusal" \
    || fail "reader28 #1: eager fp8 note (rc $r28_rc): $(grep -n '^note: standard' "$T/r28_fp8" | head -2)"
expect_msg "reader28 #1: --profile eager refuses fp8" "profile eager: PyTorch's eager attention takes fp32, fp16 or bf16, not fp8" -- \
    io --algo standard --profile eager --dtype fp8_e4m3 --seqlen 4096
expect_msg "reader28 #1: --profile math refuses fp8" "profile math: PyTorch's math path takes fp32, fp16 or bf16, not fp8" -- \
    io --algo standard --profile math --dtype fp8_e5m2 --seqlen 4096
expect_msg -x "reader28 #2: --version extra refused" "unexpected argument 'extra': --version takes none (see fasim --help)" -- --version extra
expect_msg "reader28 #2: version --bogus refused" "unexpected argument '--bogus': version takes none" -- version --bogus
"$FASIM" --version > "$T/r28_ver" 2>&1 && grep -q "^fasim [0-9]" "$T/r28_ver" && pass "reader28 #2: --version alone still prints the version" \
    || fail "reader28 #2: --version: $(cat "$T/r28_ver")"
"$FASIM" io --algo flash2 --profile v3 --seqlen 4096 --heads 16 --headdim 128 > "$T/r28_v3" 2>&1
"$FASIM" io --algo flash2 --profile v4 --seqlen 4096 --heads 16 --headdim 128 > "$T/r28_v4" 2>&1
grep -q "^flash2 *v3 *128x64 *8 *96 KiB *187 " "$T/r28_v3" && grep -q "^flash2 *v4 *128x128 *8 *160 KiB *216 " "$T/r28_v4" \
    && pass "reader28 #3: v3 and v4 print their compiled 187 and 216 registers, not rounded" \
    || fail "reader28 #3: compiled regs: $(grep -h '^flash2 *v[34]' "$T/r28_v3" "$T/r28_v4" | cut -c1-60)"
