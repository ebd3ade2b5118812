# cli_test_reader13.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg; $T, $FASIM).
# The thirteenth fresh readings (reader13, reader13b): the command line's output -- explain's bound
# and SRAM-limit sentences, the bound legend's `issue`, one notation for roofline times, the clock
# note, the units, the messages of check --study and compare, io's columns, plurals.
R13_ROOT=$(dirname "$0")/..

# reader13 #1, reader13b #5: bound by issue names the softmax phase S (S 1.64 us > G 1.483 us)
"$FASIM" explain --profile v5_bwd_atomic --pass bwd --dtype bf16 --batch 1 --heads 16 --seqlen 16384 --headdim 64 > "$T/r13_x1" 2>&1
grep -q "softmax S = max(exp + fp32, issue) = 1.64 us" "$T/r13_x1" \
    && grep -q "bound by issue (the tile's softmax phase S, set by the issue slots, the longer one)" "$T/r13_x1" \
    && ! grep -q "bound by issue (the GEMM phase" "$T/r13_x1" \
    && pass "reader13: explain's bound by issue names the softmax phase S" \
    || fail "reader13: explain issue bound: $(grep 'bound by' "$T/r13_x1")"

# reader13 #3: --blocks fit's tiles at d = 64, M = 48K: the B*d terms (31104 B) outweigh the S tile
# (4*48*48 = 9216 B); at M = 1M (B = 432) the S tile (746496 B) does
"$FASIM" explain --algo flash2 --profile paper --seqlen 8192 --sram 48K > "$T/r13_x3" 2>&1
"$FASIM" explain --algo flash2 --profile paper --seqlen 8192 --sram 1M > "$T/r13_x3b" 2>&1
oneline "$T/r13_x3" | grep -qF "the need, 40320 B of M = 49152 B, is the fp32 S tile's 4*B_r*B_c = 9216 B and 31104 B of the B*d buffers and row vectors (Q_i, K_j, V_j, O_i, m_i, l_i): the B*d terms are the larger part" \
    && oneline "$T/r13_x3b" | grep -qF "4*B_r*B_c = 746496 B and 279936 B of the B*d buffers and row vectors (Q_i, K_j, V_j, O_i, m_i, l_i): the S tile is the larger part" \
    && ! grep -q "limited by the fp32" "$T/r13_x3" \
    && pass "reader13: explain names the term that limits B (B*d at 48K, the S tile at 1M)" \
    || fail "reader13: explain's SRAM limit: $(grep -A3 'Here B' "$T/r13_x3" | tr '\n' '|')"

# reader13 #2, reader13b #6: io's and the report's bound legends and report-csv.md define `issue`
"$FASIM" io --profile v5_bwd_atomic --pass bwd --dtype bf16 --batch 1 --heads 16 --seqlen 16384 --headdim 64 > "$T/r13_io2" 2>&1
grep -q "6.751 ms   issue$" "$T/r13_io2" \
    && grep -q "^bound: .*issue when S is the longer and set by the issue slots (the profile's measured warp instructions" "$T/r13_io2" \
    && grep -q "^| \`bound\` | .*\`issue\` where the softmax phase is the longer and its issue slots set it" "$R13_ROOT/docs/report-csv.md" \
    && pass "reader13: the bound legend (io) and report-csv.md define issue" \
    || fail "reader13: issue undefined: $(grep '^flash2 ' "$T/r13_io2" | head -1)"

# reader13 #4: one notation for roofline times, parentheses: io with only an untimed kernel's row,
# the report's model-pass sum (21 x (1.099 ms + 834.7 us) = 40.61 ms) and its training table
"$FASIM" io --hw b200 --profile fa2 > "$T/r13_io4" 2>&1
grep -Eq "^flash2 .* \(873 ns\)  memory$" "$T/r13_io4" && grep -q "^time in parentheses: the roofline" "$T/r13_io4" \
    && pass "reader13: io --hw b200 --profile fa2 prints its roofline in parentheses" \
    || fail "reader13: io b200 fa2: $(grep '^flash2' "$T/r13_io4")"
