# cli_test_reader3.sh -- issue 18, the second fresh reader's second list: what `make run`'s
# stdout, CSVs and plots, `fasim io`, `compare` and `animate` print explains itself.  Sourced by
# tests/cli_test.sh (tests/cli_lib.sh).

R3_ROOT="$(dirname "$0")/.."
"$FASIM" report --no-plots --out-dir "$T/r3_rep" > "$T/r3_out" 2>&1 || fail "reader3: fasim report: $(tail -3 "$T/r3_out")"
# the H100 rows can be faster than the H200's: both notes (per-model, kernels) say why
r3_clk=$(grep -c "1830 MHz" "$T/r3_out")
[ "$r3_clk" -ge 2 ] && oneline "$T/r3_out" | grep -q "under wgmma (fa3, cudnn), 1620 MHz at full load" \
    && pass "reader3: the per-model and kernels notes explain H100 vs H200 (clocks)" \
    || fail "reader3: no H100 vs H200 clock note under the tables ($r3_clk)"
# fa2's tiles past d = 128, as FlashAttention-2's launch templates pick them (the note names both;
# issue 18's fourth reader: d = 192 runs 128 x 64 with 8 warps, and so does d = 256 on the A100)
oneline "$T/r3_out" | grep -q "128 x 64 with 8 warps at d = 192 on every GPU and at d = 256 on the A100-SXM4-80GB" \
    && ! grep -q "DeepSeek's d = 192 runs 64 x 64" "$T/r3_out" \
    && pass "reader3: the fa2 tiles note covers d = 192 and d = 256" || fail "reader3: the fa2 tiles note on d = 192 / 256"
r3_d192=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["profile"] == "fa2" && $c["d"] == 192 { print $c["block_r"] "x" $c["block_c"] }' "$T/r3_rep/report.csv" | sort -u)
r3_d256=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["profile"] == "fa2" && $c["d"] == 256 { print $c["hw"] ":" $c["block_r"] "x" $c["block_c"] }' "$T/r3_rep/report.csv" | sort -u | tr '\n' ' ')
[ "$r3_d192" = "128x64" ] && [ "$r3_d256" = "a100:128x64 h100:64x64 h200:64x64 " ] \
    && pass "reader3: fa2 at d = 192 runs 128x64, at d = 256 128x64 on the A100 and 64x64 on Hopper, in report.csv" \
    || fail "reader3: fa2 at d = 192 runs $r3_d192, at d = 256 $r3_d256"
# the kernels table's regs has its unit
oneline "$T/r3_out" | grep -q "regs: registers a thread" && pass "reader3: the kernels note gives regs its unit" \
    || fail "reader3: regs has no unit in the kernels note"
# context parallelism: the configs whose 80 layers' K,V exceed a GPU's memory are marked, in the
# table and in cp.csv (fits), and the column is defined
r3_oom=$(grep -E "^ +524288 ring +1 .*out of memory$" "$T/r3_out" | wc -l)
r3_ok=$(grep -E "^ +131072 ring +1 " "$T/r3_out" | grep -c "out of memory")
r3_fits=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { want = ($c["kv_model_bytes"] <= 140.4 * 1073741824) ? 1 : 0; if ($c["fits"] != want) bad++; if (!want) oom++ }
    END { print (bad + 0) " " (oom + 0) }' "$T/r3_rep/cp.csv")
[ "$r3_oom" = 1 ] && [ "$r3_ok" = 0 ] && [ "$r3_fits" = "0 12" ] && grep -q '"out of memory" (cp.csv: fits = 0, 12 rows here)' "$T/r3_out" \
    && grep -q '^| `fits` |' "$R3_ROOT/docs/report-csv.md" \
    && pass "reader3: the context-parallel table and cp.csv mark the configs out of memory" \
    || fail "reader3: context-parallel out-of-memory marks ($r3_oom, $r3_ok, bad/oom: $r3_fits)"
