# cli_test_reader15.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg, oneline;
# $T, $FASIM).  The fifteenth fresh reading (issue 18): compare says which GPU it takes the rows as
# measured on and notes a file from another GPU's folder; the kernels table says which profiles it
# holds; a missing folder's message says which options create theirs; explicit tiles over M name
# the options and the limit.
R15_ROOT=$(dirname "$0")/..
R15_H200=$R15_ROOT/analysis/measured/h200

# ---- 1: compare on another GPU than the file's folder names ----
fasim_memo compare --measured "$R15_H200/compare_input.csv" --hw h100 > "$T/r15_c1" 2> "$T/r15_c1e"; r15_rc=$?
fasim_memo compare --measured "$R15_H200/compare_input.csv" --hw h200 > "$T/r15_c2" 2> "$T/r15_c2e"
[ "$r15_rc" = 0 ] \
    && grep -qF "fasim: note: $R15_H200/compare_input.csv lies in a folder named h200, the GPU it was measured on, but --hw h100 predicts H100-SXM5: the ratios set two GPUs side by side, not a validation (give --hw h200)" "$T/r15_c1e" \
    && grep -qF "(the file names no GPU: its rows are taken as measured on the H100-SXM5; its folder's name says otherwise, see the note on standard error)" "$T/r15_c1" \
    && grep -qxF "(the file names no GPU: its rows are taken as measured on the H200-SXM)" "$T/r15_c2" && [ ! -s "$T/r15_c2e" ] \
    && pass "reader15: compare names the GPU it takes the rows as measured on, and notes an h200 file predicted on the H100" \
    || fail "reader15: compare's GPU note: $(cat "$T/r15_c1e" | head -2) | $(sed -n 2p "$T/r15_c1")"

# ---- 2: the kernels table says which profiles it holds ----
"$FASIM" report --no-plots --model "$R15_ROOT/analysis/models/llama-3-8b.json" --out-dir "$T/r15_rep" > "$T/r15_rep.out" 2>&1
oneline "$T/r15_rep.out" | grep -qF "(The kernels tables hold the published kernels' profiles -- eager, math, fa1, fa2, fa3, cudnn, fa4; kernels/ v0-v5 and sdpa_flash are timed by fasim io --model FILE --profile KEY." \
    && oneline "$R15_ROOT/README.md" | grep -qF "the published kernels' profiles -- eager, math, fa1, fa2, fa3, cudnn and, on the B200, fa4 --" \
    && oneline "$R15_ROOT/docs/report-csv.md" | grep -qF "kernels/ v0-v5 and sdpa_flash are not in it" \
    && pass "reader15: the kernels table, README and report-csv.md name the profiles it holds (v0-v5 by io --profile)" \
    || fail "reader15: kernels table profiles not named"

# ---- 3: a missing folder: which options create theirs (their last folder only: reader23 #9) ----
expect_msg "reader15: sweep --out into a missing folder says which options create folders" \
    "the directory $T/r15_none does not exist (a file option -- sweep --out, io --trace -- does not create its folder: make it first; the folder options report --out-dir, animate --out-dir, check --study and --save-npy create their last folder only)" -- \
    sweep --vary seqlen=256:1024:x2 --out "$T/r15_none/x.csv"

# ---- 4: explicit tiles over M name the options, the need and the limit ----
expect_msg "reader15: explicit tiles over M name --block-r/--block-c, the need and M" \
    "--block-r 100000 --block-c 64: standard's buffers on these tiles need 51208192 B of SRAM, over the limit M = 232448 B (--sram, default the hardware profile's shared memory per block); --blocks fit picks the largest tiles that fit" -- \
    io --block-r 100000 --block-c 64 --profile paper

# ---- reader16 #1: README's repeated-option exceptions include sweep's --vary (the same name twice refused) ----
expect_msg "reader16: sweep --vary with one name twice is refused" "--vary headdim given twice" -- \
    sweep --vary headdim=64,128 --vary headdim=32
oneline "$R15_ROOT/README.md" | grep -qF "\`fasim sweep\`'s \`--vary\` may be given once for each name it varies, the same name twice refused" \
    && pass "reader16: README lists sweep --vary among the repeated-option exceptions" \
    || fail "reader16: README's repeated-option exceptions lack sweep --vary"
