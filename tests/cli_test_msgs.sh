# cli_test_msgs.sh -- refusals that name the value and the limit: every overflow names the largest
# N (or B) that fits, report's as io's (the closed form checked first); --l2's count of tile
# transfers has its unit and its largest N; compare checks --kernel-profile before it reads the
# file.  Sourced by tests/cli_test.sh (FASIM, T, pass/fail/expect_msg from cli_lib.sh).

msg_m=analysis/models
[ -d "$msg_m" ] || msg_m="$(dirname "$0")/../analysis/models"

# ---- 5: report's overflow is io's: the closed form first (its matmul FLOPs), with the largest N ----
expect_msg -x "msgs #5: report at N = 2^28 - 1 (llama-3-8b) names the matmul FLOPs and N = 33554431, as io" \
    "model meta-llama/Meta-Llama-3-8B, its table's standard row on A100-SXM4-80GB (B = 1, H = 32, H_kv = 8, N = 268435455, d = 128, d_v = 128): standard's closed-form matmul FLOPs exceed 64 bits for B = 1, H = 32, N_q = 268435455, N_k = 268435455, d = 128: at these B, H, d they fit up to N = 33554431 (use a smaller --seqlen, --batch or --heads)" \
    -- report --model "$msg_m/llama-3-8b.json" --seqlen 268435455 --out-dir "$T/msg_r1" --quiet --no-plots
[ ! -e "$T/msg_r1" ] && pass "msgs #5: report's refusal writes no folder" || fail "msgs #5: report wrote $T/msg_r1"
expect_msg "msgs #5: io at the same shape names the same limit" \
    "standard's closed-form matmul FLOPs exceed 64 bits for B = 1, H = 32, N_q = 268435455, N_k = 268435455, d = 128: at these B, H, d they fit up to N = 33554431" \
    -- io --model "$msg_m/llama-3-8b.json" --seqlen 268435455 --causal
expect_msg "msgs #5: report deepseek-v3 at B = 2^31 - 1 names K's bytes and the largest N" \
    "standard's closed-form HBM bytes of tensor K exceed 64 bits for B = 2147483647, H = 128, N_q = 163840, N_k = 163840, d = 192: at these B, H, d they fit up to N = 323 (use a smaller --seqlen, --batch or --heads)" \
    -- report --model "$msg_m/deepseek-v3.json" --batch 2147483647 --out-dir "$T/msg_r2" --quiet --no-plots
[ ! -e "$T/msg_r2" ] && pass "msgs #5: deepseek's refusal writes no folder" || fail "msgs #5: report wrote $T/msg_r2"
# d = 1: the softmax FLOPs (8 a score, standard) pass 2^64 before the closed form's bytes (6 a score)
printf '{"_name_or_path":"msgs-d1","hidden_size":2,"num_attention_heads":2,"num_key_value_heads":2,"max_position_embeddings":8192,"torch_dtype":"float16","model_type":"llama"}\n' > "$T/msg_d1.json"
expect_msg -x "msgs #5: report's softmax-FLOPs overflow names the largest N" \
    "model msgs-d1, its table's standard row on A100-SXM4-80GB (B = 1, H = 2, H_kv = 2, N = 1100000000, d = 1, d_v = 1): softmax FLOPs exceed 64 bits for B = 1, H = 2, N_q = 1100000000, N_k = 1100000000, d = 1: at these B, H, d they fit up to N = 1071650796 (use a smaller --seqlen, --batch or --heads)" \
    -- report --model "$T/msg_d1.json" --seqlen 1100000000 --out-dir "$T/msg_r3" --quiet --no-plots
[ ! -e "$T/msg_r3" ] && pass "msgs #5: the softmax refusal writes no folder" || fail "msgs #5: report wrote $T/msg_r3"
expect_msg "msgs #5: a count-only run's overflow (io, d = 1) names the shape and the largest N" \
    "standard fwd's count: FLOP count overflows 64 bits (12879999174400000000 + 7679998771200049152) for B = 1, H = 1, N_q = 1600000000, N_k = 1600000000, d = 1: at these B, H, d they fit up to N = 1515543089 (use a smaller --seqlen, --batch or --heads)" \
    -- io --headdim 1 --seqlen 1600000000 --algo standard
expect_msg "msgs #5: where no N fits, the largest B at the N given" \
    "flash2's closed-form HBM bytes of tensor Q exceed 64 bits for B = 2147483647, H = 2147483647, N_q = 1, N_k = 1, d = 256: no N fits at these B, H, d; at these H, d and N = 1 they fit up to B = 5592405 (use a smaller --batch or --heads)" \
    -- io --seqlen 1 --heads 2147483647 --batch 2147483647 --algo flash2 --headdim 256

# ---- 6: --l2's limit is a count of tile transfers, with the largest N under it ----
expect_msg -x "msgs #6: --l2 names tile transfers, the limit and the largest N" \
    "--l2 replays every tile transfer: standard fwd has 30065819648 tile transfers, over the limit of 67108864 tile transfers for B = 1, H = 64, N_q = 1048576, N_k = 1048576, d = 64: at these B, H, d they fit up to N = 49408 (use a smaller --seqlen, --batch or --heads)" \
    -- io --l2 --seqlen 1048576 --heads 64 --algo standard
expect_msg "msgs #6: --l2, flash2 causal" \
    "flash2 fwd has 4297064448 tile transfers, over the limit of 67108864 tile transfers for B = 1, H = 64, N_q = 1048576, N_k = 1048576, d = 64: at these B, H, d they fit up to N = 130816" \
    -- io --l2 --seqlen 1048576 --heads 64 --causal --algo flash2

# ---- 7: compare checks --kernel-profile before it reads the measured file ----
printf 'kernel,Bogus,H,N,d,ms\nfa2,1,1,1024,64,1.5\n' > "$T/msg_meas_bad.csv"
expect_msg -x "msgs #7: compare names the kernel given twice, not the file's bad header" \
    "--kernel-profile: kernel fa2 given twice" \
    -- compare --kernel-profile fa2=fa2,fa2=fa3 --measured "$T/msg_meas_bad.csv"
expect_msg "msgs #7: compare names an unknown profile before the file" \
    "unknown kernel profile 'nope'" \
    -- compare --kernel-profile fa2=nope --measured "$T/msg_meas_bad.csv"
expect_msg "msgs #7: with a good --kernel-profile the bad header is still named" \
    "msg_meas_bad.csv:1: unknown column 'Bogus'" \
    -- compare --kernel-profile fa2=fa2 --measured "$T/msg_meas_bad.csv"

# ---- the same kind elsewhere: check --decode's size limit names what it counts ----
expect_msg -x "msgs: check --decode's work limit names the product it counts" \
    "check runs in numeric mode: the work B*H*N_q*N_k*(d+d_v) = 2.56e+10 exceeds the limit of 2e10; use a smaller shape" \
    -- check --decode --kv-len 100000000 --heads 1 --headdim 128
