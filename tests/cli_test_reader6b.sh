# cli_test_reader6b.sh -- issue 18, the sixth reader's second list ("every table and plot explains
# itself"): io's CSV/JSON time agrees with its table, unmodelled pipes print '-', dropout and
# unpadded V are said where they are timed, the legends name G, S and the overlap divisors, a need
# beyond M is explained, the report's notes are those of the models and GPUs asked for, animate
# counts from 1, and a duplicate option or key is named once.  Sourced by tests/cli_test.sh
# (tests/cli_lib.sh: pass, fail, expect_msg, oneline; $T, $FASIM).

R6B_ROOT="$(dirname "$0")/.."
R6B_M="$R6B_ROOT/analysis/models"

# ---- 1: io's CSV/JSON time_s is the table's (the time model's), its bound the table's; the roofline apart ----
# default shape (N = 1024, d = 64, H200): standard eager 15.26 us, bound launch; roofline 2.676 us; busiest pipe DRAM
r6b_c=$("$FASIM" io --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["algo"] == "standard" { print $c["time_s"] " " $c["bound"] " " $c["roofline_s"] " " $c["busiest_pipe"] " " ("model_time_s" in c) }')
r6b_j=$("$FASIM" io --format json 2>/dev/null | jq -r '.[0] | "\(.time_s == .time_model.time_s) \(.bound) \(.roofline_s) \(.time_model.busiest_pipe) \(has("time_compute_s"))"')
r6b_p=$("$FASIM" io --profile paper --algo flash2 --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print ($c["time_s"] == $c["roofline_s"]) " " $c["bound"] " [" $c["busiest_pipe"] "]" }')
"$FASIM" io > "$T/r6b_io" 2>&1
[ "$r6b_c" = "1.526017e-05 launch 2.676053e-06 DRAM 0" ] && [ "$r6b_j" = "true launch 2.676053333e-06 DRAM false" ] \
    && [ "$r6b_p" = "1 memory []" ] && grep -Eq "^standard +128 +128 .* 15\.26 us +launch$" "$T/r6b_io" \
    && grep -q '^| `roofline_s` |' "$R6B_ROOT/docs/report-csv.md" && grep -q '^| `busiest_pipe` |' "$R6B_ROOT/docs/report-csv.md" \
    && ! grep -q 'model_time_s' "$R6B_ROOT/docs/report-csv.md" \
    && pass "reader6b: io CSV/JSON time_s = the table's 15.26 us (bound launch), roofline_s 2.676 us apart, busiest_pipe DRAM" \
    || fail "reader6b: io time columns: csv '$r6b_c', json '$r6b_j', paper '$r6b_p'"
# kernels.csv: bound is what its table prints, busiest_pipe beside it
"$FASIM" report --model "$R6B_M/deepseek-v2.json" --model "$R6B_M/llama-3-8b.json" --hw h200 --no-plots \
    --out-dir "$T/r6b_rep" > "$T/r6b_rep.out" 2>&1
r6b_k=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["model"] == "deepseek-v2" && $c["profile"] == "fa2" { print $c["bound"] " " $c["busiest_pipe"] }' "$T/r6b_rep/kernels.csv")
[ "$r6b_k" = "tensor DRAM" ] && grep -Eq "^ +fa2 +128x64 +8 .* 2\.655 s +414\.2 +tensor$" "$T/r6b_rep.out" \
    && pass "reader6b: kernels.csv's bound is the table's (DeepSeek-V2 fa2: tensor), busiest_pipe DRAM" \
    || fail "reader6b: kernels.csv bound/busiest_pipe '$r6b_k'"

# ---- 2: standard's library kernels: the pipes their model does not charge print '-', and the legend says so ----
"$FASIM" io --algo standard > "$T/r6b_e" 2>&1
"$FASIM" io --algo standard --profile math > "$T/r6b_m" 2>&1
grep -Eq "^standard +eager +128x128 +- +- +- - +309\.7 ns +- +254\.5 ns +- +- +3\.26 us " "$T/r6b_e" \
    && grep -q "so smem, fp32, L2 are not modelled ('-'; 0 in CSV and JSON)" "$T/r6b_e" \
    && grep -Eq "^standard +math +128x128 +- +- +- - +- +- +254\.5 ns +5\.263 us +- +12\.43 us " "$T/r6b_m" \
    && grep -q "(fp32: SGEMM on the FMA units, no TF32), exponentials (exp) and DRAM bytes .*, so tensor, smem, L2 are not modelled" "$T/r6b_m" \
    && ! grep -q " 0 ns " "$T/r6b_e" \
    && pass "reader6b: eager prints '-' for smem, fp32, L2 (not modelled), math for tensor, smem, L2; fp32 5.263 us kept" \
    || fail "reader6b: standard pipes: $(grep '^standard  eager' "$T/r6b_e") | $(grep '^standard  math' "$T/r6b_m")"

# ---- 3: --dropout: the kernels timed as without dropout say so (math, which charges it, is not named) ----
"$FASIM" io --dropout 0.1 > "$T/r6b_d" 2>&1
"$FASIM" io --dropout 0.1 --algo standard --profile math > "$T/r6b_dm" 2>&1
"$FASIM" explain --algo flash2 --dropout 0.25 > "$T/r6b_dx" 2>&1
grep -q "^note: --dropout 0.1: standard (eager), flash1 (fa1), flash2 (fa2) timed as without dropout -- the time model charges no Philox random numbers" "$T/r6b_d" \
    && grep -q "and fa2 runs unsplit (FlashAttention-2 never splits the keys with dropout)" "$T/r6b_d" \
    && grep -Eq "^flash2 +fa2 +128x128 " "$T/r6b_d" && ! grep -q "note: --dropout" "$T/r6b_dm" \
    && grep -q "^   note: --dropout 0.25: flash2 (fa2) timed as without dropout" "$T/r6b_dx" \
    && grep -qF '**Dropout (`--dropout p`).**' "$R6B_ROOT/docs/time-model.md" \
    && pass "reader6b: --dropout: io and explain note the kernels timed without dropout (fa2 unsplit: 128x128), not math" \
    || fail "reader6b: dropout note: $(grep 'dropout' "$T/r6b_d" | tail -1)"

# ---- 4: the report says that it counts DeepSeek's fa2 with d_v != d unpadded, as io does ----
grep -q "^note: flash2 (fa2): d_v = 128 != d = 192 counted and timed as given, V and O unpadded; FlashAttention-2's released API" "$T/r6b_rep.out" \
    && [ "$(grep -c "d_v = .* != d = .* counted and timed as given" "$T/r6b_rep.out")" = 1 ] \
    && "$FASIM" io --model "$R6B_M/deepseek-v2.json" --algo flash2 2>&1 | grep -q "d_v = 128 != d = 192 counted as given" \
    && pass "reader6b: report notes DeepSeek-V2's unpadded V (d_v 128, d 192) under its table only, as io does" \
    || fail "reader6b: report's unpadded-V note: $(grep -c 'counted and timed as given' "$T/r6b_rep.out")"

# ---- 5: io's bound legend defines G and S ----
grep -q "^bound: .*softmax when S, the softmax phase (exp + fp32), is the longer, issue when S is the longer and set by the issue slots (.*), else G, the GEMM phase (the MMAs and their shared-memory operand loads), named by its busier pipe" "$T/r6b_e" \
    && grep -q "or loads for a kernel that does not prefetch (kernels/ v1, v2)" "$T/r6b_e" \
    && pass "reader6b: io's bound legend defines S (softmax phase) and G (GEMM phase), and loads" \
    || fail "reader6b: bound legend: $(grep '^bound' "$T/r6b_e" | cut -c1-200)"

# ---- 6: explain names the overlap law's divisors ----
"$FASIM" explain --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 > "$T/r6b_w" 2>&1
"$FASIM" explain --profile fa3 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 > "$T/r6b_w3" 2>&1
"$FASIM" explain --profile v1 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype fp32 > "$T/r6b_w1" 2>&1
"$FASIM" explain --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw a100 > "$T/r6b_wa" 2>&1
"$FASIM" explain --profile v3 --seqlen 4096 --batch 4 --heads 32 --headdim 64 --dtype bf16 > "$T/r6b_wv" 2>&1
grep -q "GEMM phase G = max + c x min of (tensor, smem) = 892.8 ns, c = 0.064 at w_gemm = blocks per SM x warps / 4 = 2 x 4 / 4 = 2 warps on each scheduler (ldsm_mma_overlap" "$T/r6b_w" \
    && grep -q "tile = max(G, S) + min(G, S) / w_phase + W / w_phase = 1.44 us, w_phase = max(1, blocks per SM x warps / 8) = max(1, 2 x 4 / 8) = 1 (policy warps" "$T/r6b_w" \
    && grep -q "GEMM phase G = max + min / w_gemm of (tensor, smem) = 1.906 us, w_gemm = blocks per SM x warps / 4 = 2 x 4 / 4 = 2 (the resident warps" "$T/r6b_wa" \
    && grep -q "tile = max(G, S) + min(G, S) / w_phase + W / w_phase = 917.1 ns, w_phase = blocks per SM = 2 (policy warps" "$T/r6b_wv" \
    && grep -q "w_phase = consumer warpgroups x blocks per SM = 2 x 1 = 2 (policy ping-pong)" "$T/r6b_w3" \
    && grep -q "loads L = L2 latency + .* = 1.662 us (not prefetched); tile = the longest of L, G, S + the other two / w_phase + W / w_phase = 12.33 us, w_phase = 1 (overlap policy none" "$T/r6b_w1" \
    && pass "reader6b: explain names w_gemm (2 x 4 / 4 = 2; c = 0.064 where ldsm_mma_overlap applies, min / w_gemm on the A100) and w_phase (4-warp blocks max(1, 2 x 4 / 8) = 1, v3's 8-warp blocks 2; fa3 2 x 1; v1's loads phase L 1.662 us in fp32)" \
    || fail "reader6b: overlap divisors: $(grep 'GEMM phase\|tile = ' "$T/r6b_w" | tr '\n' '|')"

# ---- 7: explain says what an SRAM need above M means ----
"$FASIM" explain --algo flash2 --seqlen 4096 --headdim 256 --hw a100 > "$T/r6b_s1" 2>&1
"$FASIM" explain --algo flash2 --blocks paper --headdim 128 --seqlen 4096 > "$T/r6b_s2" 2>&1
grep -q "SRAM need 180736 B of M = 166912 B" "$T/r6b_s1" \
    && grep -q "^  the need exceeds M by 13824 B (8.3%): in the paper's model, every buffer in one SRAM of M, these tiles do not fit .* its shared memory, 98304 B, is within M$" "$T/r6b_s1" \
    && grep -q "B_r = 128, B_c = 227 (--blocks paper); SRAM need 331776 B of M = 232448 B$" "$T/r6b_s2" \
    && grep -q "^  the need exceeds M by 99328 B (42.7%): these tiles do not fit M (--blocks paper sizes B_c = ceil(M/(4\*d\*e))" "$T/r6b_s2" \
    && grep -q "M' = 331776 B, which the Theta bound below divides by" "$T/r6b_s2" && grep -q "/331776 = 3314018.0 B" "$T/r6b_s2" \
    && pass "reader6b: explain: a need above M explained (fa2 d = 256 on the A100: +13824 B in registers; --blocks paper: M' = 331776 B)" \
    || fail "reader6b: SRAM need > M: $(sed -n 4,5p "$T/r6b_s1" | tr '\n' '|') $(sed -n 4,5p "$T/r6b_s2" | tr '\n' '|')"

# ---- 8: flash1's windowed and causal explain define V_rows and K_seen in the field's terms ----
"$FASIM" explain --algo flash1 --seqlen 4096 --headdim 64 --window 512,0 > "$T/r6b_v" 2>&1
"$FASIM" explain --algo flash1 --seqlen 1024 --seqlen-k 4096 --causal=top-left --headdim 64 > "$T/r6b_v2" 2>&1
oneline "$T/r6b_v" | grep -qF "key block j (B_c = 256 keys) is visited only by the row blocks (B_r = 16 rows) whose band reaches one of its keys (fa_q_span_sum), so V_rows = query rows loaded over all visits, summed over the T_c = 16 key blocks = 11520 (instead of T_c*N_q = 65536 without the window)" \
    && grep -q "K and V are read once: 4096 of 4096 keys" "$T/r6b_v" \
    && grep -q "only key blocks some row sees are loaded: K_seen = 1024 of 4096 keys" "$T/r6b_v2" \
    && grep -Eq "^    K +read +K_seen\*d\*e += 1024\*64\*2 += +131072$" "$T/r6b_v2" \
    && pass "reader6b: flash1 explain: V_rows by B_c, B_r, T_c (11520), K_seen = 1024 keys of 4096 (K read K_seen*d*e)" \
    || fail "reader6b: V_rows / K_seen text: $(sed -n 9,12p "$T/r6b_v" | tr '\n' '|')"

# ---- 9: fwdbwd: the summed times on a 'fwd + bwd' row of their own, not on the backward's ----
"$FASIM" io --pass fwdbwd --seqlen 4096 --headdim 128 --batch 4 --heads 16 --dtype bf16 > "$T/r6b_fb" 2>&1
grep -Eq "^flash2 +fa2 bwd +64x128 +8 +128 KiB +255 1 \(registers, shared memory\)$" "$T/r6b_fb" \
    && grep -Eq "^flash2 +fwd \+ bwd: the two kernels above together +2\.947 ms +3\.768 ms .* 6\.476 ms +297\.1 smem$" "$T/r6b_fb" \
    && grep -Eq "^standard +fwd \+ bwd: the two kernels above together +1\.903 ms +- +260\.6 us +- +- +11 ms " "$T/r6b_fb" \
    && grep -q "forward + backward: a row for each kernel, then their pipe times and time summed on the 'fwd + bwd' row" "$T/r6b_fb" \
    && pass "reader6b: fwdbwd's pipe times and time (flash2 6.476 ms) on a 'fwd + bwd' row, the bwd row without them" \
    || fail "reader6b: fwdbwd rows: $(grep '^flash2' "$T/r6b_fb" | tail -3 | tr '\n' '|')"

# ---- 10: io --cp derives each scheme's memory per GPU, Ulysses's included ----
"$FASIM" io --cp 4 --seqlen 65536 --heads 32 --kv-heads 8 --headdim 128 --dtype bf16 > "$T/r6b_cp" 2>&1
grep -Eq "^ulysses +4 .* 642 MiB " "$T/r6b_cp" \
    && grep -qF "  ulysses: Q, K, V and O in both layouts (n tokens of all H heads before the all-to-all, N tokens of H/P heads after: n (q + kv + o) bytes each) and the LSE of H/P heads over N tokens: B (2 n (q + kv + o) + N lse / P) = 1 x (2 x 16384 x (8192 + 4096 + 8192) + 65536 x 128 / 4) = 673185792 B (642 MiB)" "$T/r6b_cp" \
    && grep -qF "  ring: Q, two K/V buffers (computed on, arriving), O, the fp32 O_acc and two LSE of its n tokens: B n (q + 2 kv + o + 4 H d_v + 2 lse) = 1 x 16384 x (8192 + 2 x 4096 + 8192 + 16384 + 2 x 128) = 675282944 B (644 MiB)" "$T/r6b_cp" \
    && grep -qF "q = H d e = 8192, kv = H_kv (d + d_v) e = 4096, o = H d_v e = 8192, lse = 4 H = 128 and n = N/P:" "$T/r6b_cp" \
    && oneline "$T/r6b_rep.out" | grep -qF "ulysses B (2 n (q + kv + o) + N lse / P) -- Q, K, V, O in both layouts of its all-to-all" \
    && pass "reader6b: io --cp derives the memory column (ulysses 673185792 B = 642 MiB; ring 644 MiB); the report gives the formulas" \
    || fail "reader6b: cp memory lines: $(grep '^  ulysses' "$T/r6b_cp")"

# ---- 11: the report's notes are those of the models and GPUs asked for (the papers' section, which
# reproduces the A100 and H100 figures whatever --hw, apart) ----
"$FASIM" report --model "$R6B_M/llama-3-8b.json" --hw b200 --no-plots --out-dir "$T/r6b_b2" > "$T/r6b_b2.out" 2>&1
oneline "$T/r6b_rep.out" > "$T/r6b_rep1"
oneline "$T/r6b_b2.out" > "$T/r6b_b21"
grep -qF "DRAM est depends on the L2: 60 MiB on the H200-SXM." "$T/r6b_rep1" \
    && ! sed '/^== the papers/,$d' "$T/r6b_rep.out" | grep -q "A100\|H100\|B200" \
    && ! grep -qF "no mma.sync rate for fa1 and fa2" "$T/r6b_rep1" \
    && grep -qF "No row: fa1 on H200-SXM for the models deepseek-v2 (d = 192) only (their config files' names under analysis/models/); fa4 on H200-SXM (fa4 on Blackwell only; the kernel has no tile for the head dims of the models named" "$T/r6b_rep1" \
    && ! grep -qF "fa3 and cudnn run on Hopper only" "$T/r6b_rep1" && ! grep -qF "softcap C (Gemma-2's" "$T/r6b_rep1" \
    && grep -qF "128 x 64 with 8 warps at d = 192 on every GPU (as FlashAttention-2's flash_fwd_launch_template.h picks)" "$T/r6b_rep1" \
    && grep -qF "meta-llama/Meta-Llama-3-8B's 32 heads use 32 of the H200-SXM's 132 SMs" "$T/r6b_rep1" \
    && grep -qF "DRAM est depends on the L2: 126 MiB on the B200-SXM (not in its datasheet: assumed, sim/hw/b200.hw)." "$T/r6b_b21" \
    && grep -qF "(here on B200-SXM: no mma.sync rate for fa1 and fa2)" "$T/r6b_b21" \
    && grep -qF "the B200-SXM's 6.57 TB/s, its datasheet's x 3.94 / 4.8 (datasheet 8)" "$T/r6b_b21" \
    && ! grep -qF "H100 against H200" "$T/r6b_b21" && ! grep -qF "on the A100" "$T/r6b_b21" \
    && pass "reader6b: report notes follow --hw and --model (H200 alone: its 60 MiB L2, no B200 or H100 note; B200: its 126 MiB, roofline note)" \
    || fail "reader6b: report notes not tailored: $(sed '/^== the papers/,$d' "$T/r6b_rep.out" | grep -c 'A100\|H100\|B200') foreign GPU mentions before the papers' section (which reproduces A100 and H100 figures whatever --hw)"

# ---- 12: animate counts from 1 (Algorithm 1's i, j): captions, heatmap.csv, the stdout line ----
if "$FASIM" animate --out-dir "$T/r6b_an" > "$T/r6b_an.out" 2>&1 \
   && "$FASIM" animate --heatmap --out-dir "$T/r6b_hm" > "$T/r6b_hm.out" 2>&1; then
    sed -n 2p "$T/r6b_an/labels.dat" | grep -qx '0 0.9 "step 1/44: read Q_1 (row block 1 of 4; 8192 B)"' \
        && grep -q '"step 44/44: write LSE_4 (row block 4 of 4; 256 B)"' "$T/r6b_an/labels.dat" \
        && grep -q "steps, frames and tiles numbered from 1, as Algorithm 1 numbers Q_i (i = 1 .. T_r)" "$T/r6b_an.out" \
        && [ -f "$T/r6b_an/frame_0001.png" ] && [ -f "$T/r6b_an/frame_0044.png" ] \
        && sed -n 2p "$T/r6b_hm/heatmap.csv" | grep -qx 'flash1,1,1,4,Q read' && tail -1 "$T/r6b_hm/heatmap.csv" | grep -qx 'flash2,10,4,1,LSE write' \
        && grep -Eq "^  tile +1 +2 +3 +4   \(the tile's index: row block i for Q, O, l, m, LSE; key block j for K, V; a count: its transfers\)$" "$T/r6b_hm.out" \
        && pass "reader6b: animate numbers steps, tiles, frames and heatmap rows from 1 (Q_1 .. LSE_4; heatmap.csv flash2,10,4,1)" \
        || fail "reader6b: animate numbering: $(sed -n 2p "$T/r6b_an/labels.dat") / $(sed -n 2p "$T/r6b_hm/heatmap.csv")"
else
    skip "reader6b: animate numbers from 1" "animate failed (gnuplot?): $(tail -1 "$T/r6b_an.out")"
fi

# ---- 13: a second --model is one clear message ----
expect_msg -x "reader6b: io --model twice, the same file" "--model $R6B_M/llama-3-8b.json given twice (give it once)" \
    -- io --model "$R6B_M/llama-3-8b.json" --model "$R6B_M/llama-3-8b.json"
expect_msg -x "reader6b: explain --model twice, two files" "--model given twice ('$R6B_M/llama-3-8b.json', then '$R6B_M/gpt2-medium.json'): give one model config (only fasim report takes several)" \
    -- explain --model "$R6B_M/llama-3-8b.json" --model "$R6B_M/gpt2-medium.json"
expect_msg -x "reader6b: report --model twice" "--model $R6B_M/llama-3-8b.json given twice (each model once)" \
    -- report --model "$R6B_M/llama-3-8b.json" --model "$R6B_M/llama-3-8b.json" --out-dir "$T/r6b_rr" --quiet
mkdir -p "$T/r6b_mm" && cp "$R6B_M/gpt2-medium.json" "$T/r6b_mm/llama-3-8b.json"
expect_msg "reader6b: report, two models of one file stem" "have the same file stem 'llama-3-8b', which names a model's files (hbm_vs_n_llama-3-8b.csv)" \
    -- report --model "$R6B_M/llama-3-8b.json" --model "$T/r6b_mm/llama-3-8b.json" --out-dir "$T/r6b_rr" --quiet
[ ! -e "$T/r6b_rr" ] && pass "reader6b: a refused report writes no directory" || fail "reader6b: refused report wrote $T/r6b_rr"

# ---- 14: a duplicate key of a config.json is named ----
printf '{\n  "num_attention_heads": 12,\n  "hidden_size": 768,\n  "hidden_size" : 1024}' > "$T/r6b_dup.json"
expect_msg -x "reader6b: config.json key twice, named with its line" "model file $T/r6b_dup.json: key \"hidden_size\" given twice (line 4): give each key once" \
    -- io --model "$T/r6b_dup.json"
printf '\357\273\277{"n_head": 12, "n_embd": 768, "rope_scaling": {"type": "linear", "type": "yarn"}}' > "$T/r6b_dup2.json"
expect_msg "reader6b: a nested key twice, after a byte order mark" 'key "type" given twice (line 1)' -- io --model "$T/r6b_dup2.json"

# ---- 15: no varlen-packed (packed) row where H = H_kv makes it the per-head one ----
"$FASIM" io --cu-seqlens 0,100,300,700 --heads 8 --kv-heads 8 > "$T/r6b_vl" 2>&1
"$FASIM" io --cu-seqlens 0,100,300,700 --heads 8 --kv-heads 2 > "$T/r6b_vl2" 2>&1
r6b_dc=$("$FASIM" io --decode --kv-len 4096 --heads 8 --format csv 2>&1 | awk -F, 'NR > 1 { print $1 }' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
r6b_pk=$("$FASIM" io --decode --kv-len 4096 --heads 8 --gqa packed --format csv 2>&1 | awk -F, 'NR > 1 { print $1 }' | sort -u)
! grep -q "^varlen-packed " "$T/r6b_vl" && grep -Eq "^varlen +1 +128 +128 +56 +4\.785 MiB" "$T/r6b_vl" \
    && grep -q "^(no varlen-packed row: H = H_kv = 8, so GQA packing groups one query head per kv head and the packed kernel is the varlen row's, byte for byte; --gqa packed prints it)$" "$T/r6b_vl" \
    && grep -Eq "^varlen-packed +1 +128 +128 +48 +4\.102 MiB" "$T/r6b_vl2" && ! grep -q "no varlen-packed row" "$T/r6b_vl2" \
    && [ "$r6b_dc" = " 2 per-head;" ] && [ "$r6b_pk" = packed ] \
    && pass "reader6b: at H = H_kv the packed rows (identical) are left out and said so; H_kv = 2 keeps varlen-packed (48 blocks, 4.102 MiB)" \
    || fail "reader6b: packed rows at H = H_kv: $(grep -c packed "$T/r6b_vl") lines, decode csv '$r6b_dc', --gqa packed '$r6b_pk'"
