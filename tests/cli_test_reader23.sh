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

# ---- 2: an overflow names the count (FLOPs or bytes) and the largest N that fits: 4 N^2 d B H <= 2^64 - 1
#      at d = 64, B = H = 1: N = 2^28 - 1 = 268435455 (2^28 gives 2^64); io, sweep and compare alike ----
expect_msg -x "reader23 #2: io N = 2^28: the matmul FLOPs overflow, N = 268435455 fits" \
    "standard's closed-form matmul FLOPs exceed 64 bits for B = 1, H = 1, N_q = 268435456, N_k = 268435456, d = 64: at these B, H, d they fit up to N = 268435455 (use a smaller --seqlen, --batch or --heads)" \
    -- io --seqlen 268435456 --profile paper
"$FASIM" io --seqlen 268435455 --profile paper --algo standard --format csv > "$T/r23_o" 2>&1 \
    && [ "$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "flops_matmul") c = i} NR == 2 {print $c}' "$T/r23_o")" = 18446743936270598400 ] \
    && pass "reader23 #2: io N = 268435455 counts 4 N^2 d = 18446743936270598400 matmul FLOPs (under 2^64)" \
    || fail "reader23 #2: io N = 268435455: $(head -c 300 "$T/r23_o")"
expect_msg "reader23 #2: sweep names the FLOPs and the limit" \
    "fasim: at seqlen = 268435456 (standard): standard's closed-form matmul FLOPs exceed 64 bits for B = 1, H = 1, N_q = 268435456, N_k = 268435456, d = 64: at these B, H, d they fit up to N = 268435455" \
    -- sweep --vary seqlen=1024,268435456 --algo standard
printf 'kernel,B,H,N,d,ms\nfa2,1,1,268435456,64,1.5\n' > "$T/r23_c.csv"
expect_msg "reader23 #2: compare names the row, the FLOPs and the limit" \
    "r23_c.csv:2: flash2's closed-form matmul FLOPs exceed 64 bits for B = 1, H = 1, N_q = 268435456, N_k = 268435456, d = 64: at these B, H, d they fit up to N = 268435455" \
    -- compare --measured "$T/r23_c.csv" --hw h200
expect_msg "reader23 #2: a byte overflow is named as bytes (decode's K, B H = 10^9: N_k = 2^56 / 10^9)" \
    "closed-form HBM bytes of tensor K exceed 64 bits for B = 1000000, H = 1000, N_q = 1, N_k = 2000000000, d = 64: at these B, H, d and N_q = 1 they fit up to N_k = 72057593 (use a smaller N_k, --batch or --heads)" \
    -- io --decode --kv-len 2000000000 --batch 1000000 --heads 1000
expect_msg "reader23 #2: the backward names its FLOPs and its own limit" \
    "flash2's closed-form backward matmul FLOPs exceed 64 bits for B = 1, H = 1, N_q = 268435456, N_k = 268435456, d = 64: at these B, H, d they fit up to N = 240095922" \
    -- io --seqlen 268435456 --profile paper --pass bwd --causal --algo flash2

# ---- 3: a config with no torch_dtype (GPT-2 medium, GPT-J) is counted in fp16 and says so ----
"$FASIM" io --model "$r23_m/gpt2-medium.json" --algo flash2 > "$T/r23_g" 2>&1
"$FASIM" io --model "$r23_m/gpt2-medium.json" --algo flash2 --dtype bf16 > "$T/r23_g2" 2>&1
"$FASIM" io --model "$r23_m/llama-3-8b.json" --algo flash2 > "$T/r23_g3" 2>&1
"$FASIM" report --model "$r23_m/gpt-j-6b.json" --no-plots --out-dir "$T/r23_rep" > "$T/r23_gr" 2>&1
oneline "$T/r23_gr" > "$T/r23_gr1"
grep -qF "note: --model $r23_m/gpt2-medium.json: no torch_dtype in the config: counted in fp16, fasim's default (Transformers loads it in torch's default fp32; --dtype to count another)" "$T/r23_g" \
    && grep -q "^forward pass | .* fp16," "$T/r23_g" && ! grep -q "torch_dtype" "$T/r23_g2" && grep -q " bf16," "$T/r23_g2" \
    && ! grep -q "torch_dtype" "$T/r23_g3" \
    && grep -qF "== EleutherAI/gpt-j-6b: H = 16, H_kv = 16, d = 256, fp16 (no torch_dtype in the config: fasim's default fp16; Transformers would load fp32), causal" "$T/r23_gr" \
    && grep -qF "dtype: the config's torch_dtype; float32 is counted in bf16 (the FlashAttention kernels take fp16/bf16), and a config with none (GPT-2, GPT-J) in fasim's default fp16" "$T/r23_gr1" \
    && pass "reader23 #3: no torch_dtype: io's note and report's header say fp16 is fasim's default; --dtype and a dtyped config have no note" \
    || fail "reader23 #3: no-dtype note: $(grep note "$T/r23_g" | head -2)"

