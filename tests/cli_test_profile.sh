# cli_test_profile.sh -- kernel profiles and the time model on the command line (docs/time-model.md):
# bad --profile values, profiles a shape or GPU cannot run, the fallback of the default profiles
# with its note, compare's profile and pass columns, the hardware clocks.  Sourced by cli_test.sh
# (tests/cli_lib.sh: pass, fail, expect_msg, hw_dir_save/hw_dir_restore; $T, $FASIM).
expect_msg "--profile unknown names the known ones" "unknown kernel profile 'fa9' (known: paper, fa2" -- io --profile fa9
expect_msg "--profile empty" "unknown kernel profile ''" -- io --profile=
expect_msg "--profile fa2 with --algo flash1" "--profile fa2 is a flash2 kernel: leave out --algo or give --algo flash2" -- io --profile fa2 --algo flash1
expect_msg "--profile v4 --pass bwd: a forward-only kernel" "profile v4 has no backward kernel (it is a forward-only kernel)" -- io --profile v4 --pass bwd
expect_msg "--profile fa3 on the A100" "profile fa3 runs on sm_90 (Hopper: wgmma); the hardware profile is sm_80" -- io --profile fa3 --hw a100
expect_msg "--profile fa2 --dtype fp32" "profile fa2 is a mma.sync kernel (fp16/bf16 inputs), not one for fp32" -- io --profile fa2 --dtype fp32
expect_msg "--profile fa1 --headdim 256: no tile" "profile fa1 has no fwd tile for head dim d = 256, d_v = 256 (its kernels take d <= 128)" -- io --profile fa1 --headdim 256
expect_msg "--profile with --decode" "--profile times the training kernels; --decode and --cu-seqlens have their own model" -- io --decode --kv-len 4096 --profile fa2
# the default profiles fall back to the paper's model with a note, and the other algorithms still print
"$FASIM" io --headdim 256 >"$T/out" 2>"$T/err" && grep -q "^note: flash1: profile fa1 has no fwd tile for head dim d = 256" "$T/out" \
    && grep -q "^flash2    fa2" "$T/out" && pass "d = 256: flash1 counted in the paper's model with a note, flash2 timed" \
    || fail "d = 256 fallback: $(cat "$T/err" "$T/out" | head -20)"
"$FASIM" io --dtype fp32 --seqlen 2048 --format csv >"$T/out" 2>"$T/err" \
    && [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "profile") p = i; next } { printf "%s ", $p }' "$T/out")" = "eager paper paper " ] \
    && pass "fp32: standard timed as eager, flash1/flash2 in the paper's model" || fail "fp32 profiles: $(head -3 "$T/out") $(cat "$T/err")"
# the FlashAttention-2 tiles (its CUDA tile table) by head dim, and the split-KV rule on a small grid
[ "$("$FASIM" io --algo flash2 --seqlen 8192 --batch 2 --heads 16 --headdim 64 --format csv | tail -1 | cut -d, -f14,15)" = "128,128" ] \
    && pass "fa2 tiles at d = 64: 128 x 128" || fail "fa2 tiles d = 64"
[ "$("$FASIM" io --algo flash2 --seqlen 8192 --batch 2 --heads 16 --headdim 128 --format csv | tail -1 | cut -d, -f14,15)" = "128,64" ] \
    && pass "fa2 tiles at d = 128: 128 x 64" || fail "fa2 tiles d = 128"
"$FASIM" io --algo flash2 --seqlen 4096 --headdim 128 --dtype bf16 | grep -q "splits the keys 4 ways" \
    && pass "fa2 on one head of N = 4096: split-KV, 4 ways" || fail "fa2 split-KV note"
# TFLOP/s with a window: from the visited tiles, never above the tensor pipe
v=$("$FASIM" io --seqlen 16384 --batch 4 --heads 16 --algo flash2 --window 1024,0 --dtype bf16 --format csv \
    | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "model_tflops") c = i; next } { print $c }')
