# cli_test_reader18.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg; $T, $FASIM).
# The eighteenth fresh reading: FlashAttention-3's own tiles at d = 96; an overflow message that
# names the user's head count, not a per-group one; the FP8 forward's TFLOP/s range as its rounds give it.
R18_ROOT=$(dirname "$0")/..

# ---- 1: fa3 at d = 96 (hopper/tile_size.h tile_size_fwd_sm90 `headdim <= 96`: 192 x 144, 192 x 128
# when flash_api.cpp's is_local; 3 MMA warpgroups + producer = 16 warps; flash_bwd_launch_template.h
# run_mha_bwd_hdim96: 64 x 128, 2 MMA warpgroups + producer = 12 warps) ----
r18_tiles() { # extra io flags -> "BRxBC warps" of fa3's kernel at d = 96 on the H200
    "$FASIM" io --hw h200 --profile fa3 --headdim 96 --heads 16 --dtype bf16 --format json "$@" 2>&1 \
        | jq -r '.[0].time_model.kernels[0] | "\(.block_r)x\(.block_c) \(.warps)"' 2>/dev/null
}
r18_t=""
for c in "--seqlen 4096=192x144 16" "--seqlen 4096 --causal=192x144 16" \
         "--seqlen 4096 --causal --window 2046,0=192x128 16" "--seqlen 4096 --window 100,100=192x128 16" \
         "--seqlen 2047 --causal --window 2046,0=192x144 16" "--seqlen 4096 --pass bwd=64x128 12" \
         "--seqlen 4096 --pass bwd --causal=64x128 12" "--seqlen 4096 --headdim 64=192x128 16" \
         "--seqlen 4096 --headdim 128=128x176 12"; do
    want=${c#*=}
    got=$(r18_tiles ${c%%=*})
    [ "$got" = "$want" ] || r18_t="$r18_t [${c%%=*}: $got, want $want]"
done
[ -z "$r18_t" ] && pass "reader18: fa3 at d = 96 runs FlashAttention-3's tiles: 192x144 (192x128 with a sliding window shorter than N), backward 64x128 (9 cases)" \
    || fail "reader18: fa3 d = 96 tiles:$r18_t"

"$FASIM" report --no-plots --hw h200 --model "$R18_ROOT/analysis/models/gpt-neox-20b.json" \
    --model "$R18_ROOT/analysis/models/phi-3-mini-4k.json" --out-dir "$T/r18_rep" > "$T/r18_rep.out" 2>&1
r18_k=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
                 $h["profile"] == "fa3" { printf "%s %sx%s %s;", $h["model"], $h["block_r"], $h["block_c"], $h["warps"] }' "$T/r18_rep/kernels.csv")
[ "$r18_k" = "gpt-neox-20b 192x144 16;phi-3-mini-4k 192x128 16;" ] \
    && grep -Eq "^ +fa3 +192x144 +16 " "$T/r18_rep.out" && grep -Eq "^ +fa3 +192x128 +16 " "$T/r18_rep.out" \
    && pass "reader18: the report's kernels tables give fa3 192x144 for GPT-NeoX-20B and 192x128 for Phi-3-mini's window, 16 warps" \
    || fail "reader18: report fa3 rows at d = 96: '$r18_k'"

# ---- 2: an overflow in the count of one K,V head's group names the model's H (32), not H / H_kv (4), and (reader24
#      #5c) the largest N that fits at the model's B, H, d, as io does ----
expect_msg -x "reader18: report --seqlen 2^31 - 1 on Llama-3-8B: the overflow names H = 32 only" \
    "model meta-llama/Meta-Llama-3-8B, its table's standard row on A100-SXM4-80GB (B = 1, H = 32, H_kv = 8, N = 2147483647, d = 128, d_v = 128): standard's closed-form HBM bytes of tensor K exceed 64 bits for B = 1, H = 32, N_q = 2147483647, N_k = 2147483647, d = 128: at these B, H, d they fit up to N = 33554431 (use a smaller --seqlen, --batch or --heads)" \
    -- report --seqlen 2147483647 --model "$R18_ROOT/analysis/models/llama-3-8b.json" --out-dir "$T/r18_ovf" --no-plots --quiet
[ ! -e "$T/r18_ovf" ] && pass "reader18: the refused report writes no directory" || fail "reader18: the refused report wrote $T/r18_ovf"
expect_msg "reader18: io's count of a GQA group that overflows names --heads 32" \
    "exceed 64 bits for B = 1, H = 32, N_q = 2147483647" \
    -- io --profile fa2 --hw h200 --heads 32 --kv-heads 8 --seqlen 2147483647 --headdim 128

# ---- 3: the FP8 forward's range without a mask at N >= 4k: README, docs/time-model.md and results.md's
# table of the default kernel (ROWS + OVH) give the means of s10_fp8_rounds.csv's six rounds ----
r18_fp8=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
                   $h["schedule"] == "rows_ovh" && $h["kernel"] == "v5_fp8" && $h["causal"] == 0 { s[$h["N_q"]] += $h["tflops"]; c[$h["N_q"]]++ }
                   END { printf "%.0f %.0f %.0f", s[4096] / c[4096], s[8192] / c[8192], s[16384] / c[16384] }' \
                   "$R18_ROOT/analysis/measured/h200/s10_fp8_rounds.csv")
set -- $r18_fp8
[ "$r18_fp8" = "797 825 801" ] && oneline "$R18_ROOT/README.md" | grep -qF "FP8 forward (block scales, optional Hadamard transform) at $1–$2 TFLOP/s" \
    && oneline "$R18_ROOT/docs/time-model.md" | grep -qF "give $1-$2 TFLOP/s without a mask at N >= 4k" \
    && grep -qF "| 0 | 4k | **$1** | 655 | **1.218** |" "$R18_ROOT/docs/results.md" \
    && grep -qF "| 0 | 8k | **$2** | 661 | **1.249** |" "$R18_ROOT/docs/results.md" \
    && grep -qF "| 0 | 16k | **$3** | 640 | **1.252** |" "$R18_ROOT/docs/results.md" \
    && pass "reader18: the FP8 forward's 797-825 TFLOP/s (README, time-model.md) is results.md's table and s10_fp8_rounds.csv's means" \
    || fail "reader18: FP8 range: the rounds give '$r18_fp8'"
