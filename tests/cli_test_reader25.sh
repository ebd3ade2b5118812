# cli_test_reader25.sh -- the twenty-fifth reader's findings (/work/notes/reader25_findings.md, items
# 1-4, 6 and 8): where a kernel profile does not run what its real kernel runs, a note under the
# table naming the source, the direction and the size.  Sourced by tests/cli_test.sh (FASIM, T,
# pass/fail from cli_lib.sh).
R25_ROOT="$(dirname "$0")/.."

# ---- 1: fa1 under one wave: FlashAttention-1 splits the queries (num_splits_heuristic_fwd), S = 23 on the H200 ----
"$FASIM" io --algo flash1 --seqlen 4096 --heads 16 --headdim 64 > "$T/r25_fa1" 2>&1; r25_rc=$?
[ "$r25_rc" = 0 ] \
    && grep -qF "note: flash1 (fa1): the forward's grid is B*H = 16 thread blocks, 0.0404 of a wave (132 SMs x 3); FlashAttention-1's launcher (csrc/flash_attn/src/fmha_fwd_launch_template.h, num_splits_heuristic_fwd) then launches grid (B, H, S = 23)" "$T/r25_fa1" \
    && grep -qF "the forward time above is up to ~23x too long" "$T/r25_fa1" \
    && pass "reader25 #1: fa1 at B*H = 16: the note names num_splits_heuristic_fwd and S = 23" \
    || fail "reader25 #1: fa1 split note (rc $r25_rc): $(grep -n '^note' "$T/r25_fa1" | head -3)"
# a full wave (B*H = 432 >= 132 x 3) gets no split note; the backward's sequence-parallel kernel at B*H = 16
"$FASIM" io --algo flash1 --seqlen 1024 --batch 27 --heads 16 --headdim 64 > "$T/r25_fa1w" 2>&1
"$FASIM" io --algo flash1 --pass bwd --seqlen 4096 --heads 16 --headdim 64 > "$T/r25_fa1b" 2>&1
! grep -q "num_splits_heuristic_fwd" "$T/r25_fa1w" \
    && grep -qF "FlashAttention-1 (fmha_bwd_launch_template.h, num_splits_heuristic_bwd) then runs its sequence-parallel kernel, one block per key block (grid B x H x N_k / B_c = 16)" "$T/r25_fa1b" \
    && pass "reader25 #1: no split note on a full wave; the backward's sequence-parallel note (16 key blocks)" \
    || fail "reader25 #1: fa1 wave/backward notes: $(grep -n 'num_splits' "$T/r25_fa1w" "$T/r25_fa1b" | head -3)"

# ---- 2: fa1's counts are Algorithm 1's; the kernel's fp32 o_tmp and one softmax_lse ----
grep -qF "note: flash1 (fa1): the counts are Algorithm 1's; FlashAttention-1's kernel (fmha_api.cpp, fmha_fprop_kernel_1xN.h) keeps the running O in an fp32 o_tmp (4 B an element: 2x the O re-reads and re-writes, O counted 128 MiB read + 136 MiB written at 2 B), carries one fp32 softmax_lse a row for l and m (16.5 MiB counted: about half of it)" "$T/r25_fa1" \
    && pass "reader25 #2: fa1 note: fp32 o_tmp (2x at fp16), O 128 MiB / 136 MiB, l and m 16.5 MiB" \
    || fail "reader25 #2: fa1 o_tmp note: $(grep -n 'o_tmp' "$T/r25_fa1" | head -2)"

# ---- 3: fa3 / cudnn at decode: no PackGQA, no split; fa2's swapped split row has no such note ----
for r25_p in fa3 cudnn; do
    "$FASIM" io --profile $r25_p --algo flash2 --seqlen 1 --seqlen-k 32768 --heads 32 --kv-heads 8 --headdim 128 --hw h100 --dtype bf16 > "$T/r25_dec_$r25_p" 2>&1
