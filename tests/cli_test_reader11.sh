# cli_test_reader11.sh -- the eleventh reader's list (issue 18's acceptance test, pass 11): the
# papers' note quotes the table's own Figure 6 numbers (and the docs today's); compare prints
# H/H_kv and N_q/N_k where they differ; sdpa_flash's layout copies named at H = 1 and in the DRAM
# estimate; explain's standard/math byte note is io's; the hbm_vs_n key outside Theorem 2's range;
# '+ tail' in the report's tables; grid-bound rows in the H100/H200 note; both window spellings.
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip, oneline, svg_gnuplot, pl_text,
# pl_has; $T, $FASIM).

R11_ROOT="$(dirname "$0")/.."
R11_M="$R11_ROOT/analysis/models"
R11_H200="$R11_ROOT/analysis/measured/h200"

# ---- 1: the papers' note computes its numbers from the rows the table prints ----
"$FASIM" report --no-plots --out-dir "$T/r11_rep" > "$T/r11_rep.out" 2>&1
r11_pc="$T/r11_rep/papers.csv"
# rng FIGURE PROFILE [N_MIN]: the ratios' range of a figure's rows of one profile, as the table prints them
r11_rng() { awk -F, -v f="$1" -v p="$2" -v nmin="${3:-0}" 'NR > 1 && $2 == f && $5 == p && $3 != "b200" && $9 >= nmin {
    r = sprintf("%.2f", $13) + 0; if (lo == "" || r < lo) lo = r; if (r > hi) hi = r }
    END { printf "%.2f-%.2f", lo, hi }' "$r11_pc"; }
r11_fa3=$(r11_rng "Figure 6" fa3); r11_cud=$(r11_rng "Figure 6" cudnn); r11_f2b=$(r11_rng "Figure 6" fa2)
r11_f24=$(r11_rng "Figure 4" fa2); r11_f24k=$(r11_rng "Figure 4" fa2 2048)
r11_16=$(awk -F, '$2 == "Figure 6" && $7 == 128 && $8 == 0 && $9 == 16384 && ($5 == "fa3" || $5 == "cudnn") { printf "%.4g\n", $12 }' "$r11_pc" | sort -u | tr '\n' ' ')
r11_io=$("$FASIM" io --profile fa3 --pass bwd --heads 16 --seqlen 16384 --headdim 128 --hw h100 | awk '$1 == "flash2" && $2 == "fa3" { print $(NF - 1) }')
r11_one=$(oneline "$T/r11_rep.out")
r11_tm=$(oneline "$R11_ROOT/docs/time-model.md")
r11_res=$(oneline "$R11_ROOT/docs/results.md")
r11_io_c=$("$FASIM" io --profile cudnn --pass bwd --heads 16 --seqlen 16384 --headdim 128 --hw h100 | awk '$1 == "flash2" && $2 == "cudnn" { print $(NF - 1) }')
[ "$r11_fa3" = "1.02-1.14" ] && [ "$r11_cud" = "0.96-1.06" ] && [ "$r11_16" = "549.2 574.6 " ] && [ "$r11_io" = "574.6" ] && [ "$r11_io_c" = "549.2" ] \
    && case $r11_one in *"FlashAttention-3's backward in Figure 6 too fast ($r11_fa3: its kernel was not run here"*"cuDNN's, with the count measured on the H200, $r11_cud, on both sides of 1"*"FlashAttention-3 falls to $r11_io TFLOP/s because it turns DRAM-bound"*"cuDNN has the same estimate and falls to $r11_io_c: its tile"*) true ;; *) false ;; esac \
    && ! grep -q "577\.5\|1\.03-1\.30\|1\.08-1\.19" "$T/r11_rep.out" \
    && echo "$r11_tm" | grep -qF "Figure 6, backward: FlashAttention-2 $r11_f2b, FlashAttention-3 $r11_fa3 and cuDNN $r11_cud" \
    && echo "$r11_tm" | grep -qF "FlashAttention-2 $r11_f24 of the published TFLOP/s (N = 2k ... 16k: $r11_f24k)" \
    && echo "$r11_tm" | grep -qF "Figure 6 at $r11_fa3 and $r11_cud of the published TFLOP/s" \
    && echo "$r11_res" | grep -qF "| $r11_f2b / $r11_fa3 / $r11_cud (cuDNN 1.12-1.33 before" \
    && echo "$r11_res" | grep -qF "| 140-203 | 118-164 | $r11_f24k (N = 512-16k: $r11_f24) |" \
    && ! grep -q "1\.03-1\.30\|1\.08-1\.19\|0\.90-1\.00\|0\.85-0\.94 of the published" "$R11_ROOT/docs/time-model.md" "$R11_ROOT/docs/results.md" \
    && pass "reader11: the papers' note quotes papers.csv's Figure 6 (FA3 $r11_fa3, cuDNN $r11_cud, ${r11_16}at 16k = io's); time-model.md and results.md today's (FA2 Fig. 4 $r11_f24, Fig. 6 $r11_f2b)" \
    || fail "reader11: papers' note/docs vs papers.csv: fa3 '$r11_fa3' cudnn '$r11_cud' 16k '$r11_16' io '$r11_io' fa2 '$r11_f2b' '$r11_f24' '$r11_f24k'"