"$FASIM" report --model "$R13_ROOT/analysis/models/gemma-2-9b.json" --hw b200 --out-dir "$T/r13_rep4" --no-plots > "$T/r13_rep4.txt" 2>&1
r13_sum=$(awk '/the model pass:/ { on = 1; next } on && $1 == "flash2" { print $4, $5; exit }' "$T/r13_rep4.txt")
r13_trn=$(awk '/^== training/ { on = 1; next } on && $1 == "flash2" { print $12, $13; exit }' "$T/r13_rep4.txt")
# the time column ends where its header does
r13_al=$(awk '/^== training/ { on = 1; next } on && /^algo/ { h = index($0, "time") + 3 } on && $1 == "flash1" { print h, index($0, "us)") + 2; exit }' "$T/r13_rep4.txt")
[ "$r13_sum" = "(40.61 ms)" ] && [ "$r13_trn" = "(827.9 us)" ] && [ "$(echo "$r13_al" | awk '{ print $1 == $2 }')" = 1 ] \
    && grep -q "^(time in parentheses: the layers' roofline times summed" "$T/r13_rep4.txt" \
    && ! grep -q " us r \| ms r " "$T/r13_rep4.txt" \
    && pass "reader13: the report's model-pass sum and training table put rooflines in parentheses, aligned" \
    || fail "reader13: roofline notation: sum '$r13_sum', training '$r13_trn', align '$r13_al'"
grep -q "The tables print a roofline in parentheses wherever it stands beside the time model's times" "$R13_ROOT/docs/report-csv.md" \
    && pass "reader13: report-csv.md says where rooflines print in parentheses" || fail "reader13: report-csv.md parentheses"

# reader13 #5: the H100-vs-H200 clock notes: 1620 MHz is the full-load wgmma clock, higher at partial load
"$FASIM" report --hw h100 --hw h200 --model "$R13_ROOT/analysis/models/llama-3-8b.json" --no-plots --out-dir "$T/r13_rep5" > "$T/r13_rep5.txt" 2>&1
r13_c=$(oneline "$T/r13_rep5.txt" | grep -o "1620 MHz at full load, more at partial load (wgmma_clock_by_load; fasim explain prints each row's clock)" | wc -l)
[ "$r13_c" -eq 2 ] && ! grep -q "1620 MHz under wgmma" "$T/r13_rep5.txt" \
    && "$FASIM" explain --profile fa3 --seqlen 8192 --headdim 128 --heads 32 --kv-heads 8 --dtype bf16 --causal --hw h200 2>&1 | grep -q "the GPU holds 1[0-9][0-9][0-9] MHz at that load (wgmma_clock_by_load" \
    && pass "reader13: the report's two clock notes give 1620 MHz as the full-load wgmma clock; explain prints the row's" \
    || fail "reader13: clock notes ($r13_c): $(oneline "$T/r13_rep5.txt" | grep -o '.\{60\}1620 MHz.\{80\}' | head -2)"

# reader13 #10: explain's units: bytes in KiB (73728 B = 72 KiB), TB/s, exp/s, TFLOP/s
"$FASIM" explain --seqlen 1024 --headdim 64 > "$T/r13_x10" 2>&1
grep -q "smem 72 KiB = 316.3 ns" "$T/r13_x10" && grep -q "its DRAM bytes / 3.94 TB/s and its exponentials / 4.12 T exp/s" "$T/r13_x10" \
    && grep -q "tensor 1.049 MFLOP / (653 TFLOP/s / 132 SMs)" "$T/r13_x10" \
    && ! grep -q " K B\| T B/s\| T per s\| T FLOP/s" "$T/r13_x10" \
    && ! grep -q " K B\| T B/s\| T per s" "$R13_ROOT/docs/tutorial.md" \
    && pass "reader13: explain's units (72 KiB, 3.94 TB/s, 4.12 T exp/s, 653 TFLOP/s), the tutorial re-recorded" \
    || fail "reader13: explain units: $(grep 'a tile:' "$T/r13_x10" | head -1)"

