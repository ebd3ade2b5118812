# cli_test_report_models.sh -- issue 18's "Must show": `fasim report --model FILE` on each shipped
# config prints the head dims, kv heads, window and scale that Transformers uses, read off the
# published config.json (values: the configs' model cards on the Hub; the loader's rules:
# docs/conventions.md, "Model configs"; tests/test_model.c checks the same values in fa_model).
# One line a config: file | fragments every header line of its tables must hold ... ; a fragment
# "!TEXT" must be in none; "2:TEXT" in the second layer type's header (models of two types).
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail; $T, $FASIM).

rm_dir="$(dirname "$0")/../analysis/models"
rm_seen=0
while IFS='|' read -r rm_file rm_want; do
    case "$rm_file" in ''|'#'*) continue;; esac
    rm_seen=$((rm_seen + 1))
    if ! "$FASIM" report --model "$rm_dir/$rm_file" --no-plots --out-dir "$T/rm_out" > "$T/rm_txt" 2>"$T/err"; then
        fail "report --model $rm_file: $(head -c 300 "$T/err")"
        continue
    fi
    # the header of each layer type's table: "== NAME: H = ..." (not the model pass's summary)
    grep '^== .*: H = ' "$T/rm_txt" > "$T/rm_hdr"
    rm_bad=""
    rm_n=$(wc -l < "$T/rm_hdr")
    # shellcheck disable=SC2086
    IFS='|'; set -f; for rm_w in $rm_want; do
        rm_w=$(echo "$rm_w" | sed 's/^ *//; s/ *$//')
        case "$rm_w" in
            '') ;;
            '!'*) grep -qF -- "${rm_w#!}" "$T/rm_hdr" && rm_bad="$rm_bad [has '${rm_w#!}']" ;;
            '2:'*) sed -n 2p "$T/rm_hdr" | grep -qF -- "${rm_w#2:}" || rm_bad="$rm_bad [type 2 lacks '${rm_w#2:}']" ;;
            *) [ "$(grep -cF -- "$rm_w" "$T/rm_hdr")" -eq "$rm_n" ] || rm_bad="$rm_bad [lacks '$rm_w']" ;;
        esac
    done; unset IFS; set +f
    [ -z "$rm_bad" ] && pass "report --model $rm_file: H, H_kv, d, window and scale as Transformers reads them" \
        || fail "report --model $rm_file:$rm_bad in: $(tr '\n' '|' < "$T/rm_hdr" | head -c 700)"
