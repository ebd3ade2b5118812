# cli_test_reader10.sh -- the tenth reader's list (issue 18's acceptance test): a report piped into
# `head -1` leaves no temporaries and the next report sweeps a killed one's; the roofline times name
# the datasheet bandwidth they use; the kernels table's waves beside blocks/SM; the hbm_vs_n keys'
# coincidence note and the first sampled N of the Theta line; the decode note's "nearly the same
# time"; no C function name in the report's output; every byte-size suffix listed; the B_r/B_c legend.
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip, oneline, svg_gnuplot, pl_text,
# pl_has; $T, $FASIM).

R10_ROOT="$(dirname "$0")/.."
R10_MODELS="$R10_ROOT/analysis/models"

# ---- 1: SIGPIPE ignored; a failed stdout removes the temporaries; the sweep removes a killed report's ----
# the report's stdout (about 95 KB) outgrows the pipe once head has its line and exits; it used to
# die of SIGPIPE with its ~47 NAME.tmp.PID left in the folder
mkdir -p "$T/r10_pipe"
{ "$FASIM" report --out-dir "$T/r10_pipe" 2> "$T/r10_pipe_err"; echo $? > "$T/r10_pipe_rc"; } | head -1 > "$T/r10_pipe_out"
r10_rc=$(cat "$T/r10_pipe_rc")
r10_left=$(ls -A "$T/r10_pipe" | wc -l)
{ "$FASIM" report --no-plots --out-dir "$T/r10_pipe2" 2>/dev/null; echo $? > "$T/r10_pipe_rc2"; } | head -1 > /dev/null
[ "$r10_rc" = 1 ] && [ "$r10_left" -eq 0 ] && grep -q '^== ' "$T/r10_pipe_out" \
    && grep -qxF "fasim: cannot write standard output: Broken pipe; no output file written (the temporaries removed)" "$T/r10_pipe_err" \
    && [ "$(cat "$T/r10_pipe_rc2")" = 1 ] && [ ! -e "$T/r10_pipe2" ] \
    && pass "reader10: report | head -1 exits 1 with one message, nothing left in its folder (no *.tmp.*), a folder it made removed" \
    || fail "reader10: report | head -1: rc $r10_rc, left: $(ls -A "$T/r10_pipe" | head -5 | tr '\n' ' '), err: $(cat "$T/r10_pipe_err")"
# into an earlier report's folder: the earlier files stay as they were when stdout fails
"$FASIM" report --no-plots --model "$R10_MODELS/gpt2-medium.json" --out-dir "$T/r10_rep" > "$T/r10_rep.out" 2>&1
cp "$T/r10_rep/kernels.csv" "$T/r10_kernels_before.csv"
{ "$FASIM" report --no-plots --out-dir "$T/r10_rep" 2>/dev/null; echo $? > "$T/r10_pipe_rc"; } | head -1 > /dev/null
[ "$(cat "$T/r10_pipe_rc")" = 1 ] && [ -z "$(ls "$T/r10_rep" | grep '\.tmp\.')" ] && cmp -s "$T/r10_rep/kernels.csv" "$T/r10_kernels_before.csv" \
    && pass "reader10: a report that cannot write stdout leaves an earlier report's files as they were, no temporary" \
    || fail "reader10: failed report in an earlier folder: rc $(cat "$T/r10_pipe_rc"), $(ls "$T/r10_rep" | tr '\n' ' ')"
# a killed report's temporaries (its process gone) are swept; a running process's, and other names', stay
r10_dead=$(sh -c 'echo $$')
r10_live=$$
for r10_f in "report.csv.tmp.$r10_dead" "hbm_vs_n_gpt-neox-20b.png.tmp.$r10_dead" "kernels.csv.tmp.$r10_live" "notes.txt.tmp.$r10_dead"; do
    echo partial > "$T/r10_rep/$r10_f"
done
echo old > "$T/r10_rep/hbm_vs_n_gone.csv" # an earlier run's file of a model not given now
"$FASIM" report --no-plots --model "$R10_MODELS/gpt2-medium.json" --out-dir "$T/r10_rep" > "$T/r10_rep.out" 2>&1
r10_rc=$?
r10_now=$(ls "$T/r10_rep" | grep '\.tmp\.' | tr '\n' ' ')
[ $r10_rc -eq 0 ] && [ "$r10_now" = "kernels.csv.tmp.$r10_live notes.txt.tmp.$r10_dead " ] && [ ! -e "$T/r10_rep/hbm_vs_n_gone.csv" ] \
    && grep -qxF "  $T/r10_rep/report.csv.tmp.$r10_dead" "$T/r10_rep.out" \
    && grep -qxF "  $T/r10_rep/hbm_vs_n_gpt-neox-20b.png.tmp.$r10_dead" "$T/r10_rep.out" \
    && oneline "$T/r10_rep.out" | grep -qF "removed from $T/r10_rep, the temporaries (NAME.tmp.PID) of a report that was killed while writing (process PID no longer runs" \
    && pass "reader10: the report sweeps a killed report's NAME.tmp.PID of its own names (listed), keeps a running process's and other names'" \
    || fail "reader10: temporaries after the sweep: '$r10_now' (rc $r10_rc)"
