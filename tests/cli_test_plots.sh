# cli_test_plots.sh -- every plot explains itself (issue 18): the report's and animate's plots are
# rendered a second time with gnuplot's svg terminal, from the same scripts and the same variables
# fasim passes (a gnuplot wrapper first in PATH runs the real gnuplot for fasim's PNG, then the
# script again with `set terminal svg`), and the SVG's text is checked: byte axes in KiB/MiB/GiB/
# TiB, the Theta lines named by algorithm, the window bound on the windowed model, both GPU
# memories named, one colour scale and integer ticks on the heatmap, the frames' colour legend.
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip; $T, $FASIM).

if ! command -v gnuplot >/dev/null 2>&1; then
    skip "plots: the rendered text of every plot" "no gnuplot"
else
PL_SVG="$T/pl_svg"
svg_gnuplot "$T/pl_bin" "$PL_SVG"
if PATH="$T/pl_bin:$PATH" "$FASIM" report --quiet --out-dir "$T/pl_rep" 2>"$T/err"; then
    M=$(ls "$PL_SVG"/hbm_vs_n.*.svg 2>/dev/null | wc -l)
    [ "$M" -ge 3 ] && pass "plots: the report's hbm_vs_n plots rendered as SVG too ($M)" || fail "plots: $M hbm_vs_n SVGs"
    # which SVG is which model: the title names it
    pl_mis=""; pl_gpt=""
    for f in "$PL_SVG"/hbm_vs_n.*.svg; do
        pl_text "$f" | grep -q "Mistral-7B" && pl_mis=$f
        pl_text "$f" | grep -q "gpt2-medium" && pl_gpt=$f
    done
    pl_has "plots: hbm_vs_n byte axis in GiB/TiB, Theta lines named by algorithm" "$pl_gpt" \
        "32 GiB" "1 TiB" "1 MiB" "standard's bound" "FlashAttention's bound" "full attention" "masks do not skip tiles"
    pl_has "plots: hbm_vs_n says its curves are the paper's model and its tiles, not the kernels' (the table's)" "$pl_gpt" \
        "curves: the paper's model, any d" "--blocks fit to M = " "flash1 160 x 160" "at N = 1024" "not the kernels" \
        "the model's N = 1024" "H=16, H_kv=16, d=64"
    pl_has "plots: hbm_vs_n's Theta lines: constant 1, full attention vs causal counts, the hidden constant printed" "$pl_gpt" \
        "constant 1, full attention (the counts are causal)" "counted / Θ = " "counted / compulsory (Q, K, V, O once) there: "
    pl_text "$pl_gpt" | grep -q "window of w" && fail "plots: a window line on GPT-2 (no window)" \
        || pass "plots: no window line for a model without one"
    pl_has "plots: Mistral's window bound drawn and named (why its curves fall below the full-attention line)" "$pl_mis" \
        "window of w = 4096 keys" "sliding window of 4096" "FlashAttention's bound"
    pl_has "plots: memory_vs_n names each GPU's memory, the overlapping ones said so, FlashAttention-1 keeps l and m" \
        "$PL_SVG/memory_vs_n.0.svg" "(80 GiB)" "(79.65 GiB, on top of A100-SXM4-80GB" "H200-SXM memory (140.4 GiB)" \
        "FlashAttention-1 Q, K, V, O, l and m" "FlashAttention-2 Q, K, V, O and LSE" "16 GiB"
    pl_text "$PL_SVG/memory_vs_n.0.svg" | grep -q "FlashAttention keeps O and LSE" \
        && fail "plots: memory_vs_n still says FlashAttention keeps O and LSE" || pass "plots: memory_vs_n's old title gone"
    pl_has "plots: hbm_vs_sram in KiB/MiB with standard's flat bound and why its curve falls" "$PL_SVG/hbm_vs_sram.0.svg" \
        "64 KiB" "1 MiB" "GiB" "no M in it" "re-reads" "FlashAttention's bound"
    pl_has "plots: hbm_vs_sram marks the GPUs' M, names B, H, causal and the GPU, ticks above standard's curve" \
        "$PL_SVG/hbm_vs_sram.0.svg" "A100-SXM4-80GB: M = 163 KiB" "H100-SXM5 and H200-SXM: M = 227 KiB" \
        "B = 1, H = 32, H_kv = 8, d = 128, bf16, causal, forward, on H200-SXM" "64 GiB" "points: M = 48 KiB x 1.25" \
        "its tile grows ∝ M; these tiles too while the B d terms dominate, ∝ √M only at multi-MiB M;" "full attention (the counts are causal" \
        "drawn up to M = N d e = 2 MiB: beyond it M" "N d e, outside Theorem 2's range d"
    pl_text "$PL_SVG/hbm_vs_sram.0.svg" | grep -q "~" && fail "plots: hbm_vs_sram has a '~' (enhanced text's overprint)" \
        || pass "plots: hbm_vs_sram's key has no overprinting '~'"
    pl_has "plots: memory_vs_n's title on two lines (it was cut off at both ends)" "$PL_SVG/memory_vs_n.0.svg" \
        "HBM peak of one training step vs N (forward + backward, B x H = 64 x 16, d = 64, fp16, causal)" \
        "GPT-2 medium's attention: one layer's tensors only (no weights, no other layers)" \
        "kept for the backward: standard Q, K, V, O and P, FlashAttention-1 Q, K, V, O, l and m, FlashAttention-2 Q, K, V, O and LSE"
    pl_text "$PL_SVG/hbm_vs_sram.0.svg" | grep -q "kiB" && fail "plots: hbm_vs_sram writes kiB" || pass "plots: hbm_vs_sram has no kiB"
    pl_has "plots: hbm_vs_block's byte axis in GiB" "$PL_SVG/hbm_vs_block.0.svg" "GiB" "roofline time"
    # context parallelism (docs/context-parallel.md): time vs P per N, a line per scheme, each named and
    # explained, the axis units, the shape and the link, and that it is a prediction, not a measurement
    pl_has "plots: cp_time_vs_p names its schemes, axes, shape, link and that nothing was measured" \
        "$PL_SVG/cp_time_vs_p.0.svg" "GPUs P (log scale)" "predicted time of one layer (log scale)" "N = 128k tokens (1k = 1024)" \
        "N = 256k tokens" "N = 512k tokens" "N = 1M tokens" "ring (contiguous chunks; causal: the last GPU works every step)" \
        "zigzag (load-balanced ring: chunks r and 2P-1-r)" "allgather (all-gather K, V, then compute; not overlapped; widest)" \
        "ulysses (all-to-all to H/P heads and back; dashed)" "ideal: one GPU's time / P" \
        "out of memory (cp.csv fits = 0: 80 layers' K,V)" \
        "Llama-3-70B attention (H = 64, H_kv = 8, d = 128, bf16, causal, B = 1)" "NVLink 450 GB/s per direction" \
        "not measured: no multi-GPU run yet"
    # h18d, reader4 28-29: the keys clear of the curves, of the neighbouring panels and of the image's
    # edges: cp_time_vs_p one key for its four panels in a band of its own, hbm_vs_n's below the plot
    grep -q 'set key at screen 0.5, 0.01 center bottom' "$(dirname "$0")/../plots/cp_time_vs_p.gp" \
        && grep -q '^    margins 0.09, 0.98, 0.15, 0.90' "$(dirname "$0")/../plots/cp_time_vs_p.gp" \
        && grep -q '^set key below left' "$(dirname "$0")/../plots/hbm_vs_n.gp" \
        && pass "plots: cp_time_vs_p's one key under its panels, hbm_vs_n's below the plot" \
        || fail "plots: cp_time_vs_p / hbm_vs_n key placement"
    # h18d: DeepSeek (d = 192, d_v = 128): the Θ lines say which d
    pl_dsv=""
    for f in "$PL_SVG"/hbm_vs_n.*.svg; do pl_text "$f" | grep -q "DeepSeek-V2: HBM bytes" && pl_dsv=$f; done
    pl_has "plots: hbm_vs_n on DeepSeek-V2 says the Θ lines' d is d_qk = 192, d_v not in the bound" "$pl_dsv" \
        "N, d in elements (d = d_qk = 192, d_v = 128 not in the bound)" "= 192, dv = 128 not in the bound"
    pl_text "$pl_gpt" | grep -q "d_qk" && fail "plots: d_qk named where d_v = d (GPT-2)" || pass "plots: no d_qk where d_v = d"
    # decimal time ticks (1 ms, 10 ms, ... 1 s), not powers of two of ms (1024, 4096, 16384)
    pl_has "plots: cp_time_vs_p's time axis in decimal ticks" "$PL_SVG/cp_time_vs_p.0.svg" "100 ms" "200 ms" "1 s" "2 s" "10 s" "20 s"
    pl_text "$PL_SVG/cp_time_vs_p.0.svg" | grep -Eqx ' *(1024|4096|16384|65536) *' \
        && fail "plots: cp_time_vs_p still has power-of-two ms ticks" || pass "plots: cp_time_vs_p has no power-of-two ms tick"
    # h18's fresh reader: N ticks as the field writes them; a model of two layer types says which it
    # draws; d_v named; hbm_vs_block names its shape and model; flash2's memory peak explained
    # d = 128: FlashAttention-2's curve on standard's Θ line (B_r = d), and the key says why; not at d = 64
    pl_l3=""
    for f in "$PL_SVG"/hbm_vs_n.*.svg; do pl_text "$f" | grep -q "Meta-Llama-3-8B: HBM bytes" && pl_l3=$f; done
    pl_has "plots: hbm_vs_n (d = 128) says FlashAttention-2's curve lies on standard's Θ line, and why" "$pl_l3" \
        "FlashAttention-2's counted curve lies on this line" "= N2 e at Br = d = 128)"
    pl_text "$pl_gpt" | grep -q "counted curve lies on this line" && fail "plots: the B_r = d note on GPT-2 (d = 64)" \
        || pass "plots: no B_r = d note where flash2's curve is off standard's Θ line (GPT-2, d = 64)"
    pl_has "plots: hbm_vs_n's N axis in 128 .. 512, 1k .. 512k, 1M" "$pl_gpt" \
        "128" "512" "1k" "8k" "32k" "512k" "1M" "sequence length N (tokens; 1k = 1024)"
    pl_text "$pl_gpt" | grep -Eqx ' *2(8|9|1[0-9]|20) *' && fail "plots: hbm_vs_n still labels N as 2^k: $(pl_text "$pl_gpt" | grep -Ex ' *2(8|9|1[0-9]|20) *' | head -3 | tr '\n' ' ')" \
        || pass "plots: hbm_vs_n has no 2^k N tick"
    pl_has "plots: memory_vs_n's N axis from 256 to 64k, both ends labelled" "$PL_SVG/memory_vs_n.0.svg" \
        "256" "1k" "4k" "64k" "256k" "sequence length N (tokens; 1k = 1024)"
    pl_text "$PL_SVG/memory_vs_n.0.svg" | grep -Eqx ' *2(8|9|1[0-6]) *' && fail "plots: memory_vs_n still labels N as 2^k" \
        || pass "plots: memory_vs_n has no 2^k N tick"
    pl_has "plots: memory_vs_n says why FlashAttention-2's peak is above FlashAttention-1's" "$PL_SVG/memory_vs_n.0.svg" \
        "FlashAttention-2 (above FlashAttention-1: its backward's fp32 dQ accumulator, 4 N d bytes a head)"
    pl_g9=""; pl_ds=""
    for f in "$PL_SVG"/hbm_vs_n.*.svg; do
        pl_text "$f" | grep -q "google/gemma-2-9b" && pl_g9=$f
        pl_text "$f" | grep -q "deepseek-ai/DeepSeek-V3" && pl_ds=$f
    done
    pl_has "plots: gemma-2-9b's hbm_vs_n says it draws the full-attention layers, the window ones are in the table" "$pl_g9" \
        "HBM bytes of one full-attention layer vs N" \
        "drawn: the 21 full-attention layers of 42; the 21 sliding-window layers (w = 4096) are in the stdout table"
    pl_text "$pl_gpt" | grep -q "drawn: the" && fail "plots: a layer-type line on GPT-2 (one type)" \
        || pass "plots: no layer-type line for a model of one type"
    pl_has "plots: DeepSeek-V3's hbm_vs_n names d_v" "$pl_ds" "H=128, H_kv=128, d=192, d_v=128)"
    pl_has "plots: hbm_vs_block names B, H, d, causal, the pass, M and that it is the paper's model" "$PL_SVG/hbm_vs_block.0.svg" \
        "N = 8192, B = 1, H = 32, H_kv = 8, d = 128, bf16, causal, forward, on H200-SXM (M = 227 KiB)" \
        "in the paper's model (--profile paper: every buffer in one SRAM of M;" "not the kernel time model of the stdout tables" \
        "standard: its GEMMs' tiles"
    # issue 18, the second reader: every assumption of a curve in its plot
    pl_has "plots: hbm_vs_n's title names the dtype and H_kv, the Θ lines say they carry e and B H" "$pl_gpt" \
        "(H200-SXM, fp16, causal, B=1, H=16, H_kv=16, d=64)" "· e B H (Theorem 2), constant 1" "/ M) · e2 B H, constant 1" \
        "times e = 2 bytes an element (e^2 in FlashAttention's), summed over B·H = 16 heads"
    pl_fal=""
    for f in "$PL_SVG"/hbm_vs_n.*.svg; do pl_text "$f" | grep -q "falcon-7b" && pl_fal=$f; done
    pl_has "plots: Falcon-7B's hbm_vs_n names its one kv head" "$pl_fal" "H=71, H_kv=1, d=64"
    pl_has "plots: Mistral's window bound: constant 1, the counts' ratio to it, the full-attention ratio said so" "$pl_mis" \
        "up to N = w), constant 1" "counted / the window bound at the model's N: " "windowed counts over the full-attention Θ"
    pl_text "$pl_gpt" | grep -q "window bound" && fail "plots: a window-bound ratio on GPT-2 (no window)" \
        || pass "plots: no window-bound ratio for a model without one"
    pl_has "plots: hbm_vs_sram says it is the paper's abstract one-SRAM model, the Θ lines' e and B H" "$PL_SVG/hbm_vs_sram.0.svg" \
        "the paper's abstract model (--profile paper): every on-chip buffer in one SRAM of M bytes" \
        "· e B H, constant 1: no M in it" "summed over B·H = 32 heads"
    # no clipped text: hbm_vs_sram's title in short lines (its first ran past the right edge), hbm_vs_block's
    # right-axis label short enough for the plot's height (it was cut at the bottom)
    pl_long=$(pl_text "$PL_SVG/hbm_vs_sram.0.svg" | grep -E "HBM bytes vs SRAM size M|forward, on " | awk 'length($0) > 100' | wc -l)
    pl_y2=$(pl_text "$PL_SVG/hbm_vs_block.0.svg" | grep "right axis, linear scale" | awk '{ print length($0) }' | sort -n | tail -1)
    [ "$pl_long" = 0 ] && pl_text "$PL_SVG/hbm_vs_sram.0.svg" | grep -q ": HBM bytes vs SRAM size M\$" && [ -n "$pl_y2" ] && [ "$pl_y2" -le 60 ] \
        && pass "plots: hbm_vs_sram's title lines and hbm_vs_block's right label fit ($pl_y2 characters)" \
        || fail "plots: clipped text: $pl_long long hbm_vs_sram title lines, hbm_vs_block right label $pl_y2 characters"
    pl_has "plots: hbm_vs_block labels its log and linear axes, x from the first tile" "$PL_SVG/hbm_vs_block.0.svg" \
        "left axis, log scale" "right axis, linear scale"
    # (the x ticks' text cannot tell: the right axis has 0 too) the script's range, from the CSV
    grep -q '^set xrange \[BX_min - 8 : BX_max + 8\]' "$(dirname "$0")/../plots/hbm_vs_block.gp" \
        && pass "plots: hbm_vs_block's x axis starts at the first tile, not 0" || fail "plots: hbm_vs_block's x range"
    # the window bound drawn is the CSV's column (README: each plot beside the CSV it was drawn from)
    head -1 "$T/pl_rep/hbm_vs_n_mistral-7b.csv" | grep -q ",theta_window$" && pass "plots: hbm_vs_n CSV has theta_window" \
        || fail "plots: hbm_vs_n CSV header: $(head -1 "$T/pl_rep/hbm_vs_n_mistral-7b.csv")"
    awk -F, 'NR > 1 && $1 > 4096 { r = $7 / ($6 * 4096 / $1); if (r < 0.999999 || r > 1.000001) bad = 1 }
             NR > 1 && $1 <= 4096 && $7 != $6 { bad = 1 } END { exit bad }' "$T/pl_rep/hbm_vs_n_mistral-7b.csv" \
        && pass "plots: Mistral's theta_window = theta_flash * w / N past w" || fail "plots: Mistral's theta_window column"
    awk -F, 'NR > 1 && $2 > 0 { n = $1 } END { exit !(n >= 142657) }' "$T/pl_rep/memory_vs_n.csv" \
        && pass "plots: memory_vs_n.csv reaches past every OOM N (142657 on the H200)" || fail "plots: memory_vs_n.csv's last N"
