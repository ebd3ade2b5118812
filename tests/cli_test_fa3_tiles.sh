# cli_test_fa3_tiles.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail; $T, $FASIM).
# FlashAttention-3's forward tiles in FP8 and with a sliding window at every head dim, each read off
# Dao-AILab/flash-attention at 0251105a, hopper/tile_size.h tile_size_fwd_sm90:
#   element_size == 1 (FP8): d <= 64 {192, 160}; d <= 96 {192, 128}; d <= 128 {128, 224} (no paged
#   KV, no column-major V, no softcap); d <= 192 {128, 160}; else {128, is_local ? 64 : 128}
#   element_size == 2, is_local: d <= 64 {192, 128} (use_blockN_128); d <= 96 {192, 128}; d <= 128
#   {128, 128} (use_blockN_128 = is_causal || is_local); d <= 192 {128, 96}; else {128, 64}
# warps: kBlockM / 64 consumer warpgroups + 1 producer (192 -> 16, 128 -> 12).  Shared memory in
# FP8: Q (B_r d) + 2 stages of K (B_c d), V and V^T (B_c d_v each: TensorStorageTransposeV smem_v,
# smem_vt), 1 byte an element.
fa3t_tiles() { # extra io flags -> "BRxBC warps smem_per_block" of fa3's forward on the H100
    "$FASIM" io --hw h100 --profile fa3 --seqlen 8192 --heads 16 --format json "$@" 2>&1 \
        | jq -r '.[0].time_model.kernels[0] | "\(.block_r)x\(.block_c) \(.warps) \(.smem_per_block)"' 2>/dev/null
}
fa3t_bad=""
for c in "--dtype fp8_e4m3 --headdim 64=192x160 16 73728" "--dtype fp8_e4m3 --headdim 96=192x128 16 92160" \
         "--dtype fp8_e4m3 --headdim 128=128x224 12 188416" "--dtype fp8_e4m3 --headdim 128 --causal=128x224 12 188416" \
         "--dtype fp8_e4m3 --headdim 192=128x160 12 208896" "--dtype fp8_e4m3 --headdim 192 --headdim-v 128=128x160 12 167936" \
         "--dtype fp8_e4m3 --headdim 256=128x128 12 229376" "--dtype fp8_e4m3 --headdim 256 --causal=128x128 12 229376" \
         "--dtype fp8_e4m3 --headdim 256 --causal --window 511,0=128x64 12 131072" \
         "--dtype fp8_e4m3 --headdim 128 --window 100,100=128x224 12 188416" \
         "--dtype bf16 --headdim 64 --window 100,100=192x128 16 90112" "--dtype bf16 --headdim 96 --causal --window 511,0=192x128 16 135168" \
         "--dtype bf16 --headdim 128 --window 100,100=128x128 12 163840" "--dtype bf16 --headdim 128 --causal --window 511,0=128x128 12 163840" \
         "--dtype bf16 --headdim 192 --headdim-v 128 --causal --window 511,0=128x96 12 172032" \
         "--dtype bf16 --headdim 192 --causal --window 511,0=128x96 12 196608" \
         "--dtype bf16 --headdim 256 --causal --window 511,0=128x64 12 196608" \
         "--dtype bf16 --headdim 256 --window 8191,8191=128x80 12 229376" \
         "--dtype bf16 --headdim 64=192x128 16 90112" "--dtype bf16 --headdim 128=128x176 12 212992" \
         "--dtype bf16 --headdim 256=128x80 12 229376"; do
    want=${c#*=}
    got=$(fa3t_tiles ${c%%=*})
    [ "$got" = "$want" ] || fa3t_bad="$fa3t_bad [${c%%=*}: $got, want $want]"
done
[ -z "$fa3t_bad" ] && pass "fa3 tiles: FP8 and sliding-window forward tiles at d = 64/96/128/192/256 are 0251105a's tile_size.h (21 cases)" \
    || fail "fa3 tiles:$fa3t_bad"

# the backward at d = 128 with a window: 64 x 128 (flash_bwd_launch_template.h run_mha_bwd_hdim128 at
# 0251105a: Is_causal || Is_local), 80 x 128 without one
fa3t_b=$("$FASIM" io --hw h200 --profile fa3 --pass bwd --headdim 128 --seqlen 4096 --heads 16 --window 100,100 --format json 2>&1 \
    | jq -r '.[0].time_model.kernels[0] | "\(.block_r)x\(.block_c)"' 2>/dev/null)
[ "$fa3t_b" = "64x128" ] && pass "fa3 tiles: the d = 128 backward with a window runs 64x128" \
    || fail "fa3 tiles: d = 128 windowed backward: $fa3t_b"

# the row from another commit says so: d = 64 without a mask is 7f67966c's 192 x 128 (0251105a: 192 x 192)
"$FASIM" io --hw h100 --profile fa3 --seqlen 8192 --heads 16 --headdim 64 > "$T/fa3t_64.out" 2>&1
"$FASIM" io --hw h100 --profile fa3 --seqlen 8192 --heads 16 --headdim 64 --causal > "$T/fa3t_64c.out" 2>&1
"$FASIM" explain --hw h100 --profile fa3 --algo flash2 --seqlen 8192 --heads 16 --headdim 64 > "$T/fa3t_64e.out" 2>/dev/null
"$FASIM" explain --hw h100 --profile fa3 --algo flash2 --seqlen 8192 --heads 16 --headdim 128 > "$T/fa3t_128e.out" 2>/dev/null
grep -q "^note: flash2 (fa3): d = 64 without a mask runs 192 x 128, the tile of FlashAttention-3's release 7f67966c" "$T/fa3t_64.out" \
    && grep -q "which runs 192 x 192 here (since 5e39b100" "$T/fa3t_64.out" && ! grep -q "7f67966c" "$T/fa3t_64c.out" \
    && grep -q "^  note: flash2 (fa3): d = 64 without a mask runs 192 x 128" "$T/fa3t_64e.out" \
    && grep -q "the tiles FlashAttention-3 at 0251105a (but for the row the note above dates) runs" "$T/fa3t_64e.out" \
    && grep -q "the tiles FlashAttention-3 at 0251105a runs," "$T/fa3t_128e.out" && ! grep -q "note above" "$T/fa3t_128e.out" \
    && pass "fa3 tiles: io and explain date the d = 64 unmasked row (7f67966c) and explain names 0251105a" \
    || fail "fa3 tiles: the d = 64 row's note or explain's wording (see $T/fa3t_64*.out)"