rm -f "$T/r10_rep/kernels.csv.tmp.$r10_live" "$T/r10_rep/notes.txt.tmp.$r10_dead"

# ---- 7: no C function name in what the report prints ----
oneline "$T/r10_rep.out" | grep -qF "removed from $T/r10_rep, an earlier report's files this run did not write (other models, --no-plots, no long-context model; only the report's own file names):" \
    && ! grep -Eq 'fa_[a-z_]+|cli_[a-z_]+\(' "$T/r10_rep.out" \
    && pass "reader10: the report's 'removed from' note names no C function (fa_report_owns_file)" \
    || fail "reader10: C names in the report's output: $(grep -Eo 'fa_[a-z_]+' "$T/r10_rep.out" | sort -u | tr '\n' ' ')"

# ---- 2: the roofline times name the datasheet HBM bandwidth (4.8 TB/s on the H200), the rest the sustained 3.94 ----
"$FASIM" io --decode --kv-len 4096 --heads 32 --kv-heads 8 --headdim 128 --dtype bf16 --hw h200 --gqa per-head > "$T/r10_dec" 2>&1
"$FASIM" io --decode --kv-len 4096 --heads 32 --kv-heads 8 --headdim 128 --dtype bf16 --hw a100 --gqa per-head > "$T/r10_dec_a" 2>&1
# per-head, N_k = 4096, d = 128, bf16: 32 heads x (2 x 4096 x 128 x 2 B of K, V + 256 B Q) + O 256 B + LSE 4 B
r10_b=$((32 * (2 * 4096 * 128 * 2 + 256 + 256 + 4)))
r10_roof=$("$FASIM" io --decode --kv-len 4096 --heads 32 --kv-heads 8 --headdim 128 --dtype bf16 --hw h200 --gqa per-head --format json \
    | jq -r --argjson b "$r10_b" '.[0] | [(.hbm_bytes == $b), ((.time_roofline_s / ($b / 4.8e12) - 1) | fabs < 1e-6)] | @csv' 2>/dev/null)
grep -qF "roofline: max(FLOPs / peak, HBM total / 4.8 TB/s, the datasheet HBM bandwidth, the whole GPU's whatever the grid)" "$T/r10_dec" \
    && grep -qF "each block with 1/132 of the GPU (of the peaks and the sustained 3.94 TB/s, dram_bytes_per_s)" "$T/r10_dec" \
    && grep -qF "HBM total / 2.04 TB/s, the datasheet HBM bandwidth" "$T/r10_dec_a" && grep -qF "sustained 1.67 TB/s" "$T/r10_dec_a" \
    && [ "$r10_roof" = "true,true" ] \
    && grep -qF '| `time_roofline_s` | the roofline time max(FLOPs / peaks, bytes / the datasheet HBM bandwidth `hbm_bandwidth_bytes_per_s`: the H200'"'"'s 4.8 TB/s' "$R10_ROOT/docs/report-csv.md" \
    && grep -qF 'bytes / the datasheet HBM bandwidth, the H200'"'"'s 4.8 TB/s; the plot'"'"'s title names the rate' "$R10_ROOT/docs/report-csv.md" \
    && pass "reader10: io --decode's roofline names 4.8 TB/s (datasheet; a100 2.04), time(wave) the sustained 3.94; roofline = bytes / 4.8e12; report-csv.md says so" \
    || fail "reader10: decode roofline rate (json: $r10_roof): $(tail -1 "$T/r10_dec" | head -c 600)"