# decoding: split HBM = packed HBM + partial_bytes + (S - 1) Q reads, as the note says
r3_dec=$(awk -F, 'NR == 1 { next } $3 == "packed" { p[$1 "," $2] = $5 }
    $3 == "packed-split" { n++; if ($5 - p[$1 "," $2] - $6 != ($4 - 1) * $1 * 32 * 128 * 2) bad++ } END { print n + 0, bad + 0 }' "$T/r3_rep/decode.csv")
[ "$r3_dec" = "10 0" ] && grep -q "so split HBM = packed HBM + partial_bytes + (S - 1) x Q" "$T/r3_out" \
    && pass "reader3: the decode note accounts for all of the split's extra bytes (partial + Q re-reads)" \
    || fail "reader3: decode split bytes ($r3_dec)"
# the papers: Figure 6 backward d = 128 N = 16k, cuDNN and FlashAttention-3 equal, and the note says why
r3_f6=$(awk -F, '$2 == "Figure 6" && $6 == "bwd" && $7 == 128 && $8 == 0 && $9 == 16384 && ($5 == "fa3" || $5 == "cudnn") { print $12 }' "$T/r3_rep/papers.csv" | sort -u | wc -l)
[ "$r3_f6" = 2 ] && grep -q "Figure 6, backward d = 128 at N = 16k: FlashAttention-3 falls to 574.6 TFLOP/s" "$T/r3_out" \
    && tr '\n' ' ' < "$T/r3_out" | grep -q "cuDNN has the same estimate and falls to 549.2: its tile" \
    && grep -q "so the model lets 48% of those re-reads reach DRAM" "$T/r3_out" \
    && pass "reader3: the papers note explains Figure 6's cuDNN and FA3 at d = 128, 16k (FA3 DRAM-bound, cuDNN its tile)" \
    || fail "reader3: Figure 6 d = 128 16k ($r3_f6 distinct values) unexplained"
# --blocks / --block-r: README and io --help say the same true thing: counted in the paper's model,
# except --blocks fit beside --profile KEY, which takes KEY's tile table (as plain --profile KEY)
"$FASIM" io --help > "$T/r3_help" 2>&1
r3_t1=$("$FASIM" io --seqlen 4096 --headdim 128 --hw h100 --profile fa2 --blocks fit --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["block_r"] "x" $c["block_c"] }')
r3_t2=$("$FASIM" io --seqlen 4096 --headdim 128 --hw h100 --profile fa2 --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["block_r"] "x" $c["block_c"] }')
[ -n "$r3_t1" ] && [ "$r3_t1" = "$r3_t2" ] && tr '\n' ' ' < "$R3_ROOT/README.md" | tr -s ' ' | grep -q "except \`--blocks fit\` beside \`--profile KEY\`, which takes KEY's tile table" \
    && tr '\n' ' ' < "$T/r3_help" | tr -s ' ' | grep -q "except --blocks fit with --profile KEY: KEY's tile table" \
    && pass "reader3: README and io --help agree on --blocks fit --profile KEY (KEY's tiles: $r3_t1)" \
    || fail "reader3: --blocks fit --profile fa2 ($r3_t1 vs $r3_t2) or README/help wording"
# README: report.csv leaves out the rows with no kernel (flash1 at d > 128), and says how many rows
r3_rows=$(($(wc -l < "$T/r3_rep/report.csv") - 1))
r3_f1=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["algo"] == "flash1" && $c["d"] > 128' "$T/r3_rep/report.csv" | wc -l)
tr '\n' ' ' < "$R3_ROOT/README.md" | tr -s ' ' | grep -q "have no flash1 rows -- $r3_rows rows, not" && [ "$r3_f1" = 0 ] \
    && pass "reader3: README says which report.csv rows are left out ($r3_rows rows)" \
    || fail "reader3: README's report.csv row count ($r3_rows) or left-out rows ($r3_f1 flash1 rows at d > 128)"
# compare: the pass column is called pass, and its rows line up under it
"$FASIM" compare --measured "$R3_ROOT/analysis/measured/h200/ab1_fwd_base.csv" --no-l2 > "$T/r3_cmp" 2>&1
r3_hc=$(awk '/^kernel / { print index($0, " pass ") }' "$T/r3_cmp")
r3_rc=$(awk -v c="$r3_hc" 'NR > 2 && / fwd / { print (index($0, " fwd ") == c) ? "ok" : "off"; exit }' "$T/r3_cmp")
[ -n "$r3_hc" ] && [ "$r3_hc" -gt 0 ] && [ "$r3_rc" = ok ] && grep -q "pass the pass" "$T/r3_cmp" && ! grep -q " pas " "$T/r3_cmp" \
    && pass "reader3: compare's header says pass, aligned with its rows" || fail "reader3: compare's pass column ($r3_hc, $r3_rc)"
# animate's --algo refusal lists only what animate accepts
r3_an=""
for a in flash3 all flash1,flash2; do
    "$FASIM" animate --algo $a --out-dir "$T/r3_anim" > "$T/out" 2> "$T/err"; r3_rc=$?
    [ "$r3_rc" = 2 ] && grep -q "is not one of standard, flash1, flash2 (animate draws one algorithm)" "$T/err" && ! grep -q "flash2, all" "$T/err" \
        || r3_an="$r3_an $a(rc $r3_rc: $(cat "$T/err"))"
done
[ -z "$r3_an" ] && pass "reader3: animate's --algo refusal lists only standard, flash1, flash2" || fail "reader3: animate --algo:$r3_an"
# docs/context-parallel.md: F is the model's own rate for the call, with the command that prints it
r3_F=$("$FASIM" io --profile fa2 --heads 64 --kv-heads 8 --seqlen 131072 --headdim 128 --dtype bf16 --causal --hw h200 --format csv 2>&1 \
    | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["model_tflops"] }')
tr '\n' ' ' < "$R3_ROOT/docs/context-parallel.md" | grep -q "prints $r3_F TFLOP/s" \
    && ! grep -q "issue 19's figure\|500 TFLOP/s" "$R3_ROOT/docs/context-parallel.md" \
    && pass "reader3: docs/context-parallel.md's F is the model's $r3_F TFLOP/s, with its command" \
    || fail "reader3: docs/context-parallel.md's F is not the model's ($r3_F)"
# ---- issue 18, the third fresh reader (h18d) ----
R4_README=$(tr '\n' ' ' < "$R3_ROOT/README.md" | tr -s ' ')
# README's H200 byte claims name their input and command, say kernels/ v1, and match what it prints
fasim_memo compare --measured "$R3_ROOT/analysis/measured/h200/compare_input.csv" --hw h200 --format csv > "$T/r4_cmp" 2>&1
r4_cmp=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { l = $c["pred_l2_bytes"] / $c["meas_l2_bytes"]; dr = $c["pred_dram_bytes"] / $c["meas_dram_bytes"]; k = $c["kernel"]; d = $c["d"]
      if (k != "sdpa_flash" && !(k == "v3_mt2" && d == 128) && (l < 0.97 || l > 1.03)) bad++
      if (k == "v1" && d == 64) { if (dr > 0.4) bad++ } else if (dr < 0.93 || dr > 1.07) bad++ }
    END { print NR - 1, bad + 0 }' "$T/r4_cmp")
echo "$R4_README" | grep -q '`./build/fasim compare --measured analysis/measured/h200/compare_input.csv --hw h200` sets the memory model' \
    && echo "$R4_README" | grep -q "L2↔SM within 3 % for fasim.s kernels" && echo "$R4_README" | grep -q "every kernel but kernels/ v1 at d = 64 (0.35" \
    && ! echo "$R4_README" | grep -q "but FlashAttention-1's at d = 64" && [ "$r4_cmp" = "18 0" ] \
    && pass "reader3: README's H200 byte claims name compare_input.csv and its command, and match it" \
    || fail "reader3: README's H200 byte claims vs compare_input.csv ($r4_cmp)"
# math's fp32 GEMMs on the FMA pipe: bound fp32, busy_fp32_s, not tensor
r4_m=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["profile"] == "math" { n++; if ($c["busy_tensor_s"] != 0 || !($c["busy_fp32_s"] > 0) || $c["bound"] == "tensor") bad++ } END { print n + 0, bad + 0 }' "$T/r3_rep/kernels.csv")
r4_mt=$(grep -E "^ +math +[0-9]+x[0-9]+ " "$T/r3_out" | grep -c " tensor$")
[ "${r4_m% *}" -gt 0 ] && [ "${r4_m#* }" = 0 ] && [ "$r4_mt" = 0 ] && grep -q "its GEMMs are SGEMM on the FMA units, charged to fp32" "$T/r3_out" \
    && pass "reader3: math's SGEMM time is the fp32 pipe's, not tensor ($r4_m)" || fail "reader3: math's GEMM pipe ($r4_m, $r4_mt tensor rows)"
# eager/math have no warps of their own: '-' in the kernels tables, 0 in kernels.csv
r4_w=$(grep -E "^(A100-SXM4-80GB|H100-SXM5|H200-SXM)? +(eager|math) +[0-9]+x[0-9]+ " "$T/r3_out" | awk '$(NF-7) != "-" { bad++ } END { print NR, bad + 0 }')
r4_wc=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } ($c["profile"] == "eager" || $c["profile"] == "math") && $c["warps"] != 0' "$T/r3_rep/kernels.csv" | wc -l)
[ "${r4_w#* }" = 0 ] && [ "${r4_w% *}" -gt 0 ] && [ "$r4_wc" = 0 ] && pass "reader3: eager/math warps '-' (kernels.csv 0)" \
    || fail "reader3: eager/math warps ($r4_w, $r4_wc csv rows)"