done
"$FASIM" io --profile fa2 --algo flash2 --seqlen 1 --seqlen-k 32768 --heads 32 --kv-heads 8 --headdim 128 --hw h100 --dtype bf16 > "$T/r25_dec_fa2" 2>&1
grep -qF "note: flash2 (fa3): N_q = 1 fills 1 of B_r = 128 rows and the grid is 32 thread blocks; FlashAttention-3 (hopper/flash_api.cpp) picks num_splits by its num_splits_heuristic and packs GQA (get_pack_gqa, forced whenever num_splits > 1), so each K,V head's keys are read by one block of its H/H_kv = 4 query heads' rows, not 4 times: K, V loads 4x the kernel's" "$T/r25_dec_fa3" \
    && grep -q '^flash2    fa3 .* 418.7 us' "$T/r25_dec_fa3" \
    && grep -qF "the cudnn profile does neither (cuDNN's own decode path, closed source, is not modelled)" "$T/r25_dec_cudnn" \
    && ! grep -q "get_pack_gqa" "$T/r25_dec_fa2" \
    && pass "reader25 #3: fa3 and cudnn at N_q = 1, H/H_kv = 4: the PackGQA / split note (418.7 us row); none on fa2" \
    || fail "reader25 #3: decode notes: $(grep -n 'pack' "$T/r25_dec_fa3" "$T/r25_dec_cudnn" "$T/r25_dec_fa2" | head -3)"

# ---- 4: DRAM est beyond N = 16k: llama-3-8b causal, fa3 on the H100 ----
for r25_n in 16384 65536; do
    "$FASIM" io --model "$R25_ROOT/analysis/models/llama-3-8b.json" --causal --profile fa3 --algo flash2 --hw h100 --seqlen $r25_n > "$T/r25_long_$r25_n" 2>&1
done
! grep -q "no measurement checks it beyond N = 16384" "$T/r25_long_16384" \
    && grep -qF "note: flash2 (fa3): DRAM est 157.4 GiB is compulsory 1.258 GiB + 156.2 GiB of re-reads the rule charges" "$T/r25_long_65536" \
    && grep -qF "DRAM est and the DRAM bound are likely too high" "$T/r25_long_65536" \
    && pass "reader25 #4: N = 64k: DRAM est 157.4 GiB = 1.258 GiB compulsory + 156.2 GiB re-reads, flagged; N = 16k not" \
    || fail "reader25 #4: long-N DRAM note: $(grep -n 'DRAM est' "$T/r25_long_65536" | head -2)"

# ---- 6: FlashAttention-2's GQA backward: dk_expanded, dv_expanded, (3 g - 1) x K, V bytes more ----
"$FASIM" io --pass bwd --heads 32 --kv-heads 8 --seqlen 4096 --headdim 128 --algo flash2 --dtype bf16 > "$T/r25_gqab" 2>&1
"$FASIM" io --pass bwd --heads 32 --seqlen 4096 --headdim 128 --algo flash2 --dtype bf16 > "$T/r25_mhab" 2>&1
grep -qF "note: flash2 (fa2): H = 32 > H_kv = 8: FlashAttention-2's backward (flash_api.cpp, mha_bwd) runs one block per query head on its kv head's K_j, V_j and writes dk_expanded, dv_expanded (B, N_k, H, d), which at::sum_out reduces to dK, dV" "$T/r25_gqab" \
    && grep -qF "the real backward reads K, V 4x and moves (3 x 4 - 1) x 16 MiB = 176 MiB more than counted" "$T/r25_gqab" \
    && ! grep -q "dk_expanded" "$T/r25_mhab" \
    && pass "reader25 #6: fa2 GQA backward note: dk_expanded, 176 MiB more at g = 4; none at H = H_kv" \
    || fail "reader25 #6: GQA backward note: $(grep -n 'expanded' "$T/r25_gqab" | head -2)"

# ---- 8: MLA's latent shape at decode: V inside K's rows ----
"$FASIM" io --decode --kv-len 4096 --heads 128 --kv-heads 1 --headdim 576 --headdim-v 512 --gqa packed > "$T/r25_mla" 2>&1
"$FASIM" io --decode --kv-len 4096 --heads 32 --kv-heads 8 --headdim 128 > "$T/r25_nomla" 2>&1
grep -qF "note: d = 576, d_v = 512 is MLA's latent shape: in its cache (FlashMLA, flash_mla_with_kvcache) V is the first 512 columns of each 576-wide K row, so a block reads a token's 1152 B once, where fasim counts K and V apart, (576 + 512) e = 2176 B: the K, V bytes above are 1088 / 576 = 1.89x FlashMLA's for the same row blocks (FlashMLA also runs 64-row blocks: ceil(128 / 64) = 2 a kv head)" "$T/r25_mla" \
    && ! grep -q "latent shape" "$T/r25_nomla" \
    && tr '\n' ' ' < "$R25_ROOT/docs/inference.md" | grep -qF "the K, V bytes counted here are 1088 / 576 = 1.89x FlashMLA's for the same row blocks, and FlashMLA runs 64-row blocks (2 for 128 heads, not 4)" \
    && pass "reader25 #8: the MLA note (1152 B a token against 2176 B, 1.89x, 2 row blocks) and docs/inference.md" \
    || fail "reader25 #8: MLA note: $(grep -n 'latent' "$T/r25_mla" | head -2)"

