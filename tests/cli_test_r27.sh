# cli_test_r27.sh -- the 27th fresh reader (notes/reader27_findings.md), findings 2 and 5: the
# report's titles say what it prints when a model's sliding window covers N (no table of
# sliding-window layers is referred to that is not printed; a window that masks nothing is not
# called a sliding-window layer), and explain names the Q rows flash2 loads Q_rows, defined on the
# line above its term, not N_q.  Sourced after tests/cli_lib.sh (pass, fail; $T, $FASIM).

# ---- finding 2: a window of at least N keys ----
# Qwen2 with use_sliding_window: layers 14 .. 27 slide (max_window_layers 14) with a window of 4096;
# no max_position_embeddings, so N = 2048 and the window drops no key
cat > "$T/r27_qwsw.json" <<'EOF'
{"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
 "num_hidden_layers": 28, "use_sliding_window": true, "max_window_layers": 14, "sliding_window": 4096,
 "max_position_embeddings": 2048, "torch_dtype": "float16"}
EOF
# Mistral without sliding_window: Transformers' MistralConfig default of 4096 on every layer;
# max_position_embeddings 2048
cat > "$T/r27_mis.json" <<'EOF'
{"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
 "num_hidden_layers": 32, "max_position_embeddings": 2048, "torch_dtype": "bfloat16"}
EOF
# and with sliding_window: null, no window at all
cat > "$T/r27_misnull.json" <<'EOF'
{"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
 "num_hidden_layers": 32, "max_position_embeddings": 2048, "sliding_window": null, "torch_dtype": "bfloat16"}
EOF

r27_cov="its 14 sliding-window layers' window of 4096 covers N = 2048: they are full causal layers here"
"$FASIM" report --model "$T/r27_qwsw.json" --hw h200 --out-dir "$T/r27_rq" --no-plots > "$T/r27_rq.out" 2>&1
r27_rc=$?
[ "$r27_rc" = 0 ] \
    && grep -qxF "== kernels: qwen2, N = 2048, fwd of one of its 28 layers (causal (bottom-right); $r27_cov), on each GPU (fasim io --profile KEY; docs/time-model.md)" "$T/r27_rq.out" \
    && grep -qF "N = 2048; one attention layer, forward (x 28 layers per model pass; $r27_cov)" "$T/r27_rq.out" \
    && [ "$(grep -c '^== qwen2' "$T/r27_rq.out")" = 1 ] \
    && ! grep -qF "the model's table above" "$T/r27_rq.out" \
    && ! grep -qF "full-attention layers (" "$T/r27_rq.out" \
    && pass "r27: report, Qwen2 whose window of 4096 covers N = 2048: one table, and both titles say the window covers N" \
    || fail "r27: report Qwen2 window >= N (rc $r27_rc): $(grep -E '^== (qwen2|kernels)' "$T/r27_rq.out" | tr '\n' ' ')"

# the same model at N = 4097: the window binds, two tables and the model pass; the kernels title's
# "the model's table above" names a table that is printed
"$FASIM" report --model "$T/r27_qwsw.json" --hw h200 --seqlen 4097 --out-dir "$T/r27_rq2" --no-plots > "$T/r27_rq2.out" 2>&1
grep -qF "== kernels: qwen2, N = 4097, fwd of one of its 14 full-attention layers (causal (bottom-right); its 14 sliding-window layers: the model's table above)" "$T/r27_rq2.out" \
    && grep -qF "causal + sliding window of 4096, scale = 0.0883883 (1/sqrt(d)), B = 1, N = 4097; one attention layer, forward (x 14 of 28 layers per model pass)" "$T/r27_rq2.out" \
    && grep -qF "== qwen2, the model pass: 14 full-attention layers + 14 sliding-window layers, summed (forward)" "$T/r27_rq2.out" \
    && ! grep -qF "covers N" "$T/r27_rq2.out" \
    && pass "r27: report, Qwen2 at N = 4097 (the window binds): the sliding-window table the kernels title refers to is printed" \
    || fail "r27: report Qwen2 N = 4097: $(grep -E '^== (qwen2|kernels)' "$T/r27_rq2.out" | tr '\n' ' ')"
# N = 4096 = W: the last row sees keys 0 .. 4095, every key: still full causal
"$FASIM" report --model "$T/r27_qwsw.json" --hw h200 --seqlen 4096 --out-dir "$T/r27_rq3" --no-plots > "$T/r27_rq3.out" 2>&1
grep -qF "fwd of one of its 28 layers (causal (bottom-right); its 14 sliding-window layers' window of 4096 covers N = 4096: they are full causal layers here)" "$T/r27_rq3.out" \
    && [ "$(grep -c '^== qwen2' "$T/r27_rq3.out")" = 1 ] \
    && pass "r27: report, Qwen2 at N = W = 4096: the window covers N (one table)" \
    || fail "r27: report Qwen2 N = 4096: $(grep -E '^== (qwen2|kernels)' "$T/r27_rq3.out" | tr '\n' ' ')"