done <<'MODELS'
# Llama 2/3: 1/sqrt(head_dim); Llama-2-7b MHA (num_key_value_heads 32), fp16
llama-2-7b.json|== meta-llama/Llama-2-7b-hf: H = 32, H_kv = 32, d = 128, fp16, causal, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 4096;|(x 32 layers per model pass)
llama-3-8b.json|== meta-llama/Meta-Llama-3-8B: H = 32, H_kv = 8, d = 128, bf16, causal, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 8192;
# Mistral: every layer a window of 4096 keys (the query itself included); Nemo: head_dim 128, not 5120 / 32 = 160
mistral-7b.json|== mistralai/Mistral-7B-v0.1: H = 32, H_kv = 8, d = 128, bf16, causal + sliding window of 4096, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 32768;|(x 32 layers per model pass)
mistral-nemo-12b.json|== mistralai/Mistral-Nemo-Base-2407: H = 32, H_kv = 8, d = 128, bf16, causal, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 128000;|!sliding window
# Mixtral: sliding_window null, no window
mixtral-8x7b.json|== mistralai/Mixtral-8x7B-v0.1: H = 32, H_kv = 8, d = 128, bf16, causal, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 32768;|!sliding window
# Qwen2.5: sliding_window 131072 with use_sliding_window false: none; Qwen3: head_dim 128, not 1024 / 16
qwen2.5-7b.json|== Qwen/Qwen2.5-7B-Instruct: H = 28, H_kv = 4, d = 128, bf16, causal, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 32768;|!sliding window
qwen3-0.6b.json|== Qwen/Qwen3-0.6B: H = 16, H_kv = 8, d = 128, bf16, causal, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 40960;|!sliding window
# Gemma-2: layers alternate full and a window of 4096, scale 1/sqrt(query_pre_attn_scalar), softcap 50, published in fp32
gemma-2-9b.json|== google/gemma-2-9b: H = 16, H_kv = 8, d = 256, bf16 (the model is published in fp32;|scale = 0.0625 (1/sqrt(query_pre_attn_scalar = 256)), softcap 50, B = 1, N = 8192;|(x 21 of 42 layers per model pass)|2:causal + sliding window of 4096, scale
gemma-2-27b.json|== google/gemma-2-27b: H = 32, H_kv = 16, d = 128, bf16 (the model is published in fp32;|scale = 0.0833333 (1/sqrt(query_pre_attn_scalar = 144)), softcap 50, B = 1, N = 8192;|(x 23 of 46 layers per model pass)|2:causal + sliding window of 4096, scale
# Gemma-3: five window layers (512) to one full, no softcap
gemma-3-1b.json|== google/gemma-3-1b-pt: H = 4, H_kv = 1, d = 256, bf16, causal|scale = 0.0625 (1/sqrt(query_pre_attn_scalar = 256)), B = 1, N = 32768;|!softcap|2:causal + sliding window of 512, scale|2:(x 22 of 26 layers per model pass)
# Phi-3-mini-4k: a window of 2047 on every layer, d = 3072 / 32
phi-3-mini-4k.json|== microsoft/Phi-3-mini-4k-instruct: H = 32, H_kv = 32, d = 96, bf16, causal + sliding window of 2047, scale = 0.102062 (1/sqrt(d)), B = 1, N = 4096;
# GPT-2, GPT-NeoX, GPT-J: n_embd / n_head, no torch_dtype (GPT-J) -> fp16
gpt2-medium.json|== openai-community/gpt2-medium: H = 16, H_kv = 16, d = 64, fp16 (no torch_dtype in the config: fasim's default fp16; Transformers would load fp32), causal, scale = 0.125 (1/sqrt(d)), B = 1, N = 1024;
gpt-neox-20b.json|== EleutherAI/gpt-neox-20b: H = 64, H_kv = 64, d = 96, fp16, causal, scale = 0.102062 (1/sqrt(d)), B = 1, N = 2048;
gpt-j-6b.json|== EleutherAI/gpt-j-6b: H = 16, H_kv = 16, d = 256, fp16 (no torch_dtype in the config: fasim's default fp16; Transformers would load fp32), causal, scale = 0.0625 (1/sqrt(d)), B = 1, N = 2048;
# Falcon-7b: multi_query, one kv head; 4544 / 71 = 64
falcon-7b.json|== tiiuae/falcon-7b: H = 71, H_kv = 1, d = 64, bf16, causal, scale = 0.125 (1/sqrt(d)), B = 1, N = 2048;
# DeepSeek-V2/V3 (MLA): d_qk = 128 + 64, d_v = 128, H_kv = H; V3: scale (1/sqrt(192)) mscale^2, mscale =
# 0.1 mscale_all_dim ln(40) + 1 (Transformers' DeepseekV3Attention); V2: Transformers' DeepseekV2Attention
# takes qk_head_dim^-0.5 = 1/sqrt(192) with no mscale, DeepSeek's remote code and vLLM mscale^2 (0.707: 1.261)
deepseek-v2.json|== deepseek-ai/DeepSeek-V2: H = 128, H_kv = 128, d = 192, d_v = 128, bf16, causal, scale = 0.0721688 (1/sqrt(d); DeepSeek's reference code and vLLM use mscale^2 / sqrt(d) = 0.114721, yarn mscale = 1.261), B = 1, N = 163840;
deepseek-v3.json|== deepseek-ai/DeepSeek-V3: H = 128, H_kv = 128, d = 192, d_v = 128, bf16, causal, scale = 0.135234 (mscale^2 / sqrt(d), yarn mscale = 1.369), B = 1, N = 163840;
MODELS
rm_all=$(ls "$rm_dir"/*.json | wc -l)
[ "$rm_seen" -eq "$rm_all" ] && pass "report --model: every shipped config ($rm_all) has its line above" \
    || fail "report --model: $rm_seen lines for $rm_all shipped configs"
# DeepSeek's decoding form, on its own line
"$FASIM" report --model "$rm_dir/deepseek-v3.json" --no-plots --out-dir "$T/rm_out" 2>&1 \
    | grep -qF "decoding in the latent form (FlashMLA) has d = 576, d_v = 512, H_kv = 1" \
    && pass "report --model deepseek-v3: MLA's decoding dims (576, 512, one kv head)" || fail "report --model deepseek-v3: no MLA line"
