# cli_test_reader24.sh -- issue 19, the twenty-fourth reader's findings (/work/notes/reader24_findings.md,
# items 3-6): where the tutorial's `fasim` is, the two decoding time models side by side, a plot's log
# axes, the B200 roofline beside the time model, report's overflow limit, check/animate's own
# --block-r wording and help text into a closed pipe.  Sourced by tests/cli_test.sh (FASIM, T,
# pass/fail/expect_msg from cli_lib.sh).
R24_ROOT="$(dirname "$0")/.."

# ---- 3: the tutorial says how to run its `$ fasim ...` commands (./build/fasim after make, or build/ on PATH) ----
grep -qxF 'export PATH=$PWD/build:$PATH    # from the repository root; then `fasim io ...` runs ./build/fasim' "$R24_ROOT/docs/tutorial.md" \
    && [ "$(awk '/^export PATH=\$PWD\/build:\$PATH/ {print NR; exit}' "$R24_ROOT/docs/tutorial.md")" -lt "$(awk '/^\$ fasim / {print NR; exit}' "$R24_ROOT/docs/tutorial.md")" ] \
    && grep -q '^or type `./build/fasim` where a command says `fasim`' "$R24_ROOT/docs/tutorial.md" \
    && grep -q '^BUILD *?= build$' "$R24_ROOT/Makefile" \
    && pass "reader24 #3: the tutorial says, before its first command, that make builds ./build/fasim and how to put it on PATH" \
    || fail "reader24 #3: the tutorial does not say where fasim is"

# ---- 4: the wave model (io --decode, report's decode table) next to the time model; launch_s = 4 us it leaves out:
#      batch 1, 1024 keys, S = 8: 2.446 us + 2 x 4 us = 10.45 us ----
"$FASIM" report --no-plots --hw h200 --model "$R24_ROOT/analysis/models/llama-3-8b.json" --out-dir "$T" > "$T/r24_rep" 2>&1; r24_rc=$?
r24_d=$(oneline "$T/r24_rep")
[ "$r24_rc" = 0 ] && grep -q '^    1    1024 |.*|    8  4.322 MiB   6.27%   2.446 us |' "$T/r24_rep" \
    && echo "$r24_d" | grep -qF "The times leave out kernel launches: the profile's launch_s is 4 us a kernel, one at S = 1, two (main + combine) with a split, so batch 1's 2.446 us at 1024 keys is 10.45 us with them." \
    && echo "$r24_d" | grep -qF "take the time model's fasim io --seqlen 1 --seqlen-k N --algo flash2 (docs/inference.md, \"Two decoding time models\")" \
    && [ "$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) h[$i] = i} NR > 1 && $h["batch"] == 1 && $h["kv_len"] == 1024 && $h["kernel"] == "packed-split" {printf "%d %.4g", $h["splits"], $h["time_s"] + 2 * 4e-6}' "$T/decode.csv")" = "8 1.045e-05" ] \
    && pass "reader24 #4: report's decode note: launch_s 4 us a kernel left out, 2.446 us -> 10.45 us with two launches; the time model named" \
    || fail "reader24 #4: report decode note (rc $r24_rc): $(grep -n 'launch' "$T/r24_rep" | head -3)"
"$FASIM" io --decode --kv-len 1024 --heads 32 --kv-heads 8 --headdim 128 --dtype bf16 > "$T/r24_dec" 2>&1; r24_rc=$?
"$FASIM" io --decode --kv-len 1024 --heads 32 --kv-heads 8 --headdim 128 --dtype bf16 --hw a100 > "$T/r24_dec_a" 2>&1
[ "$r24_rc" = 0 ] \
    && grep -qF "(time(wave) is the wave model's, for comparing these kernels with each other (split or not, per head or packed, paged): it charges no kernel launch -- add the profile's launch_s = 4 us a kernel, one at S = 1 and two (main + combine) with a split -- nor the L2; for one kernel's predicted time take the time model, fasim io --seqlen N_q --seqlen-k N_k --algo flash2" "$T/r24_dec" \
    && grep -qF "launch_s = 4 us a kernel" "$T/r24_dec_a" \
    && grep -q '^## Two decoding time models$' "$R24_ROOT/docs/inference.md" \
    && tr '\n' ' ' < "$R24_ROOT/docs/inference.md" | grep -qF "with its two launches (main + combine, 2 × 4 µs) it is 10.45 µs, as the report's note says" \
    && grep -qF '| `fasim io --seqlen 1 --seqlen-k N --algo flash2 ...` | the time model (docs/time-model.md) |' "$R24_ROOT/docs/inference.md" \
    && pass "reader24 #4: io --decode's note names the launch_s (4 us) it leaves out and the time model; inference.md's 'Two decoding time models'" \
    || fail "reader24 #4: io --decode note (rc $r24_rc): $(tail -1 "$T/r24_dec" | head -c 400)"