# ---- the figures docs/time-model.md quotes for these notes (section 2 "What the profiles leave out", section 7) ----
r25_tm=$(tr '\n' ' ' < "$R25_ROOT/docs/time-model.md" | tr -s ' ')
echo "$r25_tm" | grep -qF "(B H = 16 at N = 4096: S = 23 on the H200)" \
    && echo "$r25_tm" | grep -qF "512 MiB in 418.7 us (cudnn 418.6 us) on the H100, against the \`fa2\` profile's swapped, split 129.1 MiB in 57.23 us" \
    && echo "$r25_tm" | grep -qF "176 MiB at B = 1, H = 32, H_kv = 8, N = 4096, d = 128, bf16" \
    && echo "$r25_tm" | grep -qF "DRAM est of 322 MiB at N = 16k, 14.66 GiB at 32k and 157.4 GiB at 64k" \
    && grep -q '^flash2 .* 129.1 MiB' "$T/r25_dec_fa2" && grep -q '^flash2    fa2 .* 57.23 us' "$T/r25_dec_fa2" \
    && grep -q '^flash2    fa3 .* 157.4 GiB' "$T/r25_long_65536" && grep -q '^flash2    fa3 .* 322 MiB' "$T/r25_long_16384" \
    && pass "reader25: docs/time-model.md's figures for the notes match the tool (S = 23, 418.7 us vs 57.23 us, 176 MiB, 322 MiB -> 157.4 GiB)" \
    || fail "reader25: docs/time-model.md figures for the reader25 notes"

# ---- 1: the report's grid example no longer presents one block per head as FlashAttention-1's behaviour; the
#      tutorial's step 2 prose quotes the note's S = 29 ----
# (in the whole suite reader24 has run this report already: its output is reused)
if [ -s "$T/r24_rep" ]; then cp "$T/r24_rep" "$T/r25_rep"; r25_rc=0; else
    mkdir -p "$T/r25_rep_dir"
    "$FASIM" report --no-plots --hw h200 --model "$R25_ROOT/analysis/models/llama-3-8b.json" --out-dir "$T/r25_rep_dir" > "$T/r25_rep" 2>&1; r25_rc=$?
fi
[ "$r25_rc" = 0 ] \
    && oneline "$T/r25_rep" | grep -qF "meta-llama/Meta-Llama-3-8B's 32 heads use 32 of the H200-SXM's 132 SMs; FlashAttention-1's own launcher splits the queries over more blocks on such a grid, num_splits_heuristic_fwd, which the profile does not model: fasim io says so)" \
    && grep -qF "then launches grid (B, H, S = 29)" "$R25_ROOT/docs/tutorial.md" \
    && tr '\n' ' ' < "$R25_ROOT/docs/tutorial.md" | grep -qF "FlashAttention-1's own launcher would split this head's queries over S = 29 blocks" \
    && pass "reader25 #1: report's fa1 grid example names FlashAttention-1's query split; tutorial step 2 quotes S = 29" \
    || fail "reader25 #1: report / tutorial fa1 split text (rc $r25_rc): $(grep -n 'launcher' "$T/r25_rep" | head -2)"

# ---- 2: io-model.md section 3 says the counts are Algorithm 1's, not the kernel's o_tmp ----
tr '\n' ' ' < "$R25_ROOT/docs/io-model.md" | tr -s ' ' | grep -qF "keeps the running O in an fp32 \`o_tmp\` when it loops over key blocks, so its O re-reads and re-writes are 4 B an element (2x the counts above in fp16)" \
    && pass "reader25 #2: io-model.md section 3 names the kernel's fp32 o_tmp and softmax_lse" \
    || fail "reader25 #2: io-model.md section 3 has no o_tmp paragraph"
