# cli_test_reader14.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip, oneline; $T,
# $FASIM).  The fourteenth fresh reading (issue 18): fasim check says how it picks its default tiles;
# the judges say "once" and what their "max error" is; the papers' note does not call cuDNN's Figure 6
# backward too fast; the kernels note says its model names are the config files'.
R14_ROOT=$(dirname "$0")/..

# ---- 1: check's headers and help give the default-tile rule (fp64: --blocks fit; --dtype: 64 x 64) ----
"$FASIM" check --seqlen 1024 --algo flash2 > "$T/r14_c64" 2>&1
"$FASIM" check --seqlen 1024 --dtype bf16 --algo flash2 > "$T/r14_cbf" 2>&1
"$FASIM" check --help > "$T/r14_ch" 2>&1
grep -q "on the tiles B_r x B_c (--block-r/--block-c, else the suite case's, else --blocks fit in the paper's model of one SRAM of --sram" "$T/r14_c64" \
    && grep -q "B_r=160 B_c=160" "$T/r14_c64" \
    && grep -q "tiles B_r x B_c: --block-r/--block-c, else the suite case's, else 64 x 64 (this check's fixed default)$" "$T/r14_cbf" \
    && grep -q "B_r=64  B_c=64" "$T/r14_cbf" \
    && oneline "$T/r14_ch" | grep -qF "but the default tiles are not a kernel profile's: --blocks fit in the paper's one-SRAM model (fp64 check), 64 x 64 (--dtype; 128 x 128 with --fp8-quant or --hadamard)" \
    && oneline "$R14_ROOT/docs/numerics.md" | grep -qF "Without those options a \`--dtype\` check runs 64 × 64 tiles" \
    && pass "reader14: check's headers, --help and numerics.md give the default tiles (fp64 --blocks fit: 160 x 160 here; --dtype 64 x 64)" \
    || fail "reader14: check's tile rule: $(head -1 "$T/r14_c64" | cut -c1-160) | $(head -1 "$T/r14_cbf" | cut -c1-200)"

# ---- 2, 3: the judges say "once" and name their error measure ----
if cli_judge 03 "$R14_ROOT/docs/exercises/solutions/03.c" "$T/r14_j3" \
    && cli_judge 03 "$R14_ROOT/docs/exercises/03-flash2-forward/student.c" "$T/r14_s3"; then
    grep -q ": your loop reads Q once; the optimum for these blocks is 1$" "$T/r14_j3" \
        && grep -q ": your loop reads K 4 times; the optimum for these blocks is 4$" "$T/r14_j3" && ! grep -q " 1 times" "$T/r14_j3" \
        && grep -q "(max error |out - ref| / max(1, |ref|): O 0.955, LSE 1; tolerance 1e-10)" "$T/r14_s3" \
        && oneline "$R14_ROOT/docs/exercises/README.md" | grep -qF "error |out - ref| / max(1, |ref|) over the elements" \
        && ! grep -q "%.4g times" "$R14_ROOT/docs/exercises/03-flash2-forward/judge.c" "$R14_ROOT/docs/exercises/06-backward/judge.c" \
        && pass "reader14: judge 03 says 'reads Q once' and names its error |out - ref| / max(1, |ref|) (the stub's O 0.955, LSE 1); the exercises README says so" \
        || fail "reader14: judges: $(grep -m1 'reads Q' "$T/r14_j3") | $(grep -m1 'max error' "$T/r14_s3" | cut -c1-200)"
else
    skip "reader14: the judges' wording" "no libfasim.a beside $FASIM or no C compiler"
fi

# ---- 4: the papers' note: FA3's Figure 6 backward too fast, cuDNN's on both sides of 1 ----
"$FASIM" report --no-plots --out-dir "$T/r14_rep" > "$T/r14_rep.out" 2>&1
r14_cud=$(awk -F, 'NR > 1 && $2 == "Figure 6" && $5 == "cudnn" { r = sprintf("%.2f", $13) + 0; lo += (r < 1); hi += (r > 1) } END { print (lo > 0) " " (hi > 0) }' "$T/r14_rep/papers.csv")
[ "$r14_cud" = "1 1" ] \
    && oneline "$T/r14_rep.out" | grep -qF "FlashAttention-3's backward in Figure 6 too fast (1.02-1.14" \
    && oneline "$T/r14_rep.out" | grep -qF "cuDNN's, with the count measured on the H200, 0.96-1.06, on both sides of 1)" \
    && ! oneline "$T/r14_rep.out" | grep -qF "backwards of Figure 6 too fast" \
    && oneline "$T/r14_rep.out" | grep -qF "for the models deepseek-v2 (d = 192)" \
    && oneline "$T/r14_rep.out" | grep -qF "(their config files' names under analysis/models/)" \
    && pass "reader14: the papers' note calls only FA3's Figure 6 backward too fast (cuDNN's rows on both sides of 1); the kernels note's model names are the config files'" \
    || fail "reader14: papers/kernels notes: cuDNN below/above 1 '$r14_cud'"
