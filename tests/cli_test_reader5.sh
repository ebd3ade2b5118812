# cli_test_reader5.sh -- issue 18, the fifth fresh reader (notes/reader5_findings.md): every table
# and plot explains itself -- what sets a time, what a line sums, which clock, which tiles, plurals
# and aligned columns.  Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, skip; $T,
# $FASIM); it reads reader3's report output ($T/r3_out, $T/r3_rep), made below when absent.

# run alone (tests/cli_one.sh: each file in its own copy of $T), make reader3's report here
[ -f "$T/r3_out" ] || "$FASIM" report --no-plots --out-dir "$T/r3_rep" > "$T/r3_out" 2>&1
R5_ROOT="$(dirname "$0")/.."

# ---- 14: one thread block, one slice, one GPU: singular nouns ----
"$FASIM" explain --algo flash1 --seqlen 4096 --headdim 64 > "$T/r5_g1" 2>&1
"$FASIM" io --cp 1 --seqlen 8192 > "$T/r5_g2" 2>&1
grep -q "B\*H = 1 slice$" "$T/r5_g1" && grep -q " 4096 tiles in 1 thread block (0.01 waves)" "$T/r5_g1" \
    && grep -q "^context parallelism, one layer's forward over P = 1 GPU | " "$T/r5_g2" \
    && ! grep -Eq " 1 (slices|thread blocks|GPUs)\b" "$T/r5_g1" "$T/r5_g2" \
    && pass "reader5: 1 slice, 1 thread block, P = 1 GPU (singular)" \
    || fail "reader5: plurals: $(grep -E 'slice|thread block|GPU' "$T/r5_g1" "$T/r5_g2" | head -3 | tr '\n' ' ')"

# ---- 15: the CP tables' headers end at "bound", no trailing blanks (io --cp, report) ----
"$FASIM" io --cp 2 --seqlen 8192 > "$T/r5_cp" 2>&1
r5_h=$(grep -h "vs P=1" "$T/r5_cp" "$T/r3_out" | grep -c ' $')
[ "$(cat "$T/r5_cp" "$T/r3_out" | grep -c "vs P=1 *bound$")" -ge 2 ] && [ "$r5_h" = 0 ] \
    && pass "reader5: the CP table headers (io --cp, report) end at 'bound' with no trailing blanks" \
    || fail "reader5: CP headers with trailing blanks: $r5_h"

# ---- 16: the reader's docs state facts, not the project's history (results.md is the log) ----
r5_hist=$(grep -EniH "since 2026-|until (this change|2026-)|(seventh|eighth|this) session|in the eighth|measured afterwards" \
    "$R5_ROOT/docs/time-model.md" "$R5_ROOT/docs/numerics.md" "$R5_ROOT/docs/context-parallel.md" | head -3)
[ -z "$r5_hist" ] && pass "reader5: time-model.md, numerics.md, context-parallel.md carry no session history" \
    || fail "reader5: history language: $r5_hist"

# ---- 3: explain's kernel line says how its time is made (not a sum of what it lists) ----
# flash2, N = 4096, d = 64: waves 20.63 us beside L2 8.387 us, DRAM 1.48 us; + 1.218 us + 8 us = 29.85 us
"$FASIM" explain --seqlen 4096 --headdim 64 --algo flash2 > "$T/r5_t3" 2>&1
grep -q "waves 20.63 us .*; L2 8.387 us, DRAM 1.48 us; small kernels 1.218 us, launches 8 us: time = max(waves, L2, DRAM) + small kernels + launches = 29.85 us$" "$T/r5_t3" \
    && pass "reader5: explain's kernel line: time = max(waves, L2, DRAM) + small kernels + launches = 29.85 us" \
    || fail "reader5: explain's time line: $(grep 'launches' "$T/r5_t3")"