# README: the pipes only partly overlap, so the time exceeds the busiest pipe's
echo "$R4_README" | grep -q "the pipes only partly overlap" && echo "$R4_README" | grep -q "docs/time-model.md#5-overlap" \
    && grep -q "^## 5. Overlap" "$R3_ROOT/docs/time-model.md" \
    && pass "reader3: README says the pipes only partly overlap (time-model.md 5)" || fail "reader3: README's overlap sentence"
# H100 vs H200: the L2/DRAM terms too; which DRAM rate the model charges (sustained, not datasheet)
r4_h=$(oneline "$T/r3_out" | grep -o "row can still be predicted faster on the H200" | wc -l)
r4_j=$(oneline "$T/r3_out")
[ "$r4_h" -ge 2 ] && echo "$r4_j" | grep -q "the model charges sustained" && echo "$r4_j" | grep -q "3.94 TB/s" \
    && echo "$r4_j" | grep -q "(datasheet 4.8)" && echo "$r4_j" | grep -qF "A100-SXM4-80GB's 1.67 TB/s, its datasheet's x 3.94 / 4.8 (datasheet 2.039)" \
    && ! grep -q "(4.8 against 3.35 TB/s" "$T/r3_out" \
    && pass "reader3: the notes say L2/DRAM differ too and which DRAM rate is charged" || fail "reader3: H100/H200 L2/DRAM or DRAM-rate notes ($r4_h)"