# ---- 3: the kernels table's waves: 2 blocks/SM beside grid is 0.59 of a wave (128 blocks on 108 SMs) ----
"$FASIM" report --no-plots --model "$R10_MODELS/gpt2-medium.json" --hw a100 --hw h200 --out-dir "$T/r10_k" > "$T/r10_k.out" 2>&1
r10_row=$(awk '/^== kernels: openai-community\/gpt2-medium/ { on = 1 } on && /^A100/ { a = 1 } on && a && $1 == "fa2" { print $7 " " $8 " " $NF; exit }' "$T/r10_k.out")
r10_csv=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["model"] == "gpt2-medium" && $c["hw"] == "a100" && $c["profile"] == "fa2" { print $c["blocks_per_sm"] " " $c["occupancy"] " " $c["waves"] " " $c["bound"] }' "$T/r10_k/kernels.csv")
r10_eag=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["profile"] == "eager" { print $c["waves"] }' "$T/r10_k/kernels.csv" | sort -u)
# B x H x N / B_r = 16 x 1024 / 128 = 128 thread blocks, 108 SMs x 2 = 216 slots: 0.5926
[ "$r10_row" = "2 0.59 grid" ] && [ "$r10_csv" = "2 2 0.5926 grid" ] && [ "$r10_eag" = 0 ] \
    && grep -q "^hardware  *kernel  *tiles warps  smem/blk regs blocks/SM  waves  *time  TFLOP/s  *bound$" "$T/r10_k.out" \
    && oneline "$T/r10_k.out" | grep -qF "waves: the grid's thread blocks / (SMs x blocks/SM), how many times the grid fills the SMs' slots; under 1 the grid is a fraction of one wave" \
    && grep -qF '| `waves` | the table'"'"'s `waves`: the grid'"'"'s thread blocks / (SMs x `blocks_per_sm`)' "$R10_ROOT/docs/report-csv.md" \
    && pass "reader10: kernels table and kernels.csv: GPT-2 medium's fa2 on the A100 runs 2 blocks/SM at 0.59 waves (128 / 216), bound grid; legend and report-csv.md define waves" \
    || fail "reader10: kernels waves: table '$r10_row', csv '$r10_csv', eager '$r10_eag'"

# ---- 6: the decode note: packed is 0.3 % slower at batch 1, not "the same time" ----
r10_dr=$(awk -F, 'NR > 1 && $1 == 1 && $2 == 1024 { t[$3] = $10 } END { printf "%.3f", t["packed"] / t["per-head"] }' "$T/r10_k/decode.csv")
r10_dn=$(oneline "$T/r10_k.out")
[ "$r10_dr" = "1.003" ] \
    && echo "$r10_dn" | grep -qF "At batch 1 per head and packed take nearly the same time in this model: each thread block streams one group's K and V at its 1/132 share either way, and a packed block reads and writes the Q and O rows of 4 query heads instead of 1, so packed is up to 0.3 % slower (packed gain 1.00x)" \
    && ! echo "$r10_dn" | grep -qF "take the same time in this model" \
    && grep -qF "make it 0.3 % slower (17.63 µs against per-head's 524804 B x 132 /" "$R10_ROOT/docs/inference.md" \
    && pass "reader10: the decode note says packed is up to 0.3 % slower at batch 1 (decode.csv: 17.63 / 17.58 us = 1.003), as inference.md" \
    || fail "reader10: decode note (packed / per-head at batch 1, 1024 keys: $r10_dr)"

# ---- 9: the B_r/B_c legend: what an SM's 228 KiB holds, with the numbers the code uses ----
"$FASIM" report --no-plots --model "$R10_MODELS/gemma-2-9b.json" --out-dir "$T/r10_g" > "$T/r10_g.out" 2>&1
"$FASIM" io --profile fa2 --hw h200 --headdim 256 --seqlen 4096 --algo flash2 > "$T/r10_g_io" 2>&1
oneline "$T/r10_g.out" | grep -qF "passes with B_r = 128, 64 at d = 256 on the H100-SXM5, H200-SXM (a 64 x 64 block with 4 warps takes 96 KiB of shared memory; an SM has 228 KiB, of which one block may use 227 KiB, and holds 2 such blocks at once)" \
    && ! grep -q "an SM holds two" "$T/r10_g.out" \
    && grep -Eq "^flash2 +fa2 split +64x64 +4 +96 KiB +[0-9]+ 2 \(registers, shared memory\)" "$T/r10_g_io" \
    && pass "reader10: the B_r legend: a 64 x 64 fa2 block takes 96 KiB, an SM's 228 KiB (227 KiB for one block) holds 2, as io prints" \
    || fail "reader10: B_r legend: $(grep -A2 "64 at d = 256" "$T/r10_g.out" | head -3)"

# ---- 8: --sram's message lists every suffix the parser takes, and each listed one is taken ----
expect_msg -x "reader10: --sram -1 lists every accepted suffix" \
    "--sram: '-1' is not a byte size (a whole number of bytes, or of a unit with its suffix: B, KiB or K, MiB or M, GiB (powers of 1024), KB, MB, GB (powers of 1000))" \
    -- io --sram -1