# ---- 4: a kv-heads that came from the model file is said to ----
expect_msg -x "reader23 #4: --heads 4 on Llama-3-8B: the kv-heads = 8 is the model file's" \
    "heads = 4 is not a multiple of kv-heads = 8, the model's, from --model $r23_m/llama-3-8b.json (give --kv-heads too, a divisor of 4)" \
    -- io --model "$r23_m/llama-3-8b.json" --heads 4
expect_msg -x "reader23 #4: a --kv-heads given keeps the plain message" \
    "heads = 12 is not a multiple of kv-heads = 8" -- io --model "$r23_m/llama-3-8b.json" --heads 12 --kv-heads 8

# ---- 5: --doc-mask's table header names a document mask, built as a FlashMask column mask ----
"$FASIM" io --doc-mask 512,512 --algo flash2 > "$T/r23_d" 2>&1
"$FASIM" io --doc-mask 512,512 --algo flash2 --format json > "$T/r23_dj" 2>&1
"$FASIM" io --help > "$T/r23_dh" 2>&1
head -1 "$T/r23_d" | grep -qF "fp16, document mask of 2 documents (built as a FlashMask column mask) | H200-SXM" \
    && [ "$(jq -r '.[0].mask' "$T/r23_dj")" = "column mask" ] \
    && grep -qF "built as" "$T/r23_dh" && grep -qF "a FlashMask column mask (CSV and JSON: mask \"column mask\")" "$T/r23_dh" \
    && pass "reader23 #5: io --doc-mask 512,512: the header says document mask of 2 documents (a column mask), --help too" \
    || fail "reader23 #5: doc-mask header: $(head -1 "$T/r23_d")"

# ---- 6: a list that names an entry twice is refused by name, as a repeated option is ----
expect_msg -x "reader23 #6: explain --algo flash2,flash2 refused" \
    "--algo 'flash2,flash2' names flash2 twice (name each algorithm once)" -- explain --algo flash2,flash2
expect_msg -x "reader23 #6: io --algo flash2,flash2,standard refused" \
    "--algo 'flash2,flash2,standard' names flash2 twice (name each algorithm once)" -- io --algo flash2,flash2,standard
expect_msg -x "reader23 #6: sweep --vary seqlen=64,64 refused" \
    "--vary seqlen=64,64: '64' repeats the value 64 (list each value once)" -- sweep --vary seqlen=64,64
expect_msg -x "reader23 #6: sweep --vary sram=64KiB,65536: the same size twice refused" \
    "--vary sram=64KiB,65536: '65536' repeats the value 65536 (list each value once)" -- sweep --vary sram=64KiB,65536
"$FASIM" io --algo flash2,standard --format json > "$T/r23_a" 2>&1
[ "$(jq -r '[.[].algo] | join(",")' "$T/r23_a")" = "flash2,standard" ] \
    && pass "reader23 #6: --algo flash2,standard still runs both, in that order" || fail "reader23 #6: --algo list: $(head -c 200 "$T/r23_a")"

