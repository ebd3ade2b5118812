# cli_test_r30.sh -- sourced by tests/cli_test.sh: reader 30's findings.
# 1, 6: model types whose attention fasim does not model (BLOOM's and MPT's ALiBi, Phi-3-small's
#    block-sparse layers) and Phi-3-small's keys are refused by name.
r30_cfg() { printf '{"model_type": "%s", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2, "torch_dtype": "bfloat16"%s}' "$1" "$2" > "$T/r30_$3.json"; }
r30_cfg bloom "" bloom
expect_msg "reader30 #1: BLOOM refused (ALiBi)" "model_type bloom (ALiBi biases in every layer (BloomModel builds them whatever the config says)) changes attention in a way fasim does not model" -- io --model "$T/r30_bloom.json"
r30_cfg mpt "" mpt
expect_msg "reader30 #1: MPT refused (ALiBi)" "model_type mpt (ALiBi biases in every layer" -- io --model "$T/r30_mpt.json"
r30_cfg phi3small '' p3s
expect_msg "reader30 #6: Phi-3-small refused" "model_type phi3small (block-sparse attention layers" -- io --model "$T/r30_p3s.json"
r30_cfg phi3 ', "blocksparse_block_size": 64' p3b
expect_msg "reader30 #6: blocksparse_block_size refused by name" "blocksparse_block_size (block-sparse attention layers (Phi-3-small)) changes attention" -- io --model "$T/r30_p3b.json"
r30_cfg "" ', "mup_use_scaling": true' mup
expect_msg "reader30 #6: mup_use_scaling refused by name" "mup_use_scaling (muP's softmax scale mup_attn_multiplier / d (Phi-3-small))" -- io --model "$T/r30_mup.json"
# 2: a key only other families read is ignored in a llama config, as Transformers does, and said
r30_cfg llama ', "sliding_window": 4096, "attn_logit_softcapping": 50.0, "query_pre_attn_scalar": 64, "max_position_embeddings": 8192' lsw
"$FASIM" io --model "$T/r30_lsw.json" --algo flash2 --causal > "$T/r30_lsw.out" 2>&1; r30_rc=$?
[ "$r30_rc" = 0 ] && grep -q "^forward pass | B=1 H=32 H_kv=32 N_q=8192 N_k=8192 d=128 d_v=128 bf16, causal (bottom-right) |" "$T/r30_lsw.out" \
    && grep -qF "sliding_window ignored: Transformers' llama attention does not read it; attn_logit_softcapping ignored: Transformers' llama attention does not read it; query_pre_attn_scalar ignored: Transformers' llama attention does not read it" "$T/r30_lsw.out" \
    && ! grep "^forward pass" "$T/r30_lsw.out" | grep -q "window\|softcap" \
    && pass "reader30 #2: llama's sliding_window, softcap and query_pre_attn_scalar ignored with a note (no window, 1/sqrt(d))" \
    || fail "reader30 #2: llama keys (rc $r30_rc): $(head -c 600 "$T/r30_lsw.out")"
"$FASIM" io --model "$T/r30_lsw.json" --algo flash2 --causal --format json > "$T/r30_lsw.json.out" 2>/dev/null
jq -e '.[0].scale == null or (.[0].scale - 0.08838834764831845 | fabs) < 1e-9' "$T/r30_lsw.json.out" > /dev/null 2>&1 \
    && pass "reader30 #2: llama's scale stays 1/sqrt(128)" || fail "reader30 #2: llama scale: $(head -c 300 "$T/r30_lsw.json.out")"
"$FASIM" report --model "$T/r30_lsw.json" --hw h200 --out-dir "$T/r30_rep" --no-plots > "$T/r30_rep.out" 2>&1
grep -q "^== llama: H = 32, H_kv = 32, d = 128, bf16, causal, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 8192;" "$T/r30_rep.out" \
    && grep -qF "   note: sliding_window ignored: Transformers' llama attention does not read it;" "$T/r30_rep.out" \
    && pass "reader30 #2: the report's header has no window and 1/sqrt(d), and says what it ignored" \
    || fail "reader30 #2: report header: $(grep -A1 '^== llama' "$T/r30_rep.out" | head -3)"