# ---- 2: compare prints H/H_kv and N_q/N_k where they differ (v1's query slices) ----
fasim_memo compare --measured "$R11_H200/compare_input.csv" --hw h200 > "$T/r11_cmp" 2>&1
fasim_memo compare --measured "$R11_H200/compare_input.csv" --hw h200 --format csv > "$T/r11_cmp.csv" 2>&1
r11_v1=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "v1" { printf "%s %s %s %s;", $c["H"], $c["H_kv"], $c["N_q"], $c["N_k"] }' "$T/r11_cmp.csv")
(cd "$R11_ROOT" && "$(cd "$(dirname "$FASIM")" && pwd)/$(basename "$FASIM")" compare --measured analysis/measured/h200/timemodel_input.csv --hw h200) > "$T/r11_tcmp" 2>&1
[ "$r11_v1" = "256 16 256 4096;512 32 256 4096;" ] \
    && grep -Eq "^v1 +4 +256/16 +256/4096 +128 +0 fwd " "$T/r11_cmp" && grep -Eq "^v1 +4 +512/32 +256/4096 +64 +0 fwd " "$T/r11_cmp" \
    && grep -Eq "^v4 +4 +32 +4096 +64 +0 fwd " "$T/r11_cmp" \
    && oneline "$T/r11_cmp" | grep -qF "H heads (H/H_kv where fewer K/V heads serve them: GQA, or a kernel's query slices counted as heads" \
    && oneline "$T/r11_cmp" | grep -qF "N sequence length (N_q/N_k where they differ: v1's 256/4096 is a slice's 256 queries against its head's 4096 keys;" \
    && cmp -s "$T/r11_tcmp" "$R11_H200/timemodel_compare.txt" \
    && oneline "$R11_ROOT/README.md" | grep -qF "18 kernel runs, all at N = 4096 (kernels/ v1's two with their 256-row query slices counted as heads that share their head's K and V: H 256/16 and 512/32, N 256/4096 in that table;" \
    && ! grep -q "v1's two at N = 256" "$R11_ROOT/README.md" "$R11_ROOT/docs/time-model.md" \
    && pass "reader11: compare prints v1 as H 256/16, N 256/4096 (CSV: H 256, H_kv 16, N_q 256, N_k 4096), says so in its legend; README says what the two rows are" \
    || fail "reader11: compare H/N: csv '$r11_v1', $(grep '^v1' "$T/r11_cmp" | head -2 | tr '\n' '|')"

