# cli_test_cp.sh -- fasim io --cp P --cp-scheme S (docs/context-parallel.md): the numbers of a case
# worked by hand, every scheme's row, the formats, and each refusal naming the value and the limit.
# Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_exit, expect_msg; $T, $FASIM).

# A non-causal ring of P = 4 over N = 512, one head, d = 64, fp16 (tests/test_cp.c by hand):
# 4 calls of 66048 bytes, 3 merges of 83456, the fp32 start and cast 98304; 3 x 32768 bytes sent
if "$FASIM" io --cp 4 --cp-scheme ring --seqlen 512 --headdim 64 --format csv > "$T/out" 2>"$T/err"; then
    row=$(sed -n 2p "$T/out")
    case $row in
        "ring,4,0,4,3,612864,264192,348672,yes,"*",98304,98304,"*) pass "cp: ring P = 4 by hand (bytes, merges, link)" ;;
        *) fail "cp: ring P = 4 by hand: $row" ;;
    esac
else
    fail "cp: ring P = 4 exit $? ($(cat "$T/err"))"
fi
# the table: the four schemes, the one-GPU line, the note that nothing multi-GPU was measured
if "$FASIM" io --cp 4 --seqlen 131072 --heads 64 --kv-heads 8 --headdim 128 --dtype bf16 --causal > "$T/out" 2>"$T/err"; then
    ok=1
    for w in "ring " "zigzag " "allgather " "ulysses " "one GPU (P = 1)" "NVLink 450 GB/s per direction" \
             "No multi-GPU run has measured" "384 MiB" "864 MiB"; do
        grep -qF -- "$w" "$T/out" || { ok=0; fail "cp: table lacks '$w': $(head -c 600 "$T/out")"; break; }
    done
    [ $ok = 1 ] && pass "cp: the table of Llama-3-70B's layer over 4 GPUs (every scheme, link bytes, one GPU)"
    grep -E "^(ring|zigzag|allgather|ulysses) " "$T/out" | grep -qv " yes " && fail "cp: a row's count differs from its closed form" \
        || pass "cp: every row's counted bytes equal the closed form"
else
    fail "cp: table exit $? ($(cat "$T/err"))"
fi
if "$FASIM" io --cp 8 --cp-scheme ulysses --seqlen 8192 --heads 64 --kv-heads 8 --headdim 128 --dtype bf16 --format json > "$T/out" 2>"$T/err" \
    && jq -e '.[0].scheme == "ulysses" and .[0].P == 8 and .[0].sent_bytes == 7 * 1024 * (8 + 1) * 256 * 2' "$T/out" >/dev/null; then
    pass "cp: json, ulysses P = 8: (P-1) n (H/P + H_kv/P)(d + d_v) e bytes sent"
else
    fail "cp: json ulysses: $(head -c 400 "$T/out") $(cat "$T/err")"
fi
expect_msg "cp: P = 0 names the value and the limit" "--cp = '0' must be an integer in [1, 1024]" -- io --cp 0
expect_msg "cp: P = 2000 names the limit" "--cp = '2000' must be an integer in [1, 1024]" -- io --cp 2000
expect_msg "cp: P not a number" "--cp = 'two' must be an integer in [1, 1024]" -- io --cp two
expect_msg "cp: unknown scheme" "unknown context-parallel scheme 'torus' (known: ring, zigzag, allgather, ulysses)" -- io --cp 2 --cp-scheme torus
expect_msg "cp: --cp-scheme without --cp" "--cp-scheme needs --cp P" -- io --cp-scheme ring
expect_msg "cp: P does not divide N" "ring: N = 1000 is not a multiple of P = 3" -- io --cp 3 --cp-scheme ring --seqlen 1000
expect_msg "cp: zigzag needs 2P | N" "zigzag: N = 1020 is not a multiple of 2P = 8" -- io --cp 4 --cp-scheme zigzag --seqlen 1020 --causal
expect_msg "cp: ulysses, P does not divide H" "ulysses: H = 6 query heads is not a multiple of P = 4" -- io --cp 4 --cp-scheme ulysses --heads 6 --seqlen 1024
expect_msg "cp: ulysses, P does not divide H_kv" "ulysses: H_kv = 8 kv heads is not a multiple of P = 16" -- io --cp 16 --cp-scheme ulysses --heads 64 --kv-heads 8 --seqlen 4096
expect_msg "cp: cross-attention refused" "N_q = 1024 must equal N_k = 2048" -- io --cp 2 --seqlen 1024 --seqlen-k 2048
expect_msg "cp: the backward is not modelled" "--cp models the forward pass only" -- io --cp 2 --pass bwd
expect_msg "cp: another algorithm refused" "leave out --algo or give --algo flash2" -- io --cp 2 --algo standard
expect_msg "cp: --cp is an option of io only" "--cp is not an option of fasim sweep" -- sweep --cp 2
# a profile without the NVLink key: P > 1 says which key is missing
mkdir -p "$T/cp_hw"
cp "$(dirname "$0")"/../sim/hw/*.hw "$T/cp_hw/"
sed -i '/^nvlink_bytes_per_s/d' "$T/cp_hw/h200-sxm.hw"
hw_dir_save
export FASIM_HW_DIR="$T/cp_hw"
expect_msg "cp: a profile without nvlink_bytes_per_s" "gives no nvlink_bytes_per_s" -- io --cp 2
"$FASIM" io --cp 1 > "$T/out" 2>"$T/err" && pass "cp: P = 1 needs no link" || fail "cp: P = 1 without the key: $(cat "$T/err")"
hw_dir_restore