# ---- 4: the non-tensor pipes' clock factor names the clock it scales (clock_hz, 1970 MHz) ----
# v5 at 65.2 % tensor load: 1776 MHz = 0.901 x 1970 MHz, the figure the load-clock line gives
"$FASIM" explain --profile v5 --dtype bf16 --headdim 128 --seqlen 4096 --heads 16 --batch 4 > "$T/r5_t4" 2>&1
grep -q "(the non-tensor pipes at 0.901 x the 1970 MHz their rates hold at = 1776 MHz)$" "$T/r5_t4" \
    && grep -q "so every SM pipe above runs at 1776 MHz$" "$T/r5_t4" \
    && pass "reader5: explain: non-tensor pipes at 0.901 x 1970 MHz = 1776 MHz, the load-clock line's clock" \
    || fail "reader5: explain's clock factor: $(grep -o '(the non-tensor[^)]*)' "$T/r5_t4")"

# ---- 10: io's legend says what each word of the bound column means, '+ tail' among them ----
"$FASIM" io --pass fwdbwd --seqlen 2048 --headdim 128 --causal --dtype bf16 --heads 16 --batch 2 > "$T/r5_t10" 2>&1
grep -Eq "^flash2 +fwd \+ bwd: the two kernels above together .* smem \+ tail$" "$T/r5_t10" \
    && grep -q "^bound: what sets the time: .*; grid: .*; launch: .*; '+ tail': the last wave's tail adds over 10 %" "$T/r5_t10" \
    && pass "reader5: io's legend explains the bound column's words, 'smem + tail' included" \
    || fail "reader5: io's bound legend: $(grep '^bound' "$T/r5_t10")"

# ---- 13: fasim check says its columns and the tiles of each low-precision row ----
"$FASIM" check > "$T/r5_c13a" 2>&1
"$FASIM" check --dtype fp8_e4m3 --fp8-quant block --seqlen 256 --headdim 64 > "$T/r5_c13b" 2>&1
head -1 "$T/r5_c13a" | grep -q "^each algorithm in fp64 against the fp64 reference .*abs = max |O - O_ref|, rel = abs / max |O_ref|, lse = max |LSE - LSE_ref| (n/a: standard computes no LSE); PASS: rel <= 1.0e-10" \
    && grep -Eq "^flash2 +O +B=1 .* d=64 +none +B_r=128 B_c=128 fp8_e4m3 err " "$T/r5_c13b" \
    && grep -q "per block of the tiles' B_r (Q) and B_c (K, V) rows (B_r, B_c: each row's; 128 x 128 on a shape given by options" "$T/r5_c13b" \
    && pass "reader5: check: a header for abs, rel, lse; the fp8 rows print their tiles (128 x 128 by default with --fp8-quant)" \
    || fail "reader5: check headers: $(head -1 "$T/r5_c13a" | cut -c1-80) / $(grep '^flash2' "$T/r5_c13b" | cut -c1-120)"

# ---- 7: compare says which skip rows it compares, whose pass column it prints, and what v5_fp8's ms holds ----
"$FASIM" compare --measured "$R5_ROOT/analysis/measured/h200/s8_fp8_sweep.csv" --hw h200 --no-l2 > "$T/r5_c7" 2>&1
"$FASIM" compare --help > "$T/r5_c7h" 2>&1
grep -q "^time  *16 rows: " "$T/r5_c7" \
    && grep -q "^(v5_fp8: meas ms is the attention kernel alone, as fabench times it (kernels/fabench_fp8.cu); the V -> V^T pre-pass is timed apart" "$T/r5_c7" \
    && grep -q "not a benchmark file's pass" "$T/r5_c7" \
    && grep -q "a skip row with a time (the validation did not run: every row of s8_fp8_sweep.csv) is" "$T/r5_c7h" \
    && ! grep -q "ref and skip rows (not timed) are left out" "$T/r5_c7h" \
    && grep -q "fabench's \`v5_fp8\` ms is the attention kernel alone" "$R5_ROOT/docs/time-model.md" \
    && pass "reader5: compare: its 16 skip rows with a time compared and said so; v5_fp8's ms without its pre-pass (note, help, time-model.md)" \
    || fail "reader5: compare skip/pass/pre-pass notes: $(grep -E '^(time|\(v5_fp8)' "$T/r5_c7")"