# ---- 3: sdpa_flash's layout copies: none at H = 1 (explain says why), their bytes in DRAM est ----
"$FASIM" explain --profile sdpa_flash --pass bwd --hw h200 > "$T/r11_sx1" 2>&1
r11_sh="--pass bwd --batch 4 --heads 16 --seqlen 4096 --headdim 64 --dtype bf16 --hw h200"
# shellcheck disable=SC2086
"$FASIM" explain --profile sdpa_flash $r11_sh > "$T/r11_sx16" 2>&1
# shellcheck disable=SC2086
"$FASIM" io --profile sdpa_flash $r11_sh > "$T/r11_si16" 2>&1
r11_csv() { "$FASIM" io "$@" --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["dram_est_bytes"], $c["hbm_bytes"] }'; }
# shellcheck disable=SC2086
r11_sd=$(r11_csv --profile sdpa_flash $r11_sh); r11_fd=$(r11_csv --profile fa2 $r11_sh)
r11_d1=$(r11_csv --profile sdpa_flash --pass bwd --hw h200); r11_d1f=$(r11_csv --profile fa2 --pass bwd --hw h200)
r11_cp=$((2 * 2 * 4 * 16 * 4096 * 64 * 2)) # 2 copies x (read + write) x B H N_q d_v e
[ "$(echo "$r11_sd" | cut -d' ' -f2)" = "$(echo "$r11_fd" | cut -d' ' -f2)" ] \
    && [ $(( $(echo "$r11_sd" | cut -d' ' -f1) - $(echo "$r11_fd" | cut -d' ' -f1) )) = "$r11_cp" ] && [ "$r11_d1" = "$r11_d1f" ] \
    && grep -qF "small kernels: pre-pass (O, dO read, D written, dQacc cleared) 134.1 ns + post-pass (dQacc read, dQ written) 99.8 ns at 3.94 TB/s; layout copies: none (H = 1: the (B, H, N, d) and (B, N, H, d) layouts coincide)" "$T/r11_sx1" \
    && grep -qF "2 layout copies of dO and O into (B, N, H, d), 2 x (read + write) x B*H*N_q*d_v*e = 2 x 2 x 4*16*4096*64*2 = $r11_cp B (128 MiB, in the DRAM estimate)" "$T/r11_sx16" \
    && grep -qxF "note: flash2 (sdpa_flash): DRAM est 515 MiB holds the backward's 2 layout copies of dO and O into (B, N, H, d) (128 MiB: each copy reads and writes B*H*N_q*d_v*e), timed among its small kernels; HBM total 6.407 GiB leaves them out: it counts the attention algorithm, the copies are the framework's (docs/time-model.md section 6)" "$T/r11_si16" \
    && grep -qF "   note: flash2 (sdpa_flash): DRAM est 515 MiB holds the backward's 2 layout copies" "$T/r11_sx16" \
    && ! grep -q "note: flash2 (sdpa_flash)" "$T/r11_sx1" \
    && oneline "$R11_ROOT/docs/time-model.md" | grep -qF "128 MiB of copies, DRAM est 515 MiB, HBM total 6.407 GiB" \
    && pass "reader11: sdpa_flash backward: layout copies none at H = 1 (explain says why); at B 4 H 16 their $r11_cp B are sdpa_flash's DRAM est over fa2's, HBM total equal, noted in io and explain" \
    || fail "reader11: sdpa_flash copies: sdpa '$r11_sd' fa2 '$r11_fd' H=1 '$r11_d1' / '$r11_d1f': $(grep 'small kernels:' "$T/r11_sx1")"

# ---- 4: explain --algo standard --profile math: io's note, and the kernels' byte total ----
"$FASIM" explain --algo standard --profile math > "$T/r11_mx" 2>&1
"$FASIM" io --algo standard --profile math > "$T/r11_mi" 2>&1
r11_md=$("$FASIM" io --algo standard --profile math --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["dram_est_bytes"] }')
r11_mn=$(grep "^note: standard (math): DRAM est" "$T/r11_mi")
[ "$r11_md" = 41420800 ] && [ -n "$r11_mn" ] && grep -qxF "   $r11_mn" "$T/r11_mx" \
    && grep -qxF "     the 13 kernels' bytes: 41420800 B (39.5 MiB), the time model's DRAM estimate (fasim io's DRAM est)" "$T/r11_mx" \
    && grep -qF "counted by the memory model: 12845056 B (12.25 MiB)" "$T/r11_mx" \
    && pass "reader11: explain --profile math prints io's reconciling note and its 13 kernels' 41420800 B (= io's DRAM est)" \
    || fail "reader11: explain math note: dram '$r11_md', $(grep 'note\|kernels. bytes' "$T/r11_mx" | head -3)"