else
    fail "plots: report with the svg wrapper: $(cat "$T/err")"
fi
if PATH="$T/pl_bin:$PATH" "$FASIM" animate --heatmap --out-dir "$T/pl_hm" >/dev/null 2>"$T/err"; then
    f="$PL_SVG/anim_heatmap.0.svg"
    pl_has "plots: heatmap has a colour legend on each panel" "$f" "transfers of the tile" "one colour scale for both panels"
    # the statistics drawn (issue 18): rows of their own under a line, named, with their tile's bytes
    pl_has "plots: heatmap draws the statistics' rows (flash1's l and m, flash2's LSE) with a key" "$f" \
        "l read" "l write" "m read" "m write" "LSE write" \
        "below the line: the statistics, fp32 per query row -- FlashAttention-1's running max m and sum l, FlashAttention-2's logsumexp LSE" \
        "Q, O, l, m re-read and O, l, m re-written on every visit" "l and m stay on chip: 0 transfers" \
        "l_i, m_i, LSE_i: 64 fp32 values = 256 B" "Q_i 64 x 64 = 8 KiB" "tile number, from 1 (row block i for Q, O, l, m, LSE"
    pl_text "$f" | grep -q "not shown" && fail "plots: heatmap still says the statistics are not shown" \
        || pass "plots: heatmap no longer leaves the statistics out"
    # the cells' counts, with their text colour: flash1's l and m write 5 times a tile (T_c + 1),
    # in white on the darkest cells (O, l, m: 3 x 4 tiles); flash2's LSE once a tile, in black
    tr '\n' ' ' < "$f" | grep -o 'fill="rgb([0-9,]*)"[^<]*<text><tspan[^>]*>[0-9]*<' \
        | sed 's/^fill="rgb(\([0-9,]*\))".*>\([0-9]*\)<$/\1 \2/' > "$T/pl_cells"
    [ "$(grep -cx '255,255,255 5' "$T/pl_cells")" -eq 12 ] && [ "$(grep -cx '0,0,0 5' "$T/pl_cells")" -eq 0 ] \
        && pass "plots: heatmap writes the counts of the dark cells in white (12 cells of 5)" \
        || fail "plots: heatmap's text colours: $(sort "$T/pl_cells" | uniq -c | tr '\n' '|')"
    [ "$(grep -cx '0,0,0 1' "$T/pl_cells")" -ge 16 ] && pass "plots: heatmap's light cells keep black counts" \
        || fail "plots: heatmap's light cells: $(sort "$T/pl_cells" | uniq -c | tr '\n' '|')"
    # the default run: flash1's largest count is 5 (O written T_c + 1 times), flash2's 4; one scale
    # puts the tick 5 on both colour boxes, and the tile ticks are 0..3, no half-integers
    [ "$(pl_text "$f" | grep -cx ' *5 *')" -ge 4 ] && pass "plots: heatmap panels share one colour scale (tick 5 on both)" \
        || fail "plots: heatmap colour scales: $(pl_text "$f" | tr '\n' '|')"
    pl_text "$f" | grep -qx ' *[0-9]*\.5 *' && fail "plots: heatmap has half-integer ticks: $(pl_text "$f" | grep -x ' *[0-9]*\.5 *' | head -3)" \
        || pass "plots: heatmap tile ticks are integers"