# ---- 8: compare names a kernel it has no profile for, and the profile it timed it as ----
printf 'kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms\nzzz,1,16,16,4096,4096,64,0,bf16,1\n' > "$T/r5_zzz.csv"
"$FASIM" compare --measured "$T/r5_zzz.csv" --no-l2 > "$T/r5_c8" 2>&1; r5_rc=$?
"$FASIM" compare --measured "$T/r5_zzz.csv" --no-l2 --format csv > "$T/r5_c8c" 2>"$T/r5_c8e"
[ $r5_rc = 0 ] && grep -q "^(note: 1 row names a kernel fasim has no profile for (no profile column either): timed 'zzz' (line 2) as fa2, the flash2 default" "$T/r5_c8" \
    && grep -q "^fasim compare: note: 1 row names a kernel fasim has no profile for" "$T/r5_c8e" \
    && ! grep -q "note" "$T/r5_c8c" \
    && pass "reader5: compare: a mistyped kernel name (zzz) is timed as fa2 with a note naming it (table; stderr with csv)" \
    || fail "reader5: compare unknown kernel: rc $r5_rc, $(grep note "$T/r5_c8" "$T/r5_c8e")"

# ---- 2: explain's waves can be rebuilt: a block's slot with the ping-pong's exposed G ----
# v5_fp8, B 4, H 16, N 4096, d 128: 1 x (32 x 1.268 us + G 584.8 ns) + 2.477 us = 43.65 us; 16 in turn = 698.5 us
"$FASIM" explain --profile v5_fp8 --dtype fp8_e4m3 --headdim 128 --seqlen 4096 --heads 16 --batch 4 > "$T/r5_t2" 2>&1
grep -q "^     a block's slot: 1 x (32 tiles x tile + G once (the ping-pong's exposed GEMM phase)) + edges = 1 x (32 x 1.268 us + 584.8 ns) + 2.477 us = 43.65 us; 16 blocks in turn on the fullest slot (ceil(15.52 waves)): 698.5 us" "$T/r5_t2" \
    && grep -q "waves 698.5 us" "$T/r5_t2" \
    && pass "reader5: explain rebuilds v5_fp8's waves: 16 x (32 x 1.268 us + G 584.8 ns + edges 2.477 us) = 698.5 us" \
    || fail "reader5: explain's slot line: $(grep "slot:" "$T/r5_t2")"

