# cli_test_reader21.sh -- issue 18, the twenty-first reader's findings that touch the command line:
# fasim's own kernels are timed only at the head dims they are built for, and the sweep's size
# limits name the size asked for.  Sourced by tests/cli_test.sh (FASIM, T, pass/fail from cli_lib.sh).

# ---- 4: kernels/ profiles refuse head dims other than 64 and 128 (fabench refuses them too) ----
r21_ok=1
for p in v0 v1 v3 v3_mt2 v4 v5 v5_bwd; do
    case $p in v0) r21_a="--algo standard" ;; v1) r21_a="--algo flash1" ;; v5_bwd) r21_a="--algo flash2 --pass bwd" ;; *) r21_a="--algo flash2" ;; esac
    # shellcheck disable=SC2086
    "$FASIM" io --profile $p $r21_a --headdim 96 --seqlen 4096 --dtype bf16 > "$T/r21_o" 2> "$T/r21_e"; rc=$?
    [ "$rc" = 2 ] && grep -q "profile $p is fasim's kernel kernels/attn_v.*, built for head dims d = d_v = 64 and 128 only, not d = 96, d_v = 96" "$T/r21_e" \
        && [ ! -s "$T/r21_o" ] || { r21_ok=0; echo "  $p: rc $rc: $(cat "$T/r21_e")"; }
done
"$FASIM" io --profile v3 --headdim 128 --algo flash2 --seqlen 4096 --dtype bf16 > "$T/r21_o" 2>&1 || r21_ok=0
printf 'kernel,B,H,N,d,ms\nv3,4,16,4096,100,1.5\n' > "$T/r21_m.csv"
"$FASIM" compare --measured "$T/r21_m.csv" --hw h200 > "$T/r21_c" 2> "$T/r21_ce"; r21_rc=$?
[ "$r21_ok" = 1 ] && [ "$r21_rc" = 2 ] && grep -q "r21_m.csv:2: profile v3 is fasim's kernel kernels/attn_v3_flash2_tc.cu, built for head dims d = d_v = 64 and 128 only, not d = 100" "$T/r21_ce" \
    && pass "reader21: kernels/ profiles (v0, v1, v3, v3_mt2, v4, v5, v5_bwd) refuse d = 96 (exit 2, nothing written), v3 times d = 128; compare names the d = 100 row" \
    || fail "reader21: kernels/ profiles at d = 96: ok $r21_ok, compare rc $r21_rc: $(cat "$T/r21_ce")"

# ---- 12: the sweep's limits give the size asked for ----
"$FASIM" sweep --vary seqlen=1:2147483647:+1 > "$T/r21_s" 2> "$T/r21_se"; r21_s1=$?
"$FASIM" sweep --vary seqlen=16:1024:+16 --vary headdim=16:1024:+16 --vary batch=1:64:+1 > "$T/r21_s2" 2> "$T/r21_se2"; r21_s2=$?
[ "$r21_s1" = 2 ] && [ "$r21_s2" = 2 ] && [ ! -s "$T/r21_s" ] && [ ! -s "$T/r21_s2" ] \
    && grep -qxF "fasim: --vary seqlen: 1:2147483647:+1 is 2147483647 values, more than 4096" "$T/r21_se" \
    && grep -qxF "fasim: the sweep has 262144 points (64 x 64 x 64), more than 100000" "$T/r21_se2" \
    && pass "reader21: sweep's limits name the values (2147483647) and points (64 x 64 x 64 = 262144) asked for" \
    || fail "reader21: sweep limits: $r21_s1 $(cat "$T/r21_se"); $r21_s2 $(cat "$T/r21_se2")"

# ---- reader 22 #1: ... and only in the input formats they are built for ----
r22_ok=1
for a in "v5 fp8_e4m3 fp16 or bf16" "v4 fp8_e4m3 fp16 or bf16" "v1 bf16 fp32" "v2 fp16 fp32" "v0 fp8_e4m3 fp32, fp16 or bf16"; do
    set -- $a; r22_p=$1 r22_d=$2; shift 2
    case $r22_p in v0) r22_a="--algo standard" ;; v1) r22_a="--algo flash1" ;; *) r22_a="--algo flash2" ;; esac
    # shellcheck disable=SC2086
    "$FASIM" io --profile "$r22_p" $r22_a --dtype "$r22_d" --headdim 128 --seqlen 4096 > "$T/r22_o" 2> "$T/r22_e"; rc=$?
    [ "$rc" = 2 ] && [ ! -s "$T/r22_o" ] && grep -qF "profile $r22_p is fasim's kernel kernels/attn_v" "$T/r22_e" \
        && grep -qF "built for --dtype $* only, not $r22_d (kernels/README.md)" "$T/r22_e" || { r22_ok=0; echo "  $r22_p $r22_d: rc $rc $(cat "$T/r22_e")"; }
done
"$FASIM" io --profile v1 --algo flash1 --dtype fp32 --headdim 128 --seqlen 4096 > /dev/null 2>&1 || r22_ok=0
"$FASIM" io --profile v5_fp8 --dtype fp8_e4m3 --headdim 128 --seqlen 4096 > /dev/null 2>&1 || r22_ok=0
[ "$r22_ok" = 1 ] && pass "reader22: kernels/ profiles refuse dtypes their kernels are not built for (v4, v5 fp8; v1, v2 other than fp32; v0 fp8); v1 fp32 and v5_fp8 e4m3 time" \
    || fail "reader22: kernels/ profiles' dtypes"
