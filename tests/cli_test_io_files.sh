# cli_test_io_files.sh -- the input files of `fasim io` (--cu-seqlens, --mask, --block-mask,
# --model): a message that quotes a file's content shows a short printable excerpt (\xNN
# escapes, cut with "...") and names FILE:LINE:COLUMN; a model config.json with a key twice is
# refused.  Sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail, expect_msg; $T, $FASIM).

printf '0,5\n9,\211PNG\000\001\033[2Jabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\n' > "$T/p2_cu.bin"
expect_msg -p "cu-seqlens binary file: FILE:LINE:COL, escaped" "--cu-seqlens: $T/p2_cu.bin:2:3: '\\x89PNG\\x00\\x01\\x1b[2Jabc" \
    -- io --cu-seqlens "$T/p2_cu.bin"
grep -qF "...' is not an integer in [0, 2147483647]" "$T/err" && [ "$(wc -c < "$T/err")" -lt 200 ] \
    && pass "cu-seqlens binary file: excerpt cut with ..." || fail "cu-seqlens excerpt: $(cat "$T/err")"
printf '0 4\n 99999999999\n' > "$T/p2_cu.txt"
expect_msg -p "cu-seqlens file: too large an offset at its line and column" "$T/p2_cu.txt:2:2: '99999999999' is not an integer" \
    -- io --cu-seqlens "$T/p2_cu.txt"
expect_msg -p "cu-seqlens list: an item still named as before" "--cu-seqlens = '99999999999' must be an integer" \
    -- io --cu-seqlens 0,99999999999
printf '0101\n01\303\2511\n0000\n1111\n' > "$T/p2_mask.txt"
expect_msg -p "mask: a non-ASCII byte escaped, with its column" "$T/p2_mask.txt:2:3: '\\xc3' is not 0 or 1" \
    -- io --mask "$T/p2_mask.txt" --seqlen 4 --algo flash2
printf '0101\n01\00011\n0000\n1111\n' > "$T/p2_mask0.txt"
expect_msg -p "mask: a NUL byte is refused (it ended the text silently)" "$T/p2_mask0.txt:2:3: a NUL byte ('\\x00')" \
    -- io --mask "$T/p2_mask0.txt" --seqlen 4 --algo flash2
printf '\001\002\003\004\005\006\007\010' > "$T/p2_mask.bin"
head -c 200 /dev/zero | tr '\000' '\377' >> "$T/p2_mask.bin"
expect_msg -p "block mask: a binary file, no raw bytes echoed" "$T/p2_mask.bin" -- io --block-mask "$T/p2_mask.bin" --seqlen 64
expect_msg -p "dense mask: a binary file, the first byte escaped" "$T/p2_mask.bin:1:1: '\\x01' is not 0 or 1" \
    -- io --mask "$T/p2_mask.bin" --seqlen 4 --algo flash2
printf '{"num_attention_heads": 12, "hidden_size": 768, "torch_dtype": "fl\\u0001oat"}' > "$T/p2_model.json"
expect_msg -p "model: torch_dtype escaped" "torch_dtype 'fl\\x01oat'" -- io --model "$T/p2_model.json"
printf '{"num_attention_heads": 8, "num_attention_heads": 4, "hidden_size": 512}' > "$T/dup_key.json"
expect_msg "--model with a duplicated key: named" 'key "num_attention_heads" given twice (line 1)' -- io --model "$T/dup_key.json"