# ---- 7: sweep --help's tile line says that sweep runs no time model (io's keeps its time-model text) ----
"$FASIM" sweep --help > "$T/r23_sh" 2>&1
"$FASIM" io --help > "$T/r23_ih" 2>&1
grep -qF -- "--block-r B_r --block-c B_c          explicit tile sizes, counted in the paper's model (sweep" "$T/r23_sh" \
    && grep -qF "runs no time model: time_s is the roofline)" "$T/r23_sh" && ! grep -q "time model times each kernel" "$T/r23_sh" \
    && grep -qF "the time model times each kernel on them" "$T/r23_ih" \
    && "$FASIM" sweep --vary block-r=16,32 --block-c 16 --algo flash2 > "$T/r23_so" 2>&1 && [ "$(wc -l < "$T/r23_so")" = 3 ] \
    && pass "reader23 #7: sweep --help: --block-r/--block-c counted in the paper's model, no time model; sweep still takes them" \
    || fail "reader23 #7: sweep --help: $(grep -A1 'block-r B_r' "$T/r23_sh")"

# ---- 8: a hexadecimal size is refused as hexadecimal, with its decimal value (--sram, sweep's --vary sram) ----
expect_msg -x "reader23 #8: io --sram 0x1000: hexadecimal refused, 0x1000 = 4096 named" \
    "--sram: byte size '0x1000' is hexadecimal, which is not accepted: give it in decimal (0x1000 = 4096), with or without a suffix: B, KiB or K, MiB or M, GiB (powers of 1024), KB, MB, GB (powers of 1000)" \
    -- io --sram 0x1000
expect_msg "reader23 #8: sweep --vary sram=64KiB,0x20000: the same message" \
    "--vary sram: byte size '0x20000' is hexadecimal, which is not accepted: give it in decimal (0x20000 = 131072)" \
    -- sweep --vary sram=64KiB,0x20000

# ---- 9: a folder option creates its last folder only: a missing parent is refused, named, nothing made ----
expect_msg -x "reader23 #9: check --study into a missing parent: refused, the parent named" \
    "cannot create the directory $T/r23_none/deep/dir: its parent $T/r23_none/deep does not exist (a folder option -- report --out-dir, animate --out-dir, check --study, --save-npy -- creates its last folder only: make $T/r23_none/deep first)" \
    -- check --study "$T/r23_none/deep/dir"
[ ! -e "$T/r23_none" ] && pass "reader23 #9: the refused check --study made no folder" || fail "reader23 #9: check --study made $(find "$T/r23_none" | head -3)"
expect_msg "reader23 #9: report --out-dir a/b with a missing: refused" \
    "cannot create the directory $T/r23_none/b: its parent $T/r23_none does not exist" -- report --out-dir "$T/r23_none/b" --no-plots
expect_msg "reader23 #9: check --save-npy a/b with a missing: refused" \
    "cannot create the directory $T/r23_none/npy: its parent $T/r23_none does not exist" -- check --save-npy "$T/r23_none/npy"
"$FASIM" check --study "$T/r23_st/" --seqlen 64 --headdim 16 --no-plots > /dev/null 2>&1; r23_st=$?
[ "$r23_st" = 0 ] && [ "$(ls "$T/r23_st" | grep -c '\.csv$')" -ge 1 ] && [ ! -e "$T/r23_none" ] \
    && pass "reader23 #9: check --study DIR/ with an existing parent still makes DIR and writes its CSVs" \
    || fail "reader23 #9: check --study $T/r23_st/: rc $r23_st"

# ---- reader 24: fa2 decoding with GQA swaps N_q and the group; fa2 at a head dim it has no kernel for says so ----
r24_dec=$("$FASIM" io --algo flash2 --seqlen 1 --seqlen-k 32768 --headdim 128 --heads 32 --kv-heads 8 2>&1)
echo "$r24_dec" | grep -Eq "^flash2 +64 +128 .* 129\.1 MiB .* 80 KiB +44\.32 us" \
    && echo "$r24_dec" | grep -q "runs one query row of H = 32 heads as N_q = H / H_kv = 4 rows of H_kv = 8 heads" \
    && echo "$r24_dec" | grep -q "B\*H_kv\*ceil((H/H_kv)/64) = 8 row blocks" \
    && pass "reader24: fa2 at N_q = 1, H 32 / H_kv 8 reads K, V once a K,V head (129.1 MiB on 64 x 128 tiles, 80 KiB, 44.32 us) and says why" \
    || fail "reader24: fa2 decoding: $(echo "$r24_dec" | grep '^flash2')"