# the same keys where the family reads them still count (Gemma-2: window, softcap, scale)
r30_cfg gemma2 ', "sliding_window": 4096, "attn_logit_softcapping": 30.0, "query_pre_attn_scalar": 64, "max_position_embeddings": 8192, "head_dim": 128' g2
"$FASIM" report --model "$T/r30_g2.json" --hw h200 --out-dir "$T/r30_rep2" --no-plots > "$T/r30_rep2.out" 2>&1
grep -q "^== gemma2: .* causal + sliding window of 4096, scale = 0.125 (1/sqrt(query_pre_attn_scalar = 64)), softcap 30," "$T/r30_rep2.out" \
    && ! grep -q "ignored" "$T/r30_rep2.out" \
    && pass "reader30 #2: Gemma-2 still reads its window, softcap and query_pre_attn_scalar" \
    || fail "reader30 #2: gemma2 header: $(grep '^== gemma2' "$T/r30_rep2.out" | head -2)"
# 3, 9: rope types
r30_cfg llama ', "rope_scaling": {"rope_type": "foo", "factor": 2.0}' rfoo
expect_msg "reader30 #3: an unknown rope type refused, named" "rope_scaling type 'foo' is not one fasim knows (it reads default, linear, dynamic and llama3" -- io --model "$T/r30_rfoo.json"
r30_cfg llama ', "rope_scaling": {"rope_type": 3}' rnum
expect_msg "reader30 #3: a rope type not a string refused" "rope_scaling's rope_type is not a string" -- io --model "$T/r30_rnum.json"
r30_cfg llama ', "rope_scaling": {"rope_type": "llama3", "factor": 8.0}' rl3
expect_exit 0 "reader30 #3: llama3 rope still read" -- io --model "$T/r30_rl3.json" --algo flash2
printf '{"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "num_hidden_layers": 2, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "rope_scaling": {"type": "yarn", "factor": 40, "mscale": 1.0, "mscale_all_dim": 0.707}}' > "$T/r30_ms.json"
expect_msg "reader30 #9: DeepSeek yarn with mscale != mscale_all_dim: the message names the two" "rope_scaling yarn with mscale = 1 != mscale_all_dim = 0.707 multiplies the rotated q and k by mscale(mscale) / mscale(mscale_all_dim)" -- io --model "$T/r30_ms.json"
# 4: Gemma (v1) without head_dim: GemmaConfig's 256, not hidden / H = 192
printf '{"model_type": "gemma", "hidden_size": 3072, "num_attention_heads": 16, "num_hidden_layers": 2, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}' > "$T/r30_gem.json"
"$FASIM" io --model "$T/r30_gem.json" --algo flash2 2>&1 | grep -q "^forward pass | B=1 H=16 H_kv=16 N_q=8192 N_k=8192 d=256 d_v=256 bf16" \
    && pass "reader30 #4: Gemma v1 without head_dim: d = 256" || fail "reader30 #4: gemma d: $("$FASIM" io --model "$T/r30_gem.json" --algo flash2 2>&1 | head -1)"
# 5: no max_position_embeddings: the class's default, said (Gemma-3's text config: 131072)
printf '{"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "hidden_size": 5376, "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128, "num_hidden_layers": 62, "query_pre_attn_scalar": 168, "sliding_window": 1024}, "torch_dtype": "bfloat16"}' > "$T/r30_g3.json"
"$FASIM" io --model "$T/r30_g3.json" --algo flash2 > "$T/r30_g3.out" 2>&1
grep -q "N_q=131072 N_k=131072" "$T/r30_g3.out" \
    && grep -qF "N = 131072: the file has no max_position_embeddings, the default of Transformers' gemma3_text configuration class" "$T/r30_g3.out" \
    && pass "reader30 #5: Gemma-3 text config without max_position_embeddings: N = 131072, said" \
    || fail "reader30 #5: gemma3 N: $(head -c 400 "$T/r30_g3.out")"
