# cli_test_repeats.sh -- values that repeat or mix: report --hw given twice (each table would be
# printed twice), --algo 'all' inside a list.  Sourced by cli_test.sh (pass, fail, expect_exit,
# $T, $FASIM).
expect_exit 2 "report --hw a100 --hw a100" -- report --hw a100 --hw a100 --out-dir "$T/o_rep2" --no-plots
grep -q "given twice" "$T/err" && pass "report names the repeated --hw" || fail "report --hw twice: $(cat "$T/err")"
[ ! -e "$T/o_rep2" ] && pass "refused report creates no directory" || fail "refused report created $T/o_rep2"
expect_exit 2 "explain --algo all,flash2" -- explain --algo all,flash2
grep -q "'all' stands alone" "$T/err" && pass "--algo all in a list: message says all stands alone" \
    || fail "--algo all,flash2 message: $(cat "$T/err")"
expect_exit 2 "io --algo flash2,all" -- io --algo flash2,all
# an overflow of the closed forms names the shape and the options to reduce
expect_exit 2 "io --seqlen 2147483647: closed forms beyond 64 bits" -- io --seqlen 2147483647
grep -q "exceed 64 bits for B = 1, H = 1, N_q = 2147483647, N_k = 2147483647, d = 64 (use a smaller --seqlen" "$T/err" \
    && pass "overflow message names the shape" || fail "overflow message: $(cat "$T/err")"
# a model config.json with a key twice is refused (which value would count?)
printf '{"num_attention_heads": 8, "num_attention_heads": 4, "hidden_size": 512}' > "$T/dup_key.json"
expect_exit 2 "--model with a duplicated key" -- io --model "$T/dup_key.json"
grep -q "duplicate object key" "$T/err" && pass "duplicated model key named" || fail "duplicate key: $(cat "$T/err")"
# --heads alone on an MHA model keeps it MHA; on a GQA model the kv heads stay
"$FASIM" io --model analysis/models/gpt2-medium.json --heads 4 --algo flash2 2>"$T/err" | grep -q "H=4 H_kv=4 " \
    && pass "--heads 4 on GPT-2 (MHA) sets H_kv = 4" || fail "--heads on an MHA model: $(cat "$T/err")"
"$FASIM" io --model analysis/models/llama-3-8b.json --kv-heads 4 --algo flash2 2>"$T/err" | grep -q "H=32 H_kv=4 " \
    && pass "--kv-heads 4 on Llama-3 keeps H = 32" || fail "--kv-heads on a GQA model: $(cat "$T/err")"