"$FASIM" io --algo flash2 --seqlen 1 --seqlen-k 32768 --headdim 128 --heads 32 --kv-heads 32 2>&1 | grep -q "seqlenq_ngroups_swapped" \
    && fail "reader24: MHA decoding swapped" || pass "reader24: fa2 at N_q = 1 with H_kv = H keeps its shape (no swap note)"
"$FASIM" io --headdim 80 --algo flash2 --heads 16 --seqlen 4096 2>&1 | grep -q "FlashAttention-2 has no kernel for d = 80: it runs it in its d = 96 kernel (flash_api.cpp.*up to 96 / 80 = 1.20x" \
    && pass "reader24: fa2 at d = 80 names its d = 96 kernel" || fail "reader24: fa2 d = 80 note"
"$FASIM" io --headdim 3 --algo flash2 --heads 16 --seqlen 4096 2>&1 | grep -q "d = 32 kernel, on Q, K and V that its API pads to a multiple of 8 .*up to 32 / 3 = 10.67x" \
    && ! "$FASIM" io --headdim 64 --algo flash2 --heads 16 --seqlen 4096 2>&1 | grep -q "has no kernel for" \
    && pass "reader24: fa2 at d = 3 names the d = 32 kernel and the padding; d = 64 has no such note" \
    || fail "reader24: fa2 d = 3 note"

# ---- reader 25: sdpa_flash refuses what PyTorch never sends its flash backend; fa3 names its kernel's head dim ----
expect_msg "reader25: sdpa_flash refuses causal with N_q != N_k (check_flash_causal_non_square_seqlens)" \
    "profile sdpa_flash: PyTorch's SDPA does not send is_causal with N_q != N_k to its flash backend (N_q = 1000, N_k = 2000; sdp_utils.cpp, check_flash_causal_non_square_seqlens)" \
    -- io --profile sdpa_flash --seqlen 1000 --seqlen-k 2000 --causal
expect_msg "reader25: sdpa_flash refuses d_v != d" "not d = 192, d_v = 128 (sdp_utils.cpp, check_head_dim_size_flash)" \
    -- io --profile sdpa_flash --headdim 192 --headdim-v 128
expect_msg "reader25: sdpa_flash refuses a window" "PyTorch's SDPA has no argument for a sliding window" \
    -- io --profile sdpa_flash --window 127,0
"$FASIM" io --profile sdpa_flash --seqlen 2048 --causal > /dev/null 2>&1 && pass "reader25: sdpa_flash still times causal N_q = N_k" \
    || fail "reader25: sdpa_flash causal square refused"
"$FASIM" io --profile fa3 --hw h100 --headdim 160 --heads 8 --seqlen 4096 2>&1 | grep -q "FlashAttention-3 has no kernel for d = 160: it runs it in its d = 192 kernel (hopper/flash_api.cpp, round_up_headdim" \
    && ! "$FASIM" io --profile fa3 --hw h100 --headdim 128 --heads 8 --seqlen 4096 2>&1 | grep -q "has no kernel for" \
    && pass "reader25: fa3 at d = 160 names its d = 192 kernel; d = 128 has no such note" || fail "reader25: fa3 head-dim note"
"$FASIM" report --no-plots --out-dir "$T/r23_cp_rep" 2>/dev/null | grep -A2 "^ bound: link when the bytes sent over NVLink take longer than the compute" | grep -q "all-to-alls against the call), else compute; P = 1 sends nothing" \
    && pass "reader25: the report's context-parallel legend defines its bound column" || fail "reader25: cp bound legend"
python3 -c "
import json,sys;d=json.load(open(sys.argv[1]));d.pop('num_hidden_layers');json.dump(d,open(sys.argv[2],'w'))" "$(dirname "$0")/../analysis/models/gemma-2-9b.json" "$T/r25_g2.json" \
    && expect_msg -x "reader25: a Gemma-2 config without num_hidden_layers is refused (its sliding layers follow from the count)" \
    "model file $T/r25_g2.json: no num_hidden_layers (or n_layer): which layers of a gemma2 model slide follows from their count, and its configuration class's default is not in the file; add the key" \
    -- io --model "$T/r25_g2.json"