else
    fail "plots: animate --heatmap with the svg wrapper: $(cat "$T/err")"
fi
if PATH="$T/pl_bin:$PATH" "$FASIM" animate --seqlen 128 --headdim 32 --causal --out-dir "$T/pl_fr" >/dev/null 2>"$T/err"; then
    f=$(ls "$PL_SVG"/frame_*.anim_frames.svg 2>/dev/null | head -1)
    pl_has "plots: animation frames have a colour legend and bytes in KiB" "$f" \
        "in SRAM" "read now" "written now" "written before" "skipped by the mask" "cumulative HBM KiB" "read (HBM -> SRAM)"
    pl_text "$f" | grep -q " kB" && fail "plots: a frame still writes kB" || pass "plots: frames write no kB"
    pl_has "plots: frames: one meaning a colour (flash's computed tile, standard's S written), SRAM's stale tile explained" "$f" \
        "score tile computed in SRAM (flash)" "S written (standard)" "in SRAM (last read; until the next read or its kernel's end)"
    pl_text "$f" | grep -qF "(standard: S written)" && fail "plots: frames' light green still means two things" \
        || pass "plots: frames' light green means one thing"
    # the LSE writes (32 rows x 4 B = 128 B a row block, 4 row blocks) are too small for the KiB
    # axis: the last frame prints their sum, 512 B, above the bar (the caption says 128 B)
    f=$(ls "$PL_SVG"/frame_*.anim_frames.svg 2>/dev/null | tail -1)
    [ -n "$f" ] && pl_has "plots: frames print the bytes of a bar too small to see (LSE: 512 B)" "$f" "512 B" \
        || fail "plots: no frame SVG with an LSE write"