# ---- 5a: cp_time_vs_p's axes are log scale (x base 2, y base 10) and their labels say so, as the other plots'
#      (the rendered SVG text is checked in cli_test_plots.sh) ----
r24_gp="$R24_ROOT/plots/cp_time_vs_p.gp"
grep -qx 'set logscale x 2' "$r24_gp" && grep -qx 'set logscale y 10' "$r24_gp" \
    && grep -qx 'set xlabel "GPUs P (log scale)"' "$r24_gp" \
    && grep -qx 'set ylabel "predicted time of one layer (log scale)"' "$r24_gp" \
    && pass "reader24 #5a: cp_time_vs_p's log axes are labelled 'log scale'" \
    || fail "reader24 #5a: cp_time_vs_p's labels: $(grep -n 'label\|logscale' "$r24_gp" | head -4)"

# ---- 5b: report --hw b200: fa1's, fa2's parenthesised rooflines (fa2 562.2 us at Llama-3-8B, N = 8192) are said
#      to be ideal bounds at the datasheet's 2250 TFLOP/s and 8 TB/s, not comparable with the time model's times ----
"$FASIM" report --no-plots --hw b200 --model "$R24_ROOT/analysis/models/llama-3-8b.json" --out-dir "$T" > "$T/r24_b2" 2>&1; r24_rc=$?
"$FASIM" report --no-plots --hw h200 --model "$R24_ROOT/analysis/models/llama-3-8b.json" --out-dir "$T" > "$T/r24_h2" 2>&1
r24_o=$(oneline "$T/r24_b2")
[ "$r24_rc" = 0 ] && grep -q '^ *flash2 *fa2 .* (562.2 us) .* (977.9) *memory  roofline time and TFLOP/s, in parentheses.*; an ideal bound, not a prediction: not comparable with a time-model time (legend below)$' "$T/r24_b2" \
    && [ "$(grep -c 'an ideal bound, not a prediction: not comparable with a time-model time (legend below)$' "$T/r24_b2")" = 2 ] \
    && echo "$r24_o" | grep -qF "The parenthesised time on B200-SXM is a roofline, max(FLOPs / peaks, HBM bytes / bandwidth), at the GPU's datasheet rates: the matmuls at its 2250 TFLOP/s dense fp16/bf16 tensor peak (which an mma.sync kernel as fa1 or fa2 does not reach there) and the bytes at the datasheet's 8 TB/s (the time model charges the sustained 6.57), with no L2, occupancy, tail or launch." \
    && echo "$r24_o" | grep -qF "it is NOT comparable with the time model's times" \
    && ! grep -q "parenthesised time on\|an ideal bound, not a prediction" "$T/r24_h2" \
    && pass "reader24 #5b: report --hw b200: fa1/fa2's rooflines (562.2 us) labelled ideal bounds at 2250 TFLOP/s, 8 TB/s, not comparable; none on the H200" \
    || fail "reader24 #5b: b200 roofline legend (rc $r24_rc): $(grep -n 'fa2\|parenthesised' "$T/r24_b2" | head -3)"

# ---- 5c: report's overflow names the largest N that fits, as io and sweep do (perf.c group_failure takes the whole
#      shape's closed-form message): GPT-2 medium (H = 16, d = 64) fits up to N = 67108863 = 2^26 - 1 ----
expect_msg -x "reader24 #5c: report --seqlen 2^31 - 1 on GPT-2 medium names the overflow and N = 67108863, as io" \
    "model openai-community/gpt2-medium, its table's standard row on A100-SXM4-80GB (B = 1, H = 16, H_kv = 16, N = 2147483647, d = 64, d_v = 64): standard's closed-form HBM bytes of tensor K exceed 64 bits for B = 1, H = 16, N_q = 2147483647, N_k = 2147483647, d = 64: at these B, H, d they fit up to N = 67108863 (use a smaller --seqlen, --batch or --heads)" \
    -- report --seqlen 2147483647 --model "$R24_ROOT/analysis/models/gpt2-medium.json" --out-dir "$T/r24_ovf" --no-plots --quiet
expect_msg "reader24 #5c: io at the same shape names the same limit" "they fit up to N = 67108863" \
    -- io --algo standard --seqlen 2147483647 --heads 16 --headdim 64