awk -v t="$v" 'BEGIN { exit !(t > 0 && t < 653) }' && pass "window: TFLOP/s $v below the mma.sync rate" || fail "window TFLOP/s: $v"
# compare: the profile and pass columns
printf 'kernel,B,H,N,d,profile,pass,ms\nx,1,2,1024,64,fa1,fwd,1.0\n' > "$T/cp1.csv"
"$FASIM" compare --measured "$T/cp1.csv" --format csv >"$T/out" 2>"$T/err" && [ "$(tail -1 "$T/out" | cut -d, -f11,21,22)" = "flash1,fa1,fwd" ] \
    && pass "compare: profile fa1 without algo runs flash1" || fail "compare profile fa1: $(cat "$T/err" "$T/out")"
printf 'kernel,B,H,N,d,profile,pass,ms\nx,1,2,1024,64,fa2,fwdbwd,1.0\n' > "$T/cp2.csv"
expect_msg "compare: pass fwdbwd refused" "cp2.csv:2: pass 'fwdbwd' is not fwd or bwd" -- compare --measured "$T/cp2.csv"
printf 'kernel,B,H,N,d,profile,algo,ms\nx,1,2,1024,64,fa2,flash1,1.0\n' > "$T/cp3.csv"
expect_msg "compare: profile and algo disagree" "cp3.csv:2: profile fa2 is a flash2 kernel, the row's algo is flash1" -- compare --measured "$T/cp3.csv"
printf 'kernel,B,H,N,d,profile,ms\nx,1,2,1024,64,nope,1.0\n' > "$T/cp4.csv"
expect_msg "compare: unknown profile names the row" "cp4.csv:2: unknown kernel profile 'nope'" -- compare --measured "$T/cp4.csv"
# hardware profiles: a tensor pipe's clock above clock_hz; a profile without pipe rates says so
mkdir -p "$T/hwp"
cp "$(dirname "$0")"/../sim/hw/*.hw "$T/hwp/"
sed 's/^mma_sync_clock_hz = .*/mma_sync_clock_hz = 5e9/' "$(dirname "$0")/../sim/hw/h200-sxm.hw" > "$T/hwp/h200-sxm.hw"
hw_dir_save
export FASIM_HW_DIR="$T/hwp"
expect_msg "hw: a tensor clock above clock_hz refused" "mma_sync_clock_hz = 5e+09 Hz exceeds clock_hz" -- io
hw_dir_restore
grep -v '^exp_per_s' "$(dirname "$0")/../sim/hw/h200-sxm.hw" > "$T/hwp/h200-sxm.hw"
FASIM_HW_DIR="$T/hwp" "$FASIM" io --algo flash2 >"$T/out" 2>"$T/err" && grep -q "note: flash2: hardware profile h200 has no exp_per_s" "$T/out" \
    && pass "hw without exp_per_s: the note names the key" || fail "hw without exp_per_s: $(cat "$T/out" "$T/err")"
rm -rf "$T/hwp"
# explain: the time derivation uses the same tiles as fasim io
"$FASIM" explain --seqlen 4096 --algo flash1 | grep -q "B_r = 16, B_c = 256 (the fa1 profile's tile table)" \
    && pass "explain: the fa1 profile's tiles, as io" || fail "explain tiles"
expect_msg "explain: --profile fa3 on the A100 refused, saying why" "profile fa3 runs on sm_90 (Hopper: wgmma)" \
    -- explain --profile fa3 --hw a100 --algo flash2
"$FASIM" explain --hw a100 --algo flash2 --dtype fp32 | grep -q "profile fa2 cannot be timed here: .*mma.sync" \
    && pass "explain: the algorithm's own kernel that cannot run fp32 says why in a line" || fail "explain fa2 fp32 note"
# --blocks fit with a kernel profile: that kernel's tile table (FlashAttention-2 at d = 128: 128 x 64)
[ "$("$FASIM" io --profile fa2 --blocks fit --seqlen 8192 --batch 2 --heads 16 --headdim 128 --format csv | tail -1 | cut -d, -f14,15)" = "128,64" ] \
    && pass "--blocks fit --profile fa2: the kernel's tiles" || fail "--blocks fit --profile fa2"
# --l2 with the default profiles' backward tiles: the replay counts the bytes whatever the placement
"$FASIM" io --l2 --pass bwd --seqlen 1024 --algo flash2 >"$T/out" 2>"$T/err" && grep -q "L2 model" "$T/out" \
    && pass "--l2 --pass bwd with the fa2 tiles (128 x 128 beyond M in the paper's placement)" || fail "--l2 bwd: $(cat "$T/err")"