r10_bad=""
for r10_v in 262144B 256K 256KiB 1M 1MiB 1GiB 300KB 1MB 1GB; do
    "$FASIM" io --sram "$r10_v" --algo flash2 > /dev/null 2>&1 || r10_bad="$r10_bad $r10_v"
done
[ -z "$r10_bad" ] && pass "reader10: every suffix the message lists is accepted (B, K, KiB, M, MiB, GiB, KB, MB, GB)" \
    || fail "reader10: listed suffixes refused:$r10_bad"

# ---- 2, 4, 5: the plots' text (SVG renders of the same scripts and variables) ----
if command -v gnuplot >/dev/null 2>&1; then
    svg_gnuplot "$T/r10_bin" "$T/r10_svg"
    if PATH="$T/r10_bin:$PATH" "$FASIM" report --quiet --hw h200 --model "$R10_MODELS/gpt-neox-20b.json" \
        --model "$R10_MODELS/llama-3-8b.json" --model "$R10_MODELS/gpt2-medium.json" --out-dir "$T/r10_pl" 2>"$T/err"; then
        r10_nx=""; r10_l3=""; r10_g2=""
        for f in "$T/r10_svg"/hbm_vs_n.*.svg; do
            pl_text "$f" | grep -q "gpt-neox-20b: HBM bytes" && r10_nx=$f
            pl_text "$f" | grep -q "Meta-Llama-3-8B: HBM bytes" && r10_l3=$f
            pl_text "$f" | grep -q "gpt2-medium: HBM bytes" && r10_g2=$f
        done
        # the CSV behind it: flash1 / theta_standard within 5 % from N = 16k on, not at 8k
        r10_r=$(awk -F, 'NR > 1 { r = $3 / $5; if ($1 >= 16384 && (r < 1 || r > 1.05)) bad = 1; if ($1 == 8192 && r <= 1.05) bad = 1; if ($1 == 1048576) last = r }
            END { printf "%d %.2f", bad, last }' "$T/r10_pl/hbm_vs_n_gpt-neox-20b.csv")
        [ "$r10_r" = "0 1.03" ] && pass "reader10: gpt-neox-20b's flash1 / standard's Theta line within 5 % from N = 16k on (1.03 at 1M), over it at 8k" \
            || fail "reader10: neox flash1 / theta_standard: $r10_r"
        pl_has "reader10: hbm_vs_n (gpt-neox-20b, d = 96) says FlashAttention-1's curve lies on standard's Θ line, from 16k, and why" "$r10_nx" \
            "(FlashAttention-1's counted curve lies on this line, within 5 % from N = 16k on (counted / Θ = 1.03 at N = 1M):" \
            "causal, it re-reads Q and reads and writes O once per key block" "= N2 e at 3 d / (2 Bc) = 3·96 / (2·144) = 1)"
        pl_has "reader10: hbm_vs_n (Llama-3-8B, d = 128) says FlashAttention-2's curve lies on it from 8k, and why" "$r10_l3" \
            "(FlashAttention-2's counted curve lies on this line, within 5 % from N = 8k on (counted / Θ = 1.00 at N = 1M):" \
            "= N2 e at Br = d = 128)"
        pl_text "$r10_g2" | grep -q "lies on this line" && fail "reader10: a lies-on note on GPT-2 (its curves are off the line)" \
            || pass "reader10: no lies-on note where no counted curve is within 5 % of the line (GPT-2 medium)"
        # M = 232448 B: d = 128, bf16: 908 -> first sampled 1k; d = 96, fp16: 1211 -> 2k
        pl_has "reader10: Llama-3-8B's key: the Θ line is drawn from the first sampled N >= 908, 1k" "$r10_l3" \
            "(drawn from N = 1k, the first sampled N >= M / (d e) = 908: below it M > N d e"
        pl_has "reader10: gpt-neox-20b's key: drawn from the first sampled N >= 1211, 2k" "$r10_nx" \
            "(drawn from N = 2k, the first sampled N >= M / (d e) = 1211: below it M > N d e"
        pl_has "reader10: hbm_vs_block's title names the roofline's rate (4.8 TB/s, datasheet) and the time model's (3.94 TB/s)" \
            "$T/r10_svg/hbm_vs_block.0.svg" \
            "time = max(FLOPs / peak, bytes / 4.8 TB/s, the datasheet HBM bandwidth)), not the kernel time model of the stdout tables" \
            "(which charges the sustained DRAM rate, 3.94 TB/s)"
    else
        fail "reader10: report with plots: $(head -3 "$T/err")"
    fi
else
    skip "reader10: the plots' keys and titles" "no gnuplot"
fi
