# cli_test_reader9.sh -- the ninth reader's list: a kernel of one architecture refused on another GPU
# with explicit tiles too (it used to time v4 on the A100 by the roofline and fail fa3/cudnn/v5 on an
# empty register file), the report's "No row" reason and flash1/flash2 note, the README's and docs'
# figures labelled with the run and the model they come from.
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, oneline; $T, $FASIM).

R9_ROOT="$(dirname "$0")/.."

# ---- 1: arch refused with or without --block-r/--block-c ----
r9_ok=1
for r9_p in v4 fa3 cudnn v5; do
    for r9_t in "" "--block-r 64 --block-c 64"; do
        # shellcheck disable=SC2086
        "$FASIM" io --profile $r9_p --hw a100 $r9_t > "$T/r9_out" 2> "$T/r9_err"
        r9_rc=$?
        { [ $r9_rc -eq 2 ] && [ ! -s "$T/r9_out" ] &&
          grep -q "profile $r9_p runs on sm_90 (Hopper: wgmma); the hardware profile is sm_80" "$T/r9_err"; } || r9_ok=0
    done
done
"$FASIM" io --profile fa4 --hw h200 --block-r 64 --block-c 64 > /dev/null 2> "$T/r9_err"
r9_rc=$?
[ $r9_ok = 1 ] && [ $r9_rc -eq 2 ] && grep -q "profile fa4 runs on sm_100 (Blackwell: tcgen05); the hardware profile is sm_90" "$T/r9_err" \
    && "$FASIM" io --hw b200 --block-r 64 --block-c 64 > /dev/null \
    && pass "reader9: v4, fa3, cudnn, v5 on the A100 and fa4 on the H200 refused with explicit tiles too (exit 2, the arch named); fa2 on the B200 still counts" \
    || fail "reader9: arch refusal with tiles (rc $r9_rc: $(cat "$T/r9_err"))"

# ---- 6 and the minor one: the report's kernels footnote and the flash1/flash2 note ----
"$FASIM" report --out-dir "$T/r9_rep" --no-plots > "$T/r9_report" 2>&1
r9_rep=$(oneline "$T/r9_report")
echo "$r9_rep" | grep -q "the kernel has no tile for the head dims of the models named (fa1: d <= 128), or its tiles do not fit the GPU's shared memory" \
    && ! echo "$r9_rep" | grep -q "the model's table above says which" \
    && echo "$r9_rep" | grep -Eq "tiiuae/falcon-7b at d = 64: T_c = 8 against T_r = 16" \
    && pass "reader9: the report's No row reason names what it applies to; the flash1/flash2 note drops the GPU (T_c, T_r are the same on every GPU)" \
    || fail "reader9: report footnotes"

# ---- 2, 3, 4, 5, 7: figures with their run and model ----
r9_readme=$(oneline "$R9_ROOT/README.md")
r9_tm=$(oneline "$R9_ROOT/docs/time-model.md")
r9_res=$(oneline "$R9_ROOT/docs/results.md")
r9_v1=$(fasim_memo compare --measured "$R9_ROOT/analysis/measured/h200/compare_input.csv" --hw h200 | grep -Ec "^v1 +[0-9]+ +[0-9]+/[0-9]+ +256/4096 ")
echo "$r9_readme" | grep -q "18 kernel runs, all at N = 4096 (kernels/ v1's two with their 256-row query slices counted as heads" && [ "$r9_v1" = 2 ] \
    && echo "$r9_tm" | grep -q "18 kernel rows, all at N = 4096, kernels/ v1's two as 256-row query slices counted as heads, H 256/16 and 512/32, N 256/4096" \
    && echo "$r9_res" | grep -q "in the seventh session's call (0.997–1.204× and 0.954–1.221× re-measured in the eighth's)" \
    && echo "$r9_tm" | grep -q "With the model before the load clock and the issue slots, all rows of the issue's kernels" \
    && echo "$r9_readme" | grep -q "1.22–1.25× the bf16 v5 without a mask at N ≥ 4k (1.19–1.28× with one and without)" \
    && echo "$r9_readme" | grep -q "takes the largest multiple of 16, B, with 4B²" \
    && pass "reader9: compare_input's two v1 rows (N 256/4096) named; v5 backward and 512-row figures labelled with their run and model; FP8 range's mask; --blocks fit's multiple of 16" \
    || fail "reader9: README/docs figures"
