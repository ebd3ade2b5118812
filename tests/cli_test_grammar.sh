# cli_test_grammar.sh -- the one option grammar (analysis/cli/options.c) as a user meets it: a
# path option given another option as its value, an option of another command, stray words,
# --acc without --dtype, --headdim with --model, fasim help CMD, explain with an explicit
# profile that cannot run, and check --save-npy all or nothing.  Sourced by cli_test.sh.
case $FASIM in /*) FG_ABS=$FASIM ;; *) FG_ABS=$PWD/$FASIM ;; esac
(cd "$T" && "$FG_ABS" sweep --vary seqlen=64 --out --quiet >/dev/null 2>"$T/err"); rc=$?
[ $rc = 2 ] && grep -q "^fasim: --out needs a value (got the option '--quiet'" "$T/err" && [ ! -e "$T/--quiet" ] \
    && pass "sweep --out --quiet: the value is missing, no file named --quiet" || fail "sweep --out --quiet: exit $rc, $(cat "$T/err")"
expect_msg "animate --out-dir followed by an option" "--out-dir needs a value (got the option '--heatmap'" -- animate --out-dir --heatmap
expect_msg -x "explain --doc-mask: an option of other commands, named" \
    "--doc-mask is not an option of fasim explain (see fasim explain --help)" -- explain --doc-mask 3,4
expect_msg -x "explain --doc-mask=3,4: the name alone" \
    "--doc-mask is not an option of fasim explain (see fasim explain --help)" -- explain --doc-mask=3,4
expect_msg "a stray word" "unexpected argument 'extra': fasim io takes options only" -- io --seqlen 64 extra
expect_msg "a bare --" "'--' ends nothing here" -- io -- --seqlen 64
expect_msg "check --acc without --dtype" "--acc need --dtype" -- check --acc fp64
expect_msg "check --dtype with --kv-len" "does not support the inference options" -- check --dtype bf16 --kv-len 64
"$FASIM" io --model analysis/models/gpt2-medium.json --headdim 32 --algo flash2 | head -1 | grep -q " d=32 d_v=32 " \
    && pass "--headdim with --model moves d_v with it" || fail "--headdim with --model: $("$FASIM" io --model analysis/models/gpt2-medium.json --headdim 32 --algo flash2 | head -1)"
"$FASIM" help io | head -1 | grep -q "^usage: fasim io" && pass "fasim help io: io's help" || fail "fasim help io"
expect_msg "explain --profile fa2 --dtype fp32: refused as in io" "--profile fa2 cannot time this configuration" \
    -- explain --profile fa2 --dtype fp32
mkdir -p "$T/sn/v.npy" && echo OLD >"$T/sn/q.npy"
expect_msg "check --save-npy: a file in the way" "cannot write $T/sn/v.npy: it is a directory" -- check --save-npy "$T/sn" --seqlen 16
[ "$(cat "$T/sn/q.npy")" = OLD ] && [ ! -e "$T/sn/k.npy" ] && [ -z "$(ls "$T/sn" | grep tmp)" ] \
    && pass "check --save-npy: nothing written when one file cannot be" || fail "check --save-npy wrote part: $(ls "$T/sn")"
expect_msg -x "a missing value at the end, said alike" "--layout needs a value" -- check --layout
expect_msg -x "--window at the end" "--window needs a value" -- io --window
expect_msg "--algo with an empty item" "--algo ',flash1' has an empty item" -- io --algo ,flash1
expect_msg "check --save-npy with an option it does not use" "check --save-npy does not use --algo" -- check --save-npy "$T/sn2" --algo flash1
[ ! -e "$T/sn2" ] && pass "check --save-npy refused: no directory made" || fail "check --save-npy refused but made $T/sn2"
# sweep's CSV never repeats a column name (a varied batch, heads or splits is the table's own)
for v in "batch=1,2 --seqlen 64" "heads=1,2 --seqlen 64" "splits=1,2 --decode --kv-len 256"; do
    # shellcheck disable=SC2086
    h=$("$FASIM" sweep --vary $v | head -1)
    [ -z "$(echo "$h" | tr ',' '\n' | sort | uniq -d)" ] && pass "sweep --vary ${v%% *}: no repeated column" \
        || fail "sweep --vary ${v%% *}: repeated columns $(echo "$h" | tr ',' '\n' | sort | uniq -d | tr '\n' ' ')"
done
"$FASIM" check --save-npy "$T/sv16" --dtype fp16 --seqlen 16 >/dev/null
expect_msg "check --bf16 with fp16 files: refused, not ignored" "--bf16 reads 16-bit integer .npy data as bfloat16 bits" \
    -- check --q "$T/sv16/q.npy" --k "$T/sv16/k.npy" --v "$T/sv16/v.npy" --out "$T/sv16/o.npy" --bf16