# reader13 #13: check --study under the minimum names the option, the value and the minimum
expect_msg -x "reader13: check --study --seqlen 8" "--study --seqlen 8 is under the minimum 16 (the study's grid of N and d starts at 16)" -- \
    check --study "$T/r13_study" --seqlen 8
expect_msg "reader13: check --study --headdim 8" "--study --headdim 8 is under the minimum 16" -- check --study "$T/r13_study" --headdim 8

# reader13b #23: check's last line states both halves of the pass rule
"$FASIM" check > "$T/r13_chk" 2>&1
[ "$(tail -1 "$T/r13_chk")" = "all passed (rel <= 1.0e-10 of max |O_ref| and lse <= 1.0e-10 x max(1, max |LSE_ref|))" ] \
    && "$FASIM" check --decode --kv-len 100 2>&1 | tail -1 | grep -q "and lse <= 1.0e-10 x max(1, max |LSE_ref|))$" \
    && pass "reader13: check's last line gives the rel and the lse rule" \
    || fail "reader13: check's last line: $(tail -1 "$T/r13_chk")"

# reader13b #8: standard's backward: 5 launches x 4 us = 20 us, rebuilt from the printed terms
# (38.71 ns + 465.7 ns + 20 us = 20.5 us); its N x N terms are P, dP, dS (no S in the backward)
"$FASIM" explain --algo standard --pass bwd --seqlen 256 --block-r 64 --block-c 64 > "$T/r13_x8" 2>&1
grep -q "backward: 5 kernels in turn" "$T/r13_x8" && grep -q "launches 5 x 4 us = 20 us; time = the kernels' 504.4 ns + the launches = 20.5 us" "$T/r13_x8" \
    && grep -q "^   time 20.5 us," "$T/r13_x8" && grep -q "the N_q\*N_k terms (P, dP, dS written and read)" "$T/r13_x8" \
    && grep -q "memory-bound kernels (P, dP, dS through DRAM)" "$T/r13_x8" \
    && pass "reader13: explain standard bwd: 5 launches printed, the time rebuilt, P/dP/dS named" \
    || fail "reader13: explain standard bwd: $(grep 'launches\|kernels in turn\|N_q\*N_k' "$T/r13_x8" | tr '\n' '|')"

# reader13b #13: compare's fp32 refusal suggests what compare takes: the row's dtype or profile columns
printf 'kernel,B,H,N,d,ms,dtype\nv3,4,16,4096,128,1,fp32\n' > "$T/r13_fp32.csv"
expect_msg -x "reader13: compare's fp32 message suggests the file's columns, not --dtype/--profile" \
    "$T/r13_fp32.csv:2: profile v3 is an mma.sync kernel (fp16/bf16 inputs), not one for fp32: give the row a dtype of fp16 or bf16, or a profile column (or kernel name) of an fp32 kernel, v1 or v2" -- \
    compare --measured "$T/r13_fp32.csv"
printf 'kernel,B,H,N,d,ms,dtype,profile\nv3,4,16,4096,128,1,fp32,v2\n' > "$T/r13_fp32b.csv"
"$FASIM" compare --measured "$T/r13_fp32b.csv" > "$T/r13_c13" 2>&1 && grep -q "^v3 .* v2 " "$T/r13_c13" \
    && pass "reader13: compare takes the suggested fix (profile column v2 on an fp32 row)" || fail "reader13: compare fp32 v2: $(head -3 "$T/r13_c13")"

# reader13b #14: io's profile column as wide as its longest entry: every column from tiles on
# starts under its header (sdpa_flash bwd, v5_bwd_atomic bwd)
for r13_p in sdpa_flash v5_bwd_atomic; do
    "$FASIM" io --profile $r13_p --pass bwd --batch 4 --heads 16 --seqlen 4096 --headdim 64 --dtype bf16 > "$T/r13_io14" 2>&1
    r13_a=$(awk '/^algo +profile/ { h = $0; getline; d = $0
        for (c = 1; c <= length(h); c++) if (substr(h, c, 1) != " " && substr(h, c + 1, 1) == " " && substr(d, c, 1) == " ") bad++
        print bad + 0; exit }' "$T/r13_io14")
    [ "$r13_a" = 0 ] && grep -q "^flash2    $r13_p bwd  " "$T/r13_io14" \
        && pass "reader13: io's time-model columns line up under $r13_p bwd" \
        || fail "reader13: io columns with $r13_p: $(grep -A1 '^algo  *profile' "$T/r13_io14" | tr '\n' '|')"