# the memory table counts one attention layer's tensors
grep -q "^   (one attention layer's tensors only: no weights, no other layers" "$T/r3_out" \
    && grep -q "GPT-2 medium's attention, B x H = 64 x 16" "$T/r3_out" \
    && pass "reader3: the memory table says it counts one attention layer's tensors" || fail "reader3: memory table scope"
# Figure 6: L2 partitions and the 3 live heads explained
grep -q "straddle up to 3 heads" "$T/r3_out" && grep -q "partitions of 25 MiB" "$T/r3_out" && grep -q "docs/l2-model.md" "$T/r3_out" \
    && grep -q '^4\. \*\*Partitions\*\*' "$R3_ROOT/docs/l2-model.md" \
    && pass "reader3: the Figure 6 note explains L2 partitions and 3 live heads" || fail "reader3: Figure 6 partition note"
# README lists every table make run prints
r4_k=$(grep -c "^== kernels: " "$T/r3_out")
echo "$R4_README" | grep -q "a kernels table per model ($r4_k:" && echo "$R4_README" | grep -q "the papers table" \
    && echo "$R4_README" | grep -q "the context-parallel table" && grep -q "^== the papers, reproduced" "$T/r3_out" \
    && grep -q "^== context parallelism" "$T/r3_out" \
    && pass "reader3: README lists the kernels ($r4_k), papers and context-parallel tables" || fail "reader3: README's table list ($r4_k kernels tables)"