printf '{"hidden_size": 4096, "num_attention_heads": 32}' > "$T/r30_nt.json"
"$FASIM" io --model "$T/r30_nt.json" --algo flash2 2>&1 | grep -qF "N = 2048: the file has no max_position_embeddings (fasim's default; --seqlen to count another)" \
    && pass "reader30 #5: a file of no model_type: N = 2048, fasim's default, said" || fail "reader30 #5: no model_type N note"
# 7: fabench's own CSV: v1 rows in a head's shape read as the kernel's 256-row slices
printf 'kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms,tflops,gbps,max_err,pass\nv1,4,16,16,4096,4096,128,0,fp32,25.395,1,1,0,PASS\nv1,4,16,16,4096,4096,128,1,fp32,20,1,1,0,PASS\n' > "$T/r30_v1.csv"
printf 'kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms\nv1,4,256,16,256,4096,128,0,fp32,25.395\n' > "$T/r30_v1s.csv"
"$FASIM" compare --measured "$T/r30_v1.csv" --hw h200 --format csv > "$T/r30_v1.out" 2>"$T/r30_v1.err"; r30_rc=$?
"$FASIM" compare --measured "$T/r30_v1s.csv" --hw h200 --format csv > "$T/r30_v1s.out" 2>&1
[ "$r30_rc" = 0 ] && [ "$(wc -l < "$T/r30_v1.out")" = 2 ] \
    && [ "$(tail -1 "$T/r30_v1.out" | cut -d, -f15-)" = "$(tail -1 "$T/r30_v1s.out" | cut -d, -f15-)" ] \
    && [ "$(tail -1 "$T/r30_v1.out" | cut -d, -f2-6)" = "4,256,16,256,4096" ] \
    && grep -qF "1 v1 row in a head's shape read as its slices (H x N_q / 256 heads of 256 queries sharing the head's K and V); 1 left out (causal" "$T/r30_v1.err" \
    && pass "reader30 #7: a fabench v1 row is predicted as the kernel's slices (= the sliced row), the causal one left out, said" \
    || fail "reader30 #7: v1 rows (rc $r30_rc): $(cat "$T/r30_v1.out" "$T/r30_v1.err" | head -c 600)"
# 8: FlashAttention-3 and kernels/ take no ALiBi and no dropout
expect_msg "reader30 #8: fa3 refuses --alibi" "profile fa3: the kernel takes no ALiBi slopes (FlashAttention-3's flash_attn_func has no alibi_slopes or dropout_p)" -- io --alibi --profile fa3 --algo flash2
expect_msg "reader30 #8: fa3 refuses --dropout" "profile fa3: the kernel takes no dropout" -- io --dropout 0.1 --profile fa3 --algo flash2
expect_msg "reader30 #8: v5 refuses --dropout" "profile v5: the kernel takes no dropout (kernels/ implement neither" -- io --dropout 0.1 --profile v5 --algo flash2 --headdim 128
expect_exit 0 "reader30 #8: fa2 still takes --alibi" -- io --alibi --profile fa2 --algo flash2
# 10: a model file's number quoted as written
printf '{"num_attention_heads": 32, "hidden_size": 4096, "max_position_embeddings": 99999999999}' > "$T/r30_big.json"
expect_msg "reader30 #10: the file's integer quoted in full" "max_position_embeddings = 99999999999 must be an integer in [1, 2147483647]" -- io --model "$T/r30_big.json"
# 11: a parent that exists but refuses a folder
if [ -d /proc ] && ! mkdir /proc/fasim_r30 2>/dev/null; then
    expect_msg "reader30 #11: /proc refuses a folder: said so" "cannot create the directory /proc/r30: its parent /proc exists, but refuses a new folder" -- report --out-dir /proc/r30 --hw h200
else skip "reader30 #11" "no /proc that refuses a folder"; fi
