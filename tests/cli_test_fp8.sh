# cli_test_fp8.sh -- kernels/ v5_fp8 (issue 17) on the command line: fasim io counts its own formats
# (bf16 O, the scale exponents) and the V -> V^T pre-pass on a line of its own; explain derives
# them; compare maps fabench's v5_fp8 and v5_fp8_prepass rows; bad combinations exit 2 naming the
# value.  Sourced by cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg; $T, $FASIM).
F8="--profile v5_fp8 --batch 2 --heads 4 --kv-heads 2 --seqlen 1000 --headdim 128"
expect_msg "v5_fp8 with --dtype bf16 refused, naming it" "profile v5_fp8 takes --dtype fp8_e4m3 only (the kernel's input format), not bf16" \
    -- io $F8 --dtype bf16
expect_msg "v5_fp8 with d = 64 refused, naming it" "profile v5_fp8 has no fwd tile for head dim d = 64, d_v = 64 (its kernels take d = d_v = 128 only)" \
    -- io --profile v5_fp8 --dtype fp8_e4m3 --headdim 64
expect_msg "v5_fp8 with d = 64 and given tiles refused too" "head dim d = 64" -- io --profile v5_fp8 --dtype fp8 --headdim 64 --block-r 128 --block-c 128
expect_msg "v5_fp8 with d_v = 64 refused" "d = 128, d_v = 64" -- io --profile v5_fp8 --dtype fp8 --headdim 128 --headdim-v 64
expect_msg "v5_fp8 tiles that straddle a scale block refused" "must divide 128 rows, not B_r x B_c = 96 x 128" \
    -- io $F8 --dtype fp8 --block-r 96 --block-c 128
expect_msg "v5_fp8 has no backward" "profile v5_fp8 has no backward kernel" -- io $F8 --dtype fp8 --pass bwd
expect_msg "explain v5_fp8 with bf16 refused" "not bf16" -- explain $F8 --dtype bf16
# the bytes: tests/test_perf.c test_v5_fp8_bytes's closed form (19492352 B; pre-pass 512000 B each way)
"$FASIM" io $F8 --dtype fp8_e4m3 --format json >"$T/out" 2>"$T/err" && python3 - "$T/out" <<'PY' && pass "io v5_fp8: the kernel's bytes, the scales and the pre-pass (JSON)" || fail "io v5_fp8 JSON: $(head -c 400 "$T/out") $(cat "$T/err")"
import json, sys
r = json.load(open(sys.argv[1]))[0]
t = r["tensors"]
assert r["hbm_bytes"] == 19492352 and r["formula_match"], r["hbm_bytes"]
assert t["O"]["write_bytes"] == 8 * 256000 and t["K_scale"]["read_bytes"] == 8 * 256, t
assert r["prepass"] == {"kernel": "v5_fp8_prepass", "read_bytes": 512000, "write_bytes": 512000,
                        "time_s": r["prepass"]["time_s"]} and r["prepass"]["time_s"] > 0, r["prepass"]
PY
"$FASIM" io $F8 --dtype fp8_e4m3 >"$T/out" 2>"$T/err" && grep -q "^pre-pass  V -> V^T .* 500 KiB .* 500 KiB .* 1000 KiB  (B H_kv N_k d_v e each way" "$T/out" \
    && grep -q "^flash2 .* yes " "$T/out" && grep -q "(v5_fp8_prepass, V -> V^T: 500 KiB read + 500 KiB written at the DRAM copy rate" "$T/out" \
    && pass "io v5_fp8: the pre-pass on its own lines, =formula yes" || fail "io v5_fp8 table: $(cat "$T/out" "$T/err")"
"$FASIM" explain $F8 --dtype fp8_e4m3 --causal >"$T/out" 2>"$T/err" \
    && grep -q "the kernel moves .* = 12494592 B" "$T/out" && grep -q "counted them: 12494592 B (equal to the derivation above)" "$T/out" \
    && grep -q "pre-pass v5_fp8_prepass, a kernel of its own: .* = 2\*2\*1000\*128\*1 = 512000 B each way" "$T/out" \
    && pass "explain v5_fp8 causal: the formats derived, equal to the count" || fail "explain v5_fp8: $(cat "$T/out" "$T/err" | head -40)"
# compare: fabench's columns, the kernel and its pre-pass
printf 'kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms,tflops,gbps,max_err,pass\nv5_fp8,2,4,2,1000,1000,128,0,fp8_e4m3,0.05,0,0,0,PASS\nv5_fp8_prepass,2,4,2,1000,1000,128,0,fp8_e4m3,0.005,0,0,0,PASS\n' > "$T/f8.csv"
"$FASIM" compare --measured "$T/f8.csv" --format csv >"$T/out" 2>"$T/err" \
    && [ "$(sed -n 2p "$T/out" | cut -d, -f1,14,21,22)" = "v5_fp8,19492352,v5_fp8,fwd" ] \
    && [ "$(sed -n 3p "$T/out" | cut -d, -f1,14,21,22,23)" = "v5_fp8_prepass,1024000,v5_fp8,pre,DRAM" ] \
    && pass "compare: v5_fp8 and v5_fp8_prepass rows" || fail "compare v5_fp8: $(cat "$T/out" "$T/err")"
printf 'kernel,B,H,N_q,d,dtype,ms\nv5_fp8,1,1,1024,128,bf16,1\n' > "$T/f8b.csv"
expect_msg "compare: a bf16 row of v5_fp8 refused" "f8b.csv:2: profile v5_fp8 takes --dtype fp8_e4m3 only" -- compare --measured "$T/f8b.csv"
printf 'kernel,B,H,N_q,d,dtype,ms\nv4_prepass,1,1,1024,128,bf16,1\n' > "$T/f8c.csv"
expect_msg "compare: the pre-pass of a kernel without one refused" "f8c.csv:2: kernel 'v4_prepass' names the pre-pass of profile v4, which has none" \
    -- compare --measured "$T/f8c.csv"
rm -f "$T/f8.csv" "$T/f8b.csv" "$T/f8c.csv"