else
    fail "plots: animate with the svg wrapper: $(cat "$T/err")"
fi
fi

# `make plots`' N axes (issue 18): the measured TFLOP/s and the error-vs-N plots label N as the
# field does (512, 1k, ... 16k), rendered here with the svg terminal from the committed data
if command -v gnuplot >/dev/null 2>&1; then
    pl_dir="$(dirname "$0")/.."
    mkdir -p "$T/pl_mk"
    sed 's/^set terminal pngcairo/set terminal svg/' "$pl_dir/plots/tflops_vs_n.gp" > "$T/pl_mk/tflops_vs_n.gp"
    if gnuplot -e "ours='$pl_dir/analysis/measured/h200/fabench_sweep.csv'; sdpa='$pl_dir/analysis/measured/h200/sdpa_sweep.csv'; hd=64; causal=0; outfile='$T/pl_mk/tflops.svg'" \
        "$T/pl_mk/tflops_vs_n.gp" 2>"$T/err"; then
        pl_has "plots: tflops_vs_n's N axis in 512, 1k .. 16k" "$T/pl_mk/tflops.svg" "512" "1k" "2k" "16k" "(tokens; 1k = 1024;"
        pl_text "$T/pl_mk/tflops.svg" | grep -Eqx ' *(1024|2048|4096|8192|16384) *' && fail "plots: tflops_vs_n still writes N = 1024 .. 16384" \
            || pass "plots: tflops_vs_n writes no 1024 .. 16384 tick"
    else
        fail "plots: tflops_vs_n.gp: $(tail -2 "$T/err")"
    fi
    # numerics_vs_n on a small table of its input's columns (fasim check --study's err_vs_n.csv)
    printf 'fixed_d,dtype,algo,seqlen,d,max_abs_err,rel_err,naive_abs_err,ratio_to_naive,end_to_end_rel_err\n' > "$T/pl_mk/err.csv"
    for pl_n in 64 256 1024 4096; do
        for pl_a in flash2 standard flash1; do
            printf '64,bf16,%s,%d,64,1e-3,2.5e-3,1e-3,1.0,2.5e-3\n' "$pl_a" "$pl_n" >> "$T/pl_mk/err.csv"
        done
    done
    sed 's/^set terminal pngcairo/set terminal svg/' "$pl_dir/plots/numerics_vs_n.gp" > "$T/pl_mk/numerics_vs_n.gp"
    if gnuplot -e "infile='$T/pl_mk/err.csv'; outfile='$T/pl_mk/err.svg'" "$T/pl_mk/numerics_vs_n.gp" 2>"$T/err"; then
        pl_has "plots: numerics_vs_n's N axis in 64 .. 512, 1k .. 4k" "$T/pl_mk/err.svg" "64" "256" "1k" "4k" "(tokens; 1k = 1024;"
    else
        fail "plots: numerics_vs_n.gp: $(tail -2 "$T/err")"
    fi
fi