# ---- 6: '+ tail' in the report's tables as in fasim io, its legend, and CSV's bound without it ----
"$FASIM" io --model "$R11_M/falcon-7b.json" --causal --algo flash2 > "$T/r11_fio" 2>&1
r11_ft=$(awk '/^== tiiuae\/falcon-7b:/ { on = 1; next } on && /^$/ { exit } on && / flash2 / { print $NF " " $(NF - 1) " " $(NF - 2) }' "$T/r11_rep.out" | tr '\n' ';')
r11_fk=$(awk '/^== kernels: tiiuae\/falcon-7b/ { on = 1; next } on && /^$/ { exit } on && / fa2 / { n += / (tensor|softmax) \+ tail$/ } END { print n + 0 }' "$T/r11_rep.out")
r11_fc=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["model"] == "falcon-7b" && $c["algo"] == "flash2" { print $c["bound"] }' "$T/r11_rep/report.csv" | sort -u | tr '\n' ' ')
[ "$r11_ft" = "tail + tensor;tail + softmax;tail + softmax;" ] && [ "$r11_fk" = 3 ] && [ "$r11_fc" = "softmax tensor " ] \
    && grep -Eq "^flash2 +fa2 .* 195\.5 softmax \+ tail$" "$T/r11_fio" && grep -Eq "^ +flash2 +fa2 .* 195 us +4\.76x +195\.5 +softmax \+ tail$" "$T/r11_rep.out" \
    && case $r11_one in *"launch when kernel launches take half the time; '+ tail' after it: the last wave's tail (a grid that does not fill whole waves, the causal mask's unequal blocks) adds over 10 % to the waves' time"*"a grid or launch row drops it, as does report.csv's and kernels.csv's bound: docs/report-csv.md"*) true ;; *) false ;; esac \
    && grep -qF "The tables' qualifier \` + tail\` (the last wave's tail adds over 10 % to the waves' time) is dropped" "$R11_ROOT/docs/report-csv.md" \
    && pass "reader11: Falcon-7B flash2 '+ tail' in io, the report's model and kernels tables (3 GPUs); report.csv bound without it, the legend and report-csv.md say why" \
    || fail "reader11: + tail: table '$r11_ft', kernels $r11_fk, csv '$r11_fc'"

# ---- 7: the H100/H200 note names grid-bound rows, which are faster on the H100 ----
r11_g=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["algo"] == "flash1" && $c["bound"] == "grid" && ($c["hw"] == "h100" || $c["hw"] == "h200") { t[$c["model"] "," $c["hw"]] = $c["time_s"]; m[$c["model"]] = 1 }
    END { for (k in m) if ((k ",h100") in t && (k ",h200") in t) { n++; f += t[k ",h100"] < t[k ",h200"] } print n + 0, f + 0 }' "$T/r11_rep/report.csv")
case $r11_one in
*"where a kernel is bound by its tensor cores, exp or fp32 pipe, or by its grid (fa1 under one wave: the time is its longest block's, and a block's time is its tiles' pipe times at the GPU's clock), the H100 can be predicted faster"*"so can a row bound by the grid (fa1 under one wave): its time is its longest block's, and a block's time is its tiles' pipe times at the GPU's clock"*)
    [ "${r11_g#* }" -ge 3 ] && grep -Eq "^ +flash1 +fa1 .* 341\.1 us .* grid$" "$T/r11_rep.out" && grep -Eq "^ +flash1 +fa1 .* 343 us .* grid$" "$T/r11_rep.out" \
        && pass "reader11: the H100/H200 notes name grid-bound rows ($r11_g: grid-bound fa1 models on both, faster on the H100; Falcon 341.1 vs 343 us)" \
        || fail "reader11: grid rows H100 vs H200: $r11_g" ;;
