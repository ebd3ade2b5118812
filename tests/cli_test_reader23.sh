# cli_test_reader23.sh -- issue 18, the twenty-third reader's findings (/work/notes/reader23_findings.md):
# DeepSeek-V2's scale as Transformers reads it, overflow messages that name the total and the limit,
# the fp16 default's note, messages that name where a value came from, list repeats, hex sizes and
# folder options that create only their last component.  Sourced by tests/cli_test.sh (FASIM, T,
# pass/fail/expect_msg from cli_lib.sh).

# ---- 1: DeepSeek-V2: Transformers' DeepseekV2Attention takes qk_head_dim^-0.5 = 1/sqrt(192), no mscale;
#      DeepSeek's reference code and vLLM take mscale^2 / sqrt(d) = 0.114721 (mscale 1.261), named beside it ----
r23_m=analysis/models
[ -d "$r23_m" ] || r23_m="$(dirname "$0")/../analysis/models"
"$FASIM" io --model "$r23_m/deepseek-v2.json" --algo flash2 --format json > "$T/r23_j" 2> "$T/r23_e"; r23_rc=$?
"$FASIM" io --model "$r23_m/deepseek-v2.json" --algo flash2 > "$T/r23_t" 2>&1
"$FASIM" io --model "$r23_m/deepseek-v2.json" --algo flash2 --scale 0.114721 > "$T/r23_t2" 2>&1
"$FASIM" io --model "$r23_m/deepseek-v3.json" --algo flash2 > "$T/r23_t3" 2>&1
[ "$r23_rc" = 0 ] && [ "$(jq '.[0].scale' "$T/r23_j")" = "0.07216878365" ] \
    && grep -qF "note: --model $r23_m/deepseek-v2.json: scale 1/sqrt(d) = 0.0721688, as Transformers' DeepseekV2Attention uses; DeepSeek's reference code and vLLM use mscale^2 / sqrt(d) = 0.114721, yarn mscale = 1.261 (--scale to take that" "$T/r23_t" \
    && ! grep -q "scale 0.0721688 (not 1/sqrt(d))" "$T/r23_t" \
    && ! grep -q "DeepseekV2Attention" "$T/r23_t2" && grep -q "scale 0.114721 (not 1/sqrt(d))" "$T/r23_t2" \
    && grep -q "scale 0.135234 (not 1/sqrt(d))" "$T/r23_t3" && ! grep -q "reference code" "$T/r23_t3" \
    && pass "reader23 #1: io --model deepseek-v2: scale 0.0721688 (Transformers), the note names 0.114721 (DeepSeek's code, vLLM); V3 0.135234, no note" \
    || fail "reader23 #1: deepseek-v2 scale: rc $r23_rc, json $(jq '.[0].scale' "$T/r23_j"): $(grep -i scale "$T/r23_t" | head -3)"