# ---- 11: io's time-model table keeps its columns: "1 of 3 (shared memory)" and 92.19 KiB fit ----
"$FASIM" io --seqlen 512 > "$T/r5_t11" 2>&1
# the rows with times: the tensor column's last character under the header's ("tensor" ends in r, a time in s)
r5_al() { awk '/^algo +profile +tiles/ { h = $0; t = index(h, "tensor") + 5; next }
    /^$/ { h = "" }
    h && /^(standard|flash1|flash2) / && $2 !~ /^\(/ && NF > 20 { n++; if (substr($0, t, 2) != "s ") bad++ }
    END { print n + 0, bad + 0 }' "$1"; }
r5_a1=$(r5_al "$T/r5_t11"); r5_a2=$(r5_al "$T/r5_t10")
grep -q " 1 of 3 (shared memory)   102.8 ns " "$T/r5_t11" && grep -Eq "^flash1 +fa1 bwd +16x128 +8  92.19 KiB  176 " "$T/r5_t10" \
    && [ "$r5_a1" = "3 0" ] && [ "$r5_a2" = "3 0" ] \
    && pass "reader5: io's time-model rows keep the tensor column under its header (N = 512, fwdbwd), warps and smem/blk apart" \
    || fail "reader5: io time-model columns: rows/misaligned $r5_a1 / $r5_a2: $(grep -E '^flash1 +fa1' "$T/r5_t11" "$T/r5_t10")"

# ---- 9: a roofline time beside the time model's is marked, and the legend says which is which ----
"$FASIM" io --block-r 17 --block-c 17 > "$T/r5_t9" 2>&1
grep -Eq "^standard +17 +17 .* 18.79 us +launch$" "$T/r5_t9" && grep -Eq "^flash1 +17 +17 .* \(5.289 us\) +memory$" "$T/r5_t9" \
    && grep -Eq "^flash2 +17 +17 .* \(3.387 us\) +memory$" "$T/r5_t9" \
    && grep -q "^time in parentheses: the roofline max(FLOPs / peaks, HBM bytes / bandwidth) of a row no kernel profile times here" "$T/r5_t9" \
    && ! "$FASIM" io --seqlen 512 | grep -q "^time in parentheses" \
    && pass "reader5: io --block-r 17: flash1, flash2's rooflines in parentheses beside standard's time-model 18.79 us, with a legend" \
    || fail "reader5: io roofline marks: $(grep -E '^(standard|flash1|flash2) ' "$T/r5_t9" | awk '{ print $(NF-1), $NF }' | tr '\n' ' ')"

# ---- 17: the report's roofline rows (fa1, fa2 on the B200) print their time and TFLOP/s in parentheses ----
"$FASIM" report --hw b200 --model "$R5_ROOT/analysis/models/llama-3-8b.json" --no-plots --out-dir "$T/r5_b200" > "$T/r5_b200.out" 2>&1
r5_b2=$(awk '/^== meta-llama/ { on = 1; next } on && /^$/ { exit } on && / fa[12] / { print $1 ":" $9 $10 ":" $12 }' "$T/r5_b200.out" | tr '\n' ' ')
[ "$r5_b2" = "flash1:(860.4us):(639.0) flash2:(562.2us):(977.9) " ] \
    && grep -Eq "^B200-SXM +standard +eager .* 4.608 ms +1.00x +119.3 +DRAM$" "$T/r5_b200.out" \
    && oneline "$T/r5_b200.out" | grep -qF "a kernel the GPU's profile cannot time (here on B200-SXM: no mma.sync rate for fa1 and fa2), its time and TFLOP/s in parentheses" \
    && pass "reader5: report --hw b200: fa1's, fa2's roofline time and TFLOP/s in parentheses (562.2 us, 977.9), the time model's bare" \
    || fail "reader5: report b200 roofline marks: '$r5_b2'"

# ---- 5: sweep says it is the paper's model (profile paper, --blocks tiles, no model_* time) ----
"$FASIM" sweep --help > "$T/r5_sw" 2>&1
r5_sw=$("$FASIM" sweep --vary seqlen=512 --algo flash2 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["profile"] ":" $c["block_r"] "x" $c["block_c"] ":" $c["busiest_pipe"] ":" ($c["time_s"] == $c["roofline_s"]) }')
[ "$r5_sw" = "paper:160x160::1" ] && grep -q "Runs \`fasim io --profile paper\` over the cartesian product" "$T/r5_sw" \
    && grep -q "time_s the roofline (= roofline_s, bound compute or memory)" "$T/r5_sw" \
    && grep -q "^| \`fasim sweep\` | .*the paper's model (\`fasim io --profile paper\`" "$R5_ROOT/README.md" \
    && pass "reader5: sweep --help and the README say sweep runs the paper's model (profile paper, 160 x 160, busiest_pipe empty, time_s the roofline)" \
    || fail "reader5: sweep's model: '$r5_sw', help: $(sed -n 2p "$T/r5_sw")"

# ---- 1: bound names what sets the time (the waves' longer phase), the busiest pipe beside it ----
# DeepSeek-V2 causal, fa2: waves 2.655 s (the tile G + S / 1, G the longer), DRAM busy 1.859 s;
# v5_fp8: the softmax phase S is the longer one, tensor the busiest pipe
"$FASIM" explain --model "$R5_ROOT/analysis/models/deepseek-v2.json" --causal --algo flash2 > "$T/r5_t1a" 2>&1
"$FASIM" io --model "$R5_ROOT/analysis/models/deepseek-v2.json" --causal --algo flash2 > "$T/r5_t1b" 2>&1
r5_j1=$("$FASIM" io --model "$R5_ROOT/analysis/models/deepseek-v2.json" --causal --algo flash2 --format json 2>/dev/null | jq -r '.[0].time_model.busiest_pipe')
grep -q "^   time 2.655 s, 414.2 TFLOP/s, bound by tensor (the GEMM phase G, the tile's longer one); the busiest pipe: DRAM, 1.859 s of the 2.655 s$" "$T/r5_t1a" \
    && grep -Eq "^flash2 +128 +64 .* 2.655 s +tensor$" "$T/r5_t1b" && grep -Eq "^flash2 +fa2 .* 2.655 s +414.2 tensor$" "$T/r5_t1b" \
    && grep -q "(the tile's softmax phase S, the longer one); the busiest pipe: tensor, " "$T/r5_t2" \
    && [ "$r5_j1" = DRAM ] && grep -q "^bound: what sets the time: L2 or DRAM when its bytes / rate exceed the waves" "$T/r5_t1b" \
    && pass "reader5: bound names what sets the time (DeepSeek-V2: tensor's G phase, DRAM the busiest pipe; v5_fp8: softmax); JSON time_model.busiest_pipe keeps the busiest pipe" \
    || fail "reader5: bound: $(grep '^   time' "$T/r5_t1a"), json '$r5_j1'"

# ---- 12: cp_time_vs_p marks the points the table calls "out of memory"; allgather shows under ulysses ----
# cp.csv: fits = 0 for the 4 schemes at P = 1, N = 512k and P = 1, 2 at N = 1M: 12 points
r5_oom=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["fits"] == "0" { n++ } END { print n + 0 }' "$T/r3_rep/cp.csv")
r5_gp="$R5_ROOT/plots/cp_time_vs_p.gp"
[ "$r5_oom" = 12 ] && [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "fits") print i }' "$T/r3_rep/cp.csv")" = 31 ] \
    && grep -q 'strcol(31) eq "0" ? column(2) : 1/0' "$r5_gp" && grep -q 'title "out of memory (cp.csv fits = 0: 80 layers' "$r5_gp" \
    && grep -q '^schemes = "ring allgather zigzag ulysses"' "$r5_gp" && grep -q '^lws = "2 9 4 2"' "$r5_gp" \
    && pass "reader5: cp_time_vs_p marks cp.csv's 12 out-of-memory points (column 31 fits = 0); allgather drawn widest under zigzag and ulysses" \
    || fail "reader5: cp plot: $r5_oom out-of-memory rows, the script's marks missing"

# ---- 6: fa2 on d = 192, d_v = 128 (DeepSeek's MLA) says FlashAttention-2's released API pads V ----
"$FASIM" io --model "$R5_ROOT/analysis/models/deepseek-v2.json" --causal --algo flash2 > "$T/r5_t6" 2>&1
grep -q "^note: flash2 (fa2): d_v = 128 != d = 192 counted as given; FlashAttention-2's released API checks V's head dim against Q's, so its callers pad V (and O) to 192 (--headdim-v 192 counts that" "$T/r5_t6" \
    && ! "$FASIM" io --seqlen 512 --algo flash2 | grep -q "counted as given" \
    && grep -q "^\*\*d_v != d on \`fa2\` (DeepSeek's MLA, d = 192, d_v = 128).\*\*" "$R5_ROOT/docs/time-model.md" \
    && grep -q "FlashAttention-2's released API needs V padded to 192" "$R5_ROOT/docs/conventions.md" \
    && pass "reader5: fa2 at d = 192, d_v = 128: io's note and docs say the released FlashAttention-2 API pads V to d" \
    || fail "reader5: fa2 d_v != d: $(grep '^note' "$T/r5_t6")"
