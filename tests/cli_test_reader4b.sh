# cli_test_reader4b.sh -- issue 18, the fourth fresh reader (/work/notes/reader4_findings.md):
# the findings on model configs read as Transformers reads them, the tiles of the published
# kernels, and the report's tables saying what they time.  Each check names its finding (r4-N).
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg, $FASIM, $T).

R4_ROOT="$(dirname "$0")/.."
R4_MODELS="$R4_ROOT/analysis/models"

# ---- r4-3: MLA (DeepSeek-V2/V3): d_qk = qk_nope + qk_rope = 192, d_v = v_head_dim = 128 (their
# published config.json files), in io as in the report, and V/O counted at d_v
for m in deepseek-v2 deepseek-v3; do
    r4_dv=$("$FASIM" io --model "$R4_MODELS/$m.json" --seqlen 1024 --algo flash2 --format json 2>&1 | jq -r '.[0] | "\(.d) \(.d_v) \(.tensors.O.write_bytes)"')
    # O written once: B H N d_v e = 1 x 128 x 1024 x 128 x 2
    [ "$r4_dv" = "192 128 33554432" ] && "$FASIM" explain --model "$R4_MODELS/$m.json" --seqlen 1024 --algo flash2 2>&1 | grep -q " d=192 d_v=128 " \
        && pass "r4-3: io and explain --model $m take d = 192, d_v = 128 from the config" \
        || fail "r4-3: $m: d, d_v, O bytes = $r4_dv (expected 192 128 33554432)"
done
r4_dv=$("$FASIM" io --model "$R4_MODELS/deepseek-v2.json" --seqlen 1024 --headdim 160 --algo flash2 --format json 2>&1 | jq -r '.[0] | "\(.d) \(.d_v)"')
[ "$r4_dv" = "160 160" ] && pass "r4-3: --headdim on an MLA model still moves d_v with it" || fail "r4-3: --headdim 160 gave d, d_v = $r4_dv"

# ---- r4-4: the JSON carries the scale and softcap used; the table header names a scale that
# is not 1/sqrt(d)
r4_sc=$("$FASIM" io --scale 0.5 --softcap 30 --algo flash2 --format json 2>&1 | jq -c '.[0] | [.scale, .softcap]')
r4_gm=$("$FASIM" io --model "$R4_MODELS/gemma-2-27b.json" --seqlen 1024 --algo flash2 --format json 2>&1 | jq -c '.[0] | [.scale, .softcap]')
r4_df=$("$FASIM" io --headdim 64 --algo flash2 --format json 2>&1 | jq -c '.[0] | [.scale, .softcap]')
r4_dc=$("$FASIM" io --decode --kv-len 1024 --scale 0.25 --format json 2>&1 | jq -c '.[0] | [.scale, .softcap]')
# Gemma-2-27B: query_pre_attn_scalar 144 -> 1/12, attn_logit_softcapping 50
[ "$r4_sc" = "[0.5,30]" ] && [ "$r4_gm" = "[0.08333333333,50]" ] && [ "$r4_df" = "[0.125,null]" ] && [ "$r4_dc" = "[0.25,null]" ] \
    && "$FASIM" io --model "$R4_MODELS/gemma-2-27b.json" --seqlen 1024 --algo flash2 2>&1 | head -1 | grep -q "softcap 50, scale 0.0833333 (not 1/sqrt(d))" \
    && ! "$FASIM" io --algo flash2 2>&1 | head -1 | grep -q "scale" \
    && pass "r4-4: JSON scale/softcap are the ones used (--scale/--softcap, Gemma-2's 1/12 and 50, default 1/8), the header names a non-default scale" \
    || fail "r4-4: JSON scale/softcap: flags $r4_sc, gemma $r4_gm, default $r4_df, decode $r4_dc"