*) fail "reader11: the H100/H200 note leaves out grid-bound rows" ;;
esac

# ---- 8: the kernels titles' window in both spellings ----
grep -qF "== kernels: mistralai/Mistral-7B-v0.1, N = 32768, fwd of one sliding-window layer (causal (bottom-right), window (4095, 0) = --window 4095,0: a sliding window of 4096 keys, the diagonal's included)" "$T/r11_rep.out" \
    && grep -qF "fwd of one sliding-window layer (causal (bottom-right), window (2046, 0) = --window 2046,0: a sliding window of 2047 keys, the diagonal's included)" "$T/r11_rep.out" \
    && grep -qF "== mistralai/Mistral-7B-v0.1: H = 32, H_kv = 8, d = 128, bf16, causal + sliding window of 4096," "$T/r11_rep.out" \
    && grep -qF "microsoft/Phi-3-mini-4k-instruct: H = 32, H_kv = 32, d = 96, bf16, causal + sliding window of 2047," "$T/r11_rep.out" \
    && pass "reader11: the kernels tables' window (4095, 0) / (2046, 0) also as --window L,R and the models' 'sliding window of 4096 / 2047'" \
    || fail "reader11: window spellings: $(grep '^== kernels: .*window' "$T/r11_rep.out" | head -2)"

# ---- 5: the hbm_vs_n key at a model N outside Theorem 2's range: counted / compulsory ----
if ! command -v gnuplot >/dev/null 2>&1; then
    skip "reader11: hbm_vs_n key outside Theorem 2's range" "no gnuplot"
else
    svg_gnuplot "$T/r11_bin" "$T/r11_svg"
    PATH="$T/r11_bin:$PATH" "$FASIM" report --quiet --model "$R11_M/gpt2-medium.json" --model "$R11_M/llama-3-8b.json" \
        --hw h200 --out-dir "$T/r11_pl" 2>"$T/err"
    r11_gpt=""; r11_lla=""
    for f in "$T/r11_svg"/hbm_vs_n.*.svg; do
        pl_text "$f" | grep -q "gpt2-medium" && r11_gpt=$f
        pl_text "$f" | grep -q "Llama-3-8B" && r11_lla=$f
    done
    # Q, K, V, O once: B e (H N (d + d_v) + H_kv N (d + d_v)) = 2 x 2 x 16 x 1024 x 128 = 8388608 B at N = 1024
    r11_k=$(awk -F, '$1 == 1024 { printf "%.3g FlashAttention-1, %.3g FlashAttention-2", $3 / 8388608, $4 / 8388608 }' "$T/r11_pl/hbm_vs_n_gpt2-medium.csv")
    if [ -n "$r11_gpt" ] && [ -n "$r11_lla" ]; then
        pl_has "reader11: gpt2-medium's hbm_vs_n key: N = 1024 outside Theorem 2's range, counted / compulsory ($r11_k)" "$r11_gpt" \
            "(the model's N = 1024 is outside Theorem 2's range, N &lt; M / (d e) = 1816: counted / Θ is no constant there;" \
            "counted / compulsory (Q, K, V, O once) there: $r11_k;" \
            "counted / Θ, the line not drawn there: 26.0 FlashAttention-1, 18.8 FlashAttention-2)" \
            "(at the model's N, outside Theorem 2's range: counted / Θ = 5.65, counted / compulsory = 24.0)"
        pl_text "$r11_lla" | grep -q "counted / Θ at the model's N: " && ! pl_text "$r11_lla" | grep -q "compulsory" \
            && pass "reader11: Llama-3-8B's key (N = 8192, inside the range) keeps counted / Θ alone" \
            || fail "reader11: Llama-3-8B's hbm_vs_n key: $(pl_text "$r11_lla" | grep 'counted' | head -3)"
    else
        fail "reader11: hbm_vs_n SVGs not rendered: $(ls "$T/r11_svg" 2>/dev/null | tr '\n' ' ') $(head -c 300 "$T/err")"
    fi
fi