"$FASIM" io --algo standard --seqlen 67108863 --heads 16 --headdim 64 --profile paper --format csv > "$T/r24_fit" 2>&1 \
    && [ "$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "flops_matmul") c = i} NR == 2 {print $c}' "$T/r24_fit")" = 18446743523953741824 ] \
    && grep -qF '`io`, `sweep`, `compare` and `report` alike' "$R24_ROOT/README.md" \
    && pass "reader24 #5c: N = 67108863 counts 4 N^2 d H = 18446743523953741824 matmul FLOPs (under 2^64); README names report" \
    || fail "reader24 #5c: io N = 67108863: $(head -c 300 "$T/r24_fit")"

# ---- 5d: --block-r/--block-c described per command: io/explain count and time on them, check runs on them
#      numerically, animate draws them; none borrows io's "(io: ...)" wording ----
"$FASIM" check --help > "$T/r24_hc" 2>&1; "$FASIM" animate --help > "$T/r24_ha" 2>&1
"$FASIM" io --help > "$T/r24_hi" 2>&1; "$FASIM" explain --help > "$T/r24_he" 2>&1
r24_hc=$(oneline "$T/r24_hc"); r24_ha=$(oneline "$T/r24_ha")
echo "$r24_hc" | grep -qF -- "--block-r B_r --block-c B_c the tiles every algorithm (and --decode's kernels) runs on numerically: they set the blocked order of its sums, hence its rounding, and with --fp8-quant block the quantization blocks; no HBM count, no time model" \
    && echo "$r24_ha" | grep -qF -- "--block-r B_r --block-c B_c the tiles drawn: one frame per transfer of a B_r x B_c tile, the heatmap's cells per tile (T_r, T_c at most 16 each); nothing is timed" \
    && oneline "$T/r24_hi" | grep -qF -- "--block-r B_r --block-c B_c explicit tile sizes, counted in the paper's model, and the time model times each kernel on them" \
    && oneline "$T/r24_he" | grep -qF -- "--block-r B_r --block-c B_c explicit tile sizes, counted in the paper's model, and the time model times each kernel on them" \
    && ! grep -q "(io: counted" "$T/r24_hc" "$T/r24_ha" "$T/r24_hi" "$T/r24_he" \
    && pass "reader24 #5d: check, animate, io and explain each describe --block-r/--block-c in their own terms" \
    || fail "reader24 #5d: --block-r help: $(grep -A1 -- '--block-r B_r' "$T/r24_hc" "$T/r24_ha" | head -4)"
r24_msg=$("$FASIM" animate --seqlen 1024 --block-r 16 --block-c 16 --out-dir "$T" 2>&1 >/dev/null)
[ "$r24_msg" = "fasim: animate draws at most 16 x 16 tiles; T_r = 64, T_c = 64 (use larger --block-r/--block-c or a shorter --seqlen)" ] \
    && pass "reader24 #5d: animate refuses T_r = T_c = 64 > 16, as its --block-r help says" || fail "reader24 #5d: animate 64 x 64 tiles: $r24_msg"

# ---- 6: help text into a closed pipe ends quietly (exit 0, nothing on stderr); data output still exits 1 with
#      its message, and help into a full disk still fails.  The pipe's read end is closed before fasim starts,
#      so every write fails with EPIPE (no race with head) ----
if ! command -v python3 >/dev/null 2>&1; then
    skip "reader24 #6: help into a closed pipe" "no python3 to close the pipe first"
else
    python3 - "$FASIM" > "$T/r24_pipe" 2>&1 <<'PY'
import os, subprocess, sys
def run(args):
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([sys.argv[1]] + args, stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    return "%d [%s]" % (p.returncode, p.stderr.decode().strip())
for a in (["help", "io"], ["io", "--help"], ["report", "--help"], ["--help"], ["--version"], ["io", "--seqlen", "64"]):
    print(" ".join(a) + ": " + run(a))
PY
    r24_e=$(printf '%s\n' "help io: 0 []" "io --help: 0 []" "report --help: 0 []" "--help: 0 []" "--version: 0 []" \
        "io --seqlen 64: 1 [fasim: cannot write standard output: Broken pipe]")
    "$FASIM" help io > /dev/full 2> "$T/r24_full"; r24_rc=$?
    [ "$(cat "$T/r24_pipe")" = "$r24_e" ] && [ "$r24_rc" = 1 ] \
        && grep -qxF "fasim: cannot write standard output: No space left on device" "$T/r24_full" \
        && tr '\n' ' ' < "$R24_ROOT/README.md" | grep -qF 'help text is not data, so `fasim help io | head -3` (any `--help`, `fasim help CMD`, `--version`) into a closed pipe ends quietly with 0' \
        && pass "reader24 #6: help and --version into a closed pipe exit 0 quietly; io's data exits 1 'Broken pipe'; help into /dev/full exits 1; README says so" \
        || fail "reader24 #6: closed pipe: $(cat "$T/r24_pipe" | tr '\n' ';'), /dev/full rc $r24_rc: $(cat "$T/r24_full")"
fi