done

# reader13b #16: '+ tail' in both of io's tables (the tutorial's step 8: smem + tail in both)
"$FASIM" io --algo flash2 --seqlen 1 --seqlen-k 32768 --headdim 128 --heads 32 --kv-heads 8 > "$T/r13_io16" 2>&1
[ "$(grep -c '44.32 us *12.1 smem + tail$\|44.32 us    smem + tail$' "$T/r13_io16")" = 2 ] \
    && grep -q "explain prints both), in both tables; a grid or launch row drops it (JSON keeps it, time_model.waves_add_over_10pct)" "$T/r13_io16" \
    && pass "reader13: '+ tail' in both io tables; the legend says where it is dropped" \
    || fail "reader13: + tail: $(grep 'tail$' "$T/r13_io16" | tr '\n' '|')"

# reader13b #17: an occupancy tie names both limits (A100 fa2 d = 128: 65536 / (4 x 8192) = 2 and
# 164 KiB / 65 KiB = 2); the H200's stays registers
"$FASIM" io --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw a100 > "$T/r13_io17" 2>&1
"$FASIM" io --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200 > "$T/r13_io17b" 2>&1
grep -q "^flash2    fa2  .* 2 (registers, shared memory)  " "$T/r13_io17" && grep -q "^flash2    fa2  .* 2 (registers)  " "$T/r13_io17b" \
    && "$FASIM" io --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw a100 --format json | grep -q '"occupancy_limit": "registers, shared memory"' \
    && pass "reader13: an occupancy tie names registers and shared memory" \
    || fail "reader13: occupancy tie: $(grep '^flash2    fa2' "$T/r13_io17")"

# reader13b #18: plurals: compare's "1 row", the judges' "1 time", "1 K tile"; no "only" when the
# loop loads fewer tiles than hold a key
printf 'kernel,B,H,N,d,ms,dtype\nv3,4,16,4096,128,1,bf16\n' > "$T/r13_one.csv"
"$FASIM" compare --measured "$T/r13_one.csv" > "$T/r13_c18" 2>&1
grep -q "^time  *1 row:    0 within 15 %" "$T/r13_c18" && ! grep -q " 1 rows" "$T/r13_c18" \
    && pass "reader13: compare's summary says 1 row" || fail "reader13: compare 1 row: $(grep '^time' "$T/r13_c18")"
if cli_judge 07 "$R13_ROOT/docs/exercises/wrong/07.c" "$T/r13_j7" && cli_judge 05 "$R13_ROOT/docs/exercises/wrong/05.c" "$T/r13_j5"; then
    grep -q "partial outputs written 1 time and read 1 time; the optimum is once each" "$T/r13_j7" \
        && grep -q ": O written 1 time; the optimum is once" "$T/r13_j7" && ! grep -q " 1 times" "$T/r13_j7" \
        && grep -q "your loop loads 23 K tiles; 25 of the 28 tiles hold an allowed key" "$T/r13_j5" && ! grep -q "; only " "$T/r13_j5" \
        && grep -qF '`your loop loads 16 K tiles; 10 of the 16 tiles hold an allowed key`' "$R13_ROOT/docs/exercises/05-causal-skip/README.md" \
        && pass "reader13: the judges' plurals (1 time, K tiles) and 05's wording without 'only'" \
        || fail "reader13: judges' wording: $(grep 'time\|K tile' "$T/r13_j7" "$T/r13_j5" | head -3 | tr '\n' '|')"
else
    skip "reader13: the judges' plurals" "no libfasim.a beside $FASIM or no C compiler"
fi