"$FASIM" report --model "$T/r27_mis.json" --hw h200 --out-dir "$T/r27_rm" --no-plots > "$T/r27_rm.out" 2>&1
r27_mcov="its 32 layers' sliding window of 4096 covers N = 2048: they are full causal layers here"
grep -qxF "== kernels: mistral, N = 2048, fwd of one of its 32 layers (causal (bottom-right); $r27_mcov), on each GPU (fasim io --profile KEY; docs/time-model.md)" "$T/r27_rm.out" \
    && grep -qF "N = 2048; one attention layer, forward (x 32 layers per model pass; $r27_mcov)" "$T/r27_rm.out" \
    && ! grep -qF "one sliding-window layer" "$T/r27_rm.out" \
    && pass "r27: report, Mistral without sliding_window at N = 2048: its default window of 4096 covers N, no 'sliding-window layer'" \
    || fail "r27: report Mistral default window at N = 2048: $(grep -E '^== (mistral|kernels)' "$T/r27_rm.out" | tr '\n' ' ')"

"$FASIM" report --model "$T/r27_misnull.json" --hw h200 --out-dir "$T/r27_rn" --no-plots > "$T/r27_rn.out" 2>&1
grep -qF "== kernels: mistral, N = 2048, fwd of one full-attention layer (causal (bottom-right)), on each GPU" "$T/r27_rn.out" \
    && ! grep -E '^== (mistral|kernels)' "$T/r27_rn.out" | grep -qE "sliding|covers N" \
    && pass "r27: report, Mistral with sliding_window null: one full-attention layer, no window named in the titles" \
    || fail "r27: report Mistral sliding_window null: $(grep -E '^== (mistral|kernels)' "$T/r27_rn.out" | tr '\n' ' ')"

# ---- finding 5: explain's Q term names the rows it loads ----
"$FASIM" explain --algo flash2 --seqlen 1000 --seqlen-k 100 --causal --block-r 64 --block-c 64 > "$T/r27_ex" 2>&1
grep -B2 -- '^    Q    read ' "$T/r27_ex" | head -1 | grep -qxF "  Q_rows = query rows loaded (blocks that see a key) = 104" \
    && grep -qE '^    Q    read   Q_rows\*d\*e += 104\*64\*2 += +13312$' "$T/r27_ex" \
    && grep -qE '^    O    write  N_q\*d_v\*e += 1000\*64\*2 ' "$T/r27_ex" \
    && ! grep -qF "Q rows loaded (blocks" "$T/r27_ex" \
    && pass "r27: explain flash2 causal N_q = 1000, N_k = 100: Q read Q_rows*d*e = 104*64*2, Q_rows defined the line above" \
    || fail "r27: explain Q_rows: $(grep -E 'Q_rows|Q rows|^    (Q|O) ' "$T/r27_ex" | tr '\n' ' ')"

# every term's symbol that says N_q substitutes N_q, and a Q_rows it substitutes is the one
# defined above it: each algorithm, each mask, forward and both passes
r27_bad=""
for r27_a in standard flash1 flash2; do
    for r27_m in "" "--causal" "--window 63,0" "--window 100,0 --causal" "--causal=top-left"; do
        for r27_p in fwd fwdbwd; do
            # shellcheck disable=SC2086
            "$FASIM" explain --algo "$r27_a" --pass "$r27_p" --seqlen 1000 --seqlen-k 100 $r27_m --block-r 64 --block-c 64 > "$T/r27_ex2" 2>&1 \
                || { r27_bad="$r27_bad [$r27_a $r27_m $r27_p: exit $?]"; continue; }
            r27_err=$(awk '
                /^forward pass|^backward pass|^forward \+ backward/ { for (i = 1; i <= NF; i++) if ($i ~ /^N_q=/) nq = substr($i, 5) }
                /^  Q_rows = / { qr = $NF }
                /^    [A-Za-z_]+ +(read|write) +/ {
                    sym = $3; num = $5
                    if (sym ~ /^N_q\*/ && index(num, nq "*") != 1) print "N_q=" nq " but " $0
                    if (sym ~ /^Q_rows\*/ && index(num, qr "*") != 1) print "Q_rows=" qr " but " $0
                }' "$T/r27_ex2")
            [ -n "$r27_err" ] && r27_bad="$r27_bad [$r27_a $r27_m $r27_p: $r27_err]"
        done
    done
done
[ -z "$r27_bad" ] \
    && pass "r27: explain: every N_q term substitutes N_q and every Q_rows term its definition (standard/flash1/flash2, 5 masks, fwd and fwdbwd)" \
    || fail "r27: explain symbols:$r27_bad"

# no mask: every row block loads Q, and the term stays N_q*d*e
"$FASIM" explain --algo flash2 --seqlen 1024 --block-r 64 --block-c 64 > "$T/r27_ex3" 2>&1
grep -qE '^    Q    read   N_q\*d\*e += 1024\*64\*2 ' "$T/r27_ex3" && ! grep -qF "Q_rows" "$T/r27_ex3" \
    && pass "r27: explain flash2 without a mask: Q read N_q*d*e (no Q_rows)" \
    || fail "r27: explain flash2 no mask: $(grep -E '^    Q ' "$T/r27_ex3")"
