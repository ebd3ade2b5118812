#!/bin/sh
# cli_test.sh -- command-line tests of `fasim`: outputs, exit statuses, bad input, and that a
# failing run creates or truncates no file.  Run by `make test` with FASIM set to the
# sanitizer build.  Each check prints one PASS, FAIL or SKIP line (tests/cli_lib.sh); the script
# exits 1 on any failure.
FASIM=${FASIM:-./build/fasim}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# pass, fail, skip, expect_exit, expect_msg, nothing_in, summary: tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# ---- bad input: one clear message, exit 2 ----
expect_exit 2 "N = 0" -- io --seqlen 0
expect_exit 2 "d = 0" -- io --headdim 0
expect_exit 2 "negative N" -- io --seqlen -5
expect_exit 2 "non-numeric N" -- io --seqlen abc
expect_exit 2 "trailing junk" -- io --seqlen 12x
expect_exit 2 "H not a multiple of H_kv" -- io --heads 6 --kv-heads 4
expect_exit 2 "SRAM too small" -- io --sram 1000
expect_exit 2 "bad SRAM suffix" -- io --sram 12XB
expect_exit 2 "explicit blocks over M" -- io --block-r 256 --block-c 256 --sram 64KiB
expect_exit 2 "missing model" -- io --model "$T/nope.json"
printf '{"num_attention_heads": 12,' > "$T/bad.json"
expect_exit 2 "malformed model" -- io --model "$T/bad.json"
printf '{"hidden_size": 768}' > "$T/noheads.json"
expect_exit 2 "model without heads" -- io --model "$T/noheads.json"
expect_exit 2 "overflowing counts" -- io --seqlen 2000000000 --headdim 2000000 --batch 2000000000 --heads 2000000000 --sram 1GiB --block-r 16 --block-c 16
expect_exit 2 "unknown algo" -- io --algo flash9
expect_exit 2 "unknown hw" -- io --hw v100
expect_exit 2 "unknown format" -- io --format xml
expect_exit 2 "unknown option" -- io --bogus
expect_exit 2 "missing value" -- io --seqlen
expect_exit 2 "unknown command" -- frobnicate
expect_exit 2 "no command" --
expect_exit 2 "blocks + explicit" -- io --blocks paper --block-r 16 --block-c 16
expect_exit 2 "only block-r" -- io --block-r 16
expect_exit 2 "sweep without vary" -- sweep
expect_exit 2 "sweep bad range" -- sweep --vary seqlen=512:100:x2
expect_exit 2 "sweep unknown name" -- sweep --vary colour=1,2
expect_exit 2 "check too large" -- check --seqlen 100000 --headdim 128
expect_exit 2 "trace with all algos" -- io --trace "$T/t.csv"
expect_exit 2 "report bad hw" -- report --hw z80 --out-dir "$T/rep_bad"
expect_exit 2 "report bad model" -- report --model "$T/bad.json" --out-dir "$T/rep_bad"

# ---- no file created or truncated by a failing run ----
"$FASIM" io --seqlen 0 --algo flash2 --trace "$T/new.csv" 2>/dev/null
[ ! -e "$T/new.csv" ] && pass "failed --trace creates no file" || fail "failed --trace created a file"
echo "keep me" > "$T/keep.csv"
"$FASIM" io --heads 3 --kv-heads 2 --algo flash2 --trace "$T/keep.csv" 2>/dev/null
[ "$(cat "$T/keep.csv")" = "keep me" ] && pass "failed --trace leaves the old file" || fail "failed --trace truncated a file"
"$FASIM" sweep --vary seqlen=64,0 --out "$T/keep.csv" 2>/dev/null
[ "$(cat "$T/keep.csv")" = "keep me" ] && pass "failed sweep leaves the old file" || fail "failed sweep truncated a file"
[ ! -e "$T/rep_bad" ] && pass "failed report writes no directory" || fail "failed report wrote $T/rep_bad"
ls "$T" | grep -q '\.tmp\.' && fail "temporary files left behind" || pass "no temporary files left"

# ---- outputs ----
"$FASIM" io --format json --seqlen 1000 --headdim 64 --block-r 64 --block-c 64 > "$T/io.json"
if jq -e 'length == 3 and all(.[]; has("algo") and has("hbm_read_bytes") and has("hbm_write_bytes")
          and has("hbm_bytes") and has("formula_bytes") and has("flops") and has("sram_peak_bytes")
          and has("block_r") and has("block_c") and .hbm_bytes == .formula_bytes
          and .hbm_bytes == .hbm_read_bytes + .hbm_write_bytes)' "$T/io.json" >/dev/null; then
    pass "io --format json has the documented keys and counted == formula"
else fail "io --format json"; fi
# hand value: flash2, N = 1000, d = 64, fp16, B_r = 64: T_r = 16 passes over K and V,
# Q, O once, LSE (fp32): reads 1000*64*2 + 2*16*1000*64*2 = 4224000, writes 128000 + 4000
v=$(jq '.[] | select(.algo == "flash2") | [.hbm_read_bytes, .hbm_write_bytes] | @csv' -r "$T/io.json")
[ "$v" = "4224000,132000" ] && pass "flash2 hand-computed bytes" || fail "flash2 bytes: got $v, expected 4224000,132000"
# standard: Q 128000, K 16*128000, S 2e6 written, S read twice (T_c = 16 > 1) 4e6, P 2e6 w + 2e6 r,
# V 16*128000, O 128000 w: reads 128000+2048000+4000000+2000000+2048000 = 10224000, writes 4128000
v=$(jq -r '.[] | select(.algo == "standard") | [.hbm_read_bytes, .hbm_write_bytes] | @csv' "$T/io.json")
[ "$v" = "10224000,4128000" ] && pass "standard hand-computed bytes" || fail "standard bytes: got $v"

"$FASIM" io --format csv --algo flash1 --breakdown > "$T/io.csv"
[ "$(wc -l < "$T/io.csv")" -eq 2 ] && head -1 "$T/io.csv" | grep -q '^algo,pass,batch,.*,Q_read_bytes' && pass "io --format csv --breakdown" || fail "io csv"
"$FASIM" io --breakdown | grep -q "LSE" && pass "io table --breakdown lists LSE" || fail "io table breakdown"

"$FASIM" io --algo flash2 --seqlen 40 --headdim 8 --block-r 16 --block-c 16 --trace "$T/trace.csv" >/dev/null
head -1 "$T/trace.csv" | grep -q '^step,tensor,direction,row0,rows,col0,cols,bytes' && pass "trace header" || fail "trace header"
# T_r = 3 row blocks x (Q + 3 K + 3 V loads, O + LSE stores) = 27 transfers; the last Q tile has 8 rows
[ "$(($(wc -l < "$T/trace.csv") - 1))" -eq 27 ] && pass "trace has 27 transfers" || fail "trace has $(($(wc -l < "$T/trace.csv") - 1)) transfers"
grep -q '^.*,Q,read,32,8,0,8,128,0,0$' "$T/trace.csv" && pass "trace tail tile of Q" || fail "trace tail tile"

"$FASIM" io --blocks paper --sram 64KiB --algo flash1 > "$T/paper.txt"
grep -q "more than M" "$T/paper.txt" && pass "--blocks paper reports the overflow" || fail "--blocks paper overflow note"

"$FASIM" io --model analysis/models/llama-3-8b.json --seqlen 4096 --format json | jq -e '.[0].heads == 32 and .[0].kv_heads == 8 and .[0].d == 128 and .[0].dtype == "bf16"' >/dev/null \
    && pass "io --model reads a config.json" || fail "io --model"

"$FASIM" sweep --vary seqlen=512:4096:x2 --vary headdim=64,128 --algo flash2 --quiet > "$T/sw.csv"
[ "$(wc -l < "$T/sw.csv")" -eq 9 ] && pass "sweep 4 x 2 points" || fail "sweep rows: $(wc -l < "$T/sw.csv")"
"$FASIM" sweep --vary seqlen=512,1024 --format json --quiet | jq -e 'length == 6' >/dev/null && pass "sweep json" || fail "sweep json"

"$FASIM" check > "$T/check.txt" && grep -q "all passed" "$T/check.txt" && pass "check suite passes" || fail "check suite"
"$FASIM" check --seqlen 77 --seqlen-k 131 --causal --heads 4 --kv-heads 2 --headdim 24 --format json | jq -e 'length == 3 and all(.[]; .pass)' >/dev/null \
    && pass "check one configuration (json)" || fail "check json"
expect_exit 1 "check with an impossible tolerance fails" -- check --seqlen 64 --tol 1e-300

"$FASIM" report --out-dir "$T/rep" --no-plots > "$T/report.txt"
grep -q "Meta-Llama-3-8B" "$T/report.txt" && [ -s "$T/rep/report.csv" ] && [ -s "$T/rep/hbm_vs_n_llama-3-8b.csv" ] && [ -s "$T/rep/hbm_vs_block.csv" ] \
    && pass "report tables and CSV" || fail "report"

"$FASIM" io --help | grep -q -- "--blocks" && pass "io --help" || fail "io --help"
grep -q "== training: GPT-2 medium" "$T/report.txt" && grep -q "standard / flash2: 10.2x at N = 2k, 19.7x at N = 4k" "$T/report.txt" \
    && [ -s "$T/rep/memory_vs_n.csv" ] && pass "report: training table and memory footprint" || fail "report training/memory"
"$FASIM" report --pass bwd --hw h200 --out-dir "$T/rep2" --no-plots | grep -q "one attention layer, backward" && pass "report --pass bwd" || fail "report --pass bwd"
expect_exit 2 "report bad pass" -- report --pass up --out-dir "$T/rep_bad"

# ---- backward: --pass ----
expect_exit 2 "unknown pass" -- io --pass sideways
for p in bwd fwdbwd; do
    "$FASIM" io --pass $p --seqlen 300 --seqlen-k 200 --causal --heads 8 --kv-heads 2 --headdim 48 --format json > "$T/p.json"
    jq -e --arg p $p 'length == 3 and all(.[]; .pass == $p and .formula_match and .hbm_bytes == .formula_bytes)' "$T/p.json" >/dev/null \
        && pass "io --pass $p: counted == closed form, pass key" || fail "io --pass $p"
done
# fwd + bwd bytes are the sum of the two passes, algorithm by algorithm
f=$("$FASIM" io --pass fwd --seqlen 512 --block-r 32 --block-c 32 --format json | jq '[.[].hbm_bytes]')
b=$("$FASIM" io --pass bwd --seqlen 512 --block-r 32 --block-c 32 --format json | jq '[.[].hbm_bytes]')
fb=$("$FASIM" io --pass fwdbwd --seqlen 512 --block-r 32 --block-c 32 --format json | jq '[.[].hbm_bytes]')
[ "$(jq -n --argjson f "$f" --argjson b "$b" '[range(3) as $i | $f[$i] + $b[$i]]' | tr -d ' \n')" = "$(echo "$fb" | tr -d ' \n')" ] \
    && pass "fwdbwd bytes = fwd + bwd" || fail "fwdbwd bytes: $f + $b != $fb"
"$FASIM" sweep --pass bwd --vary seqlen=128,256 --quiet | cut -d, -f3 | sort -u | grep -qx bwd && pass "sweep --pass bwd" || fail "sweep --pass"

# ---- compare: predictions beside measurements ----
expect_exit 2 "compare without --measured" -- compare
expect_msg "compare missing file" "cannot open measured file $T/none.csv" -- compare --measured "$T/none.csv"
printf 'kernel,B,H\nv2,1,1\n' > "$T/m_bad.csv"
expect_msg "compare header without N_q, d" "m_bad.csv: the header needs the columns kernel, B, H, N_q (or N) and d" -- compare --measured "$T/m_bad.csv"
printf 'kernel,B,H,N_q,d\nv2,1,0,64,64\n' > "$T/m_zero.csv"
expect_msg "compare row with H = 0" "m_zero.csv:2: column H = '0' must be a whole number from 1 to 2147483647" -- compare --measured "$T/m_zero.csv"
# flash2, 2 x 4 heads, N = 300, d = 32, fp16 tiles 64 x 32: the L2 holds everything, so the
# predicted DRAM bytes are Q + K + V + O (153600 B each) + LSE (9600 B) = 624000
printf 'kernel,B,H,N_q,d,dtype,block_r,block_c,ms,dram_read_bytes,dram_write_bytes\nv3,2,4,300,32,fp16,64,32,0.01,460800,163200\n' > "$T/m.csv"
v=$("$FASIM" compare --measured "$T/m.csv" --format csv | tail -1 | cut -d, -f16,17)
[ "$v" = "624000,624000" ] && pass "compare predicts DRAM = Q + K + V + O + LSE" || fail "compare: got $v"
# blocks_per_sm: the kernel's occupancy replaces fasim's estimate (132 SMs x 3 = 396 blocks)
printf 'kernel,B,H,N_q,d,dtype,block_r,block_c,blocks_per_sm,dram_read_bytes,dram_write_bytes\nv3,2,4,300,32,fp16,64,32,3,460800,163200\n' > "$T/m3.csv"
v=$("$FASIM" compare --measured "$T/m3.csv" --format csv | tail -1 | cut -d, -f16,20)
[ "$v" = "624000,3" ] && pass "compare takes blocks_per_sm" || fail "compare blocks_per_sm: got $v"
printf 'kernel,B,H,N_q,d,blocks_per_sm\nv3,2,4,300,32,33\n' > "$T/m33.csv"
expect_msg "compare: blocks_per_sm 33" "m33.csv:2: column blocks_per_sm = '33' must be a whole number from 1 to 32" -- compare --measured "$T/m33.csv"
printf 'kernel,B,H,N_q,d,blocks_per_sm\nv3,2,4,300,32,1.5\n' > "$T/m15.csv"
expect_msg "compare: blocks_per_sm 1.5" "m15.csv:2: column blocks_per_sm = '1.5' must be a whole number from 1 to 32" -- compare --measured "$T/m15.csv"

# ---- explain: the derivation, numbers filled in ----
expect_exit 2 "explain N = 0" -- explain --seqlen 0
expect_exit 2 "explain unknown algo" -- explain --algo flash7
for extra in "" "--causal" "--seqlen-k 300 --headdim-v 32 --batch 2 --heads 4 --kv-heads 2" "--pass bwd" "--pass fwdbwd --causal"; do
    # shellcheck disable=SC2086
    "$FASIM" explain --seqlen 200 --block-r 32 --block-c 48 $extra > "$T/ex.txt" 2>"$T/err"
    rc=$?
    [ $rc -eq 0 ] && [ "$(grep -c 'equal to the sum' "$T/ex.txt")" -eq 3 ] \
        && pass "explain $extra: every algorithm's terms sum to the counted bytes" || fail "explain $extra: rc $rc"
done
"$FASIM" explain --algo flash2 --seqlen 1024 --block-r 64 --block-c 64 | grep -q "K    read   K_rows\*d\*e             = 16384\*64\*2 .*= *2097152" \
    && pass "explain flash2: K term T_r*N_k*d*e = 2097152" || fail "explain flash2 K term"

# ---- animate: frames, GIF, heatmap; limits ----
expect_exit 2 "animate without --out-dir" -- animate --seqlen 64
expect_exit 2 "animate too many tiles" -- animate --seqlen 4096 --block-r 64 --block-c 64 --out-dir "$T/anim_big"
[ ! -e "$T/anim_big" ] && pass "refused animate creates no directory" || fail "refused animate created $T/anim_big"
expect_exit 2 "animate two algorithms" -- animate --algo flash1,flash2 --out-dir "$T/anim_two"
expect_exit 2 "animate heatmap with one algo" -- animate --heatmap --algo flash2 --out-dir "$T/anim_h"
expect_exit 2 "animate too many frames" -- animate --algo standard --seqlen 256 --block-r 16 --block-c 16 --out-dir "$T/anim_f"
expect_exit 2 "animate bad delay" -- animate --delay 0 --out-dir "$T/anim_d"
if command -v gnuplot >/dev/null 2>&1; then
    "$FASIM" animate --algo flash2 --seqlen 64 --headdim 16 --out-dir "$T/anim" > "$T/a.txt" 2>"$T/err"
    # flash2 with 4 x 4 tiles: 4 Q + 16 K + 16 V + 4 O + 4 LSE = 44 transfers, one frame each
    [ $? -eq 0 ] && [ -s "$T/anim/anim.gif" ] && [ -s "$T/anim/frame_0044.png" ] && [ ! -e "$T/anim/frame_0045.png" ] && [ ! -s "$T/err" ] \
        && pass "animate flash2: 44 frames and a GIF" || fail "animate flash2: $(cat "$T/err" "$T/a.txt")"
    "$FASIM" animate --heatmap --seqlen 256 --headdim 16 --out-dir "$T/heat" > "$T/h.txt" 2>"$T/err"
    [ $? -eq 0 ] && [ -s "$T/heat/heatmap.png" ] && grep -A5 '^flash1' "$T/h.txt" | grep -Eq 'O write +5 +5 +5 +5$' \
        && grep -A5 '^flash2' "$T/h.txt" | grep -Eq 'K read +4 +4 +4 +4$' \
        && pass "animate --heatmap: flash1 writes each O tile T_c + 1 = 5 times, flash2 reads each K tile T_r = 4 times" \
        || fail "animate --heatmap: $(cat "$T/err" "$T/h.txt")"
else
    skip "animate flash2: 44 frames and a GIF" "no gnuplot"
    skip "animate --heatmap: flash1 writes each O tile 5 times, flash2 reads each K tile 4 times" "no gnuplot"
fi

# ---- inference: --decode, --splits, --gqa, --page-size, --cu-seqlens (docs/inference.md) ----
expect_exit 2 "decode without kv-len" -- io --decode
expect_exit 2 "decode with seqlen-k" -- io --decode --kv-len 100 --seqlen-k 50
expect_exit 2 "page size 0" -- io --decode --kv-len 100 --page-size 0
expect_exit 2 "splits 0" -- io --decode --kv-len 100 --splits 0
expect_exit 2 "splits > T_c" -- io --decode --kv-len 100 --splits 8 --block-r 16 --block-c 16
expect_exit 2 "page size not dividing B_c" -- io --decode --kv-len 100 --page-size 24 --block-r 16 --block-c 16
expect_exit 2 "bad --gqa" -- io --decode --kv-len 100 --gqa sideways
expect_exit 2 "kv-len without decode" -- io --kv-len 100
expect_exit 2 "cu_seqlens non-monotone" -- io --cu-seqlens 0,5,3,9
expect_exit 2 "cu_seqlens not starting at 0" -- io --cu-seqlens 2,5,9
expect_exit 2 "cu_seqlens vs --seqlen" -- io --cu-seqlens 0,5,9 --seqlen 10
expect_exit 2 "cu_seqlens vs --batch" -- io --cu-seqlens 0,5,9 --batch 3
expect_exit 2 "cu_seqlens-k count" -- io --cu-seqlens 0,5,9 --cu-seqlens-k 0,4
expect_exit 2 "cu_seqlens missing file" -- io --cu-seqlens "$T/none.txt"
expect_exit 2 "check decode splits > T_c" -- check --decode --kv-len 40 --splits 9 --block-r 16 --block-c 16
"$FASIM" sweep --decode --vary kv-len=100,200 --splits 2 --quiet --out "$T/keep.csv" --page-size 0 2>/dev/null
[ "$(cat "$T/keep.csv")" = "keep me" ] && pass "failed decode sweep leaves the old file" || fail "decode sweep truncated a file"
# GQA decoding, 8 query heads on 2 kv heads, N_q = 1, d = 16, fp16, N_k = 77: per head reads
# K = 8*77*16*2 = 19712 B, packed 2*77*16*2 = 4928 B; both equal the closed form
"$FASIM" io --decode --kv-len 77 --heads 8 --kv-heads 2 --headdim 16 --splits 1 --block-r 16 --block-c 16 --format json > "$T/d.json"
v=$(jq -r '[.[] | .tensors.K.read_bytes] | @csv' "$T/d.json")
[ "$v" = "19712,4928" ] && jq -e 'all(.[]; .formula_match)' "$T/d.json" >/dev/null && pass "decode GQA 8/2: K bytes per head vs packed" || fail "decode GQA K bytes: $v"
# split S = 4 of T_c = 5 (B_c = 16): partials 8 heads x 4 x (16 + 1) x 4 B written and read = 4352
v=$("$FASIM" io --decode --kv-len 77 --heads 8 --kv-heads 2 --headdim 16 --splits 4 --gqa packed --block-r 16 --block-c 16 --format json | jq -r '.[1] | [.splits, .partial_bytes, .formula_match] | @csv')
[ "$v" = "4,4352,true" ] && pass "split-KV partial bytes" || fail "split-KV partial bytes: $v"
# paged P = 16: block-table entries 5 per thread block (one per tile) x 4 B x 2 groups = 40
v=$("$FASIM" io --decode --kv-len 77 --heads 8 --kv-heads 2 --headdim 16 --splits 1 --gqa packed --page-size 16 --block-r 16 --block-c 16 --format json | jq -r '.[0] | [.block_table_bytes, .tensors.K.read_bytes, .formula_match] | @csv')
[ "$v" = "40,4928,true" ] && pass "paged: block-table bytes, K bytes as contiguous" || fail "paged: $v"
"$FASIM" io --decode --kv-len 32768 --model analysis/models/llama-3-8b.json | grep -q "packed: split-KV S = " && pass "io --decode shows the split" || fail "io --decode split line"
"$FASIM" check --decode --kv-len 300 --seqlen 3 --causal --heads 8 --kv-heads 2 --page-size 16 --splits 4 --block-r 16 --block-c 32 | grep -q "all passed" && pass "check --decode --page-size" || fail "check decode"
printf '0\n5\n5\n37\n100\n' > "$T/cu.txt"
"$FASIM" check --cu-seqlens "$T/cu.txt" --cu-seqlens-k 0,9,20,20,91 --causal --heads 4 --kv-heads 2 --headdim 24 --splits 2 --block-r 16 --block-c 16 --format json | jq -e 'length == 4 and all(.[]; .pass)' >/dev/null \
    && pass "check --cu-seqlens (file, empty sequences)" || fail "check varlen"
"$FASIM" io --cu-seqlens 0,5,5,37,1000 --heads 4 --kv-heads 2 --causal --format json | jq -e 'all(.[]; .formula_match and .nseq == 4)' >/dev/null && pass "io --cu-seqlens" || fail "io varlen"
"$FASIM" sweep --decode --vary kv-len=1024,4096 --vary splits=1,2 --gqa packed --quiet | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "formula_match") m = i; next } $m != 1 { bad = 1 } END { exit bad || !m || NR != 7 }' \
    && pass "sweep --decode: 4 points (6 rows), counted == formula" || fail "sweep --decode"
grep -q "== decoding: Llama-3-8B" "$T/report.txt" && [ -s "$T/rep/decode.csv" ] && pass "report: decoding table" || fail "report decoding table"

# ---- low precision and external kernels (docs/numerics.md, docs/validate.md) ----
"$FASIM" check --dtype bf16 --seqlen 70 --seqlen-k 45 --causal --headdim 16 --format json > "$T/lp.json" \
    && jq -e 'length == 3 and all(.[]; .pass and .max_abs_err > 0 and .max_abs_err <= 2 * .naive_abs_err)' "$T/lp.json" >/dev/null \
    && pass "check --dtype bf16: every algorithm within 2x naive bf16" || fail "check --dtype bf16"
"$FASIM" check --dtype fp16 --pass bwd --heads 4 --kv-heads 2 --seqlen 40 --headdim 8 --causal >/dev/null \
    && pass "check --dtype fp16 --pass bwd (3x rule)" || fail "check --pass bwd"
"$FASIM" check --dtype fp8_e4m3 --exp2 --seqlen 64 --headdim 32 --format csv | grep -q "^flash2,O,fp8_e4m3,.*,pass$" \
    && pass "check --dtype fp8_e4m3 --exp2" || fail "check fp8 exp2"
"$FASIM" check --save-npy "$T/npy" --dtype bf16 --heads 2 --seqlen 33 --seqlen-k 47 --headdim 8 --causal --layout bnhd --quiet
X="--q $T/npy/q.npy --k $T/npy/k.npy --v $T/npy/v.npy"
"$FASIM" check $X --out "$T/npy/o.npy" --lse "$T/npy/lse.npy" --dout "$T/npy/do.npy" --dq "$T/npy/dq.npy" \
    --dk "$T/npy/dk.npy" --dv "$T/npy/dv.npy" --layout bnhd --bf16 --causal > "$T/ext.txt" \
    && grep -q "^verdict: PASS" "$T/ext.txt" && [ "$(grep -c '  PASS$' "$T/ext.txt")" -eq 5 ] \
    && pass "external .npy (bf16, (B, N, H, d), fwd + bwd): PASS" || fail "external npy: $(cat "$T/ext.txt")"
expect_exit 1 "external: a wrong output fails" -- check $X --out "$T/npy/q.npy" --layout bnhd --bf16 --causal
expect_exit 1 "external: the wrong mask fails" -- check $X --out "$T/npy/o.npy" --layout bnhd --bf16
expect_exit 2 "external: bf16 bits without --bf16" -- check $X --out "$T/npy/o.npy" --layout bnhd
expect_exit 2 "external: missing file" -- check $X --out "$T/npy/none.npy" --bf16
printf 'PK\003\004 not a numpy file' > "$T/bad.npy"
expect_msg "external: bad magic names the file" "bad.npy: not a .npy file (bad magic)" -- check $X --out "$T/bad.npy" --bf16
head -c 150 "$T/npy/o.npy" > "$T/trunc.npy"
expect_msg "external: truncated data named" "trunc.npy: truncated data" -- check $X --out "$T/trunc.npy" --bf16 --layout bnhd
printf "\223NUMPY\001\000\106\000{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }            \n0123456789abcdef" > "$T/fortran.npy"
expect_msg "external: Fortran order named" "Fortran order is not supported" -- check $X --out "$T/fortran.npy" --bf16
printf "\223NUMPY\001\000\032\000{'descr': '<f4', 'shape' }" > "$T/hdr.npy"
expect_exit 2 "external: malformed header" -- check $X --out "$T/hdr.npy" --bf16
expect_msg "external: shape mismatch (k for v) named" "shape mismatch" -- check --q "$T/npy/q.npy" --k "$T/npy/k.npy" --v "$T/npy/q.npy" --out "$T/npy/o.npy" --bf16 --layout bnhd
expect_exit 2 "external: --dout without --dq" -- check $X --out "$T/npy/o.npy" --dout "$T/npy/do.npy" --bf16
"$FASIM" check --study "$T/study" --seqlen 32 --headdim 16 --no-plots --quiet \
    && [ "$(wc -l < "$T/study/err_vs_n.csv")" -eq 41 ] && [ "$(wc -l < "$T/study/err_vs_d.csv")" -eq 21 ] \
    && [ "$(wc -l < "$T/study/err_outliers.csv")" -eq 121 ] && pass "check --study writes the three CSVs" || fail "check --study"

# ---- masks, modifiers, dropout (docs/variants.md) ----
expect_exit 2 "window without numbers" -- io --window 5
expect_exit 2 "window both unbounded" -- io --window -1,-1
expect_exit 2 "window below -1" -- io --window -3,0
expect_exit 2 "softcap negative" -- io --softcap -2
expect_exit 2 "dropout 1" -- io --dropout 1
expect_exit 2 "dropout junk" -- io --dropout abc
expect_exit 2 "alibi with a value" -- io --alibi=yes
printf '32 32\n1 0\n1 1\n' > "$T/bm_bad.txt"
expect_exit 2 "block mask of the wrong size" -- io --seqlen 128 --block-mask "$T/bm_bad.txt"
printf '32 32\n1 0 x\n' > "$T/bm_junk.txt"
expect_exit 2 "block mask with junk" -- io --seqlen 64 --seqlen-k 96 --block-mask "$T/bm_junk.txt"
expect_exit 2 "block mask missing" -- io --block-mask "$T/none.txt"
expect_exit 2 "doc-mask sum" -- io --seqlen 100 --doc-mask 30,50
expect_exit 2 "doc-mask with N_q != N_k" -- io --seqlen 100 --seqlen-k 90 --doc-mask 50,50
printf '0 1\n0 1\n' > "$T/cm_short.txt"
expect_exit 2 "column mask too short" -- io --seqlen 4 --col-mask "$T/cm_short.txt"
printf '0 4\n3 1\n0 4\n0 4\n' > "$T/cm_backwards.txt"
expect_msg "column mask range that ends before it starts" "cm_backwards.txt:2: key 1: the range [3, 1) ends before it starts: lo <= hi (lo = hi masks nothing)" -- io --seqlen 4 --col-mask "$T/cm_backwards.txt"
printf '0 4\n2 2\n0 4 3 3\n0 4 4 2\n' > "$T/cm_backwards2.txt"
expect_msg "column mask second range backwards (lo = hi passes)" "cm_backwards2.txt:4: key 3: the range [4, 2) ends before it starts" -- io --seqlen 4 --col-mask "$T/cm_backwards2.txt"
printf '10\n01\n' > "$T/dm.txt"
expect_exit 2 "dense mask of the wrong size" -- io --seqlen 3 --mask "$T/dm.txt"
printf '32 32\n1 0 0\n1 1 0\n0 1 1\n0 0 1\n' > "$T/bm.txt"
"$FASIM" io --seqlen 128 --seqlen-k 96 --block-mask "$T/bm.txt" --block-r 32 --block-c 32 --pass fwdbwd --format json \
    | jq -e 'all(.[]; .formula_match)' >/dev/null && pass "block mask: counted == closed form, fwd + bwd" || fail "block mask io"
# flash2 K bytes with a block mask aligned to the tiles: 6 nonzero blocks x 32 keys x 64 x 2 B
v=$("$FASIM" io --seqlen 128 --seqlen-k 96 --block-mask "$T/bm.txt" --block-r 32 --block-c 32 --algo flash2 --format json | jq '.[0].tensors.K.read_bytes')
[ "$v" = "24576" ] && pass "block-sparse K bytes (hand value)" || fail "block-sparse K bytes: $v"
"$FASIM" check --seqlen 90 --seqlen-k 120 --window 20,3 --alibi --softcap 4 --dropout 0.25 --seed 5 --heads 4 --kv-heads 2 --block-r 16 --block-c 32 --format json \
    | jq -e 'length == 3 and all(.[]; .pass)' >/dev/null && pass "check: window + ALiBi + softcap + dropout" || fail "check variants"
"$FASIM" io --window 1023,0 --seqlen 8192 --algo flash2 | grep -q "window (1023, 0)" && pass "io names the window" || fail "io window text"

# ---- output robustness ----
echo real > "$T/real.csv"; ln -s "$T/real.csv" "$T/link.csv"
"$FASIM" io --algo flash2 --seqlen 20 --trace "$T/link.csv" >/dev/null
[ -L "$T/link.csv" ] && head -1 "$T/real.csv" | grep -q '^step,' && pass "--trace through a symlink keeps the link" || fail "--trace symlink"
"$FASIM" io --algo flash2 --seqlen 20 --trace /dev/stdout | head -1 | grep -q '^step,' && [ -L /dev/stdout ] && pass "--trace /dev/stdout writes in place" || fail "--trace /dev/stdout"
expect_exit 2 "--trace to a directory" -- io --algo flash2 --trace "$T"
# exit 1 and the message with stdout on /dev/full (expect_msg takes stdout itself)
if [ -w /dev/full ]; then "$FASIM" io > /dev/full 2>"$T/err"; rc=$?; [ $rc -eq 1 ] && grep -q "cannot write standard output" "$T/err" && pass "stdout write error exits 1" || fail "stdout /dev/full: rc $rc"
else skip "stdout write error exits 1" "no writable /dev/full"; fi
expect_exit 2 "sweep: vary and fix" -- sweep --vary seqlen=64 --seqlen 128
expect_exit 2 "sweep: empty list item" -- sweep --vary seqlen=1,,2
expect_exit 2 "--l2 too large, at once" -- io --l2 --seqlen 1048576 --headdim 128 --heads 32 --kv-heads 8 --algo flash2
"$FASIM" --version | grep -q '^fasim ' && pass "--version" || fail "--version"

# ---- varlen backward ----
"$FASIM" io --cu-seqlens 0,5,5,37,1000 --heads 4 --kv-heads 2 --causal --pass bwd --format json | jq -e '.[0].formula_match and .[0].pass == "bwd"' >/dev/null \
    && pass "io --cu-seqlens --pass bwd: counted == closed form" || fail "varlen bwd io"
"$FASIM" check --cu-seqlens 0,5,5,37,100 --cu-seqlens-k 0,9,20,20,91 --causal --heads 4 --kv-heads 2 --headdim 24 --pass bwd | grep -q PASS \
    && pass "check --cu-seqlens --pass bwd (empty sequences)" || fail "varlen bwd check"
expect_exit 2 "decode has no backward" -- io --decode --kv-len 100 --pass bwd
expect_exit 2 "varlen with a window" -- io --cu-seqlens 0,5,9 --window 3,0

# ---- round-2 fixes ----
expect_exit 2 "explain with a doc mask (explain derives windows, not mask files)" -- explain --seqlen 256 --doc-mask 128,128
expect_exit 2 "--trace with --decode" -- io --decode --kv-len 4096 --heads 8 --kv-heads 2 --trace "$T/tr.csv"
expect_exit 2 "--algo with --cu-seqlens" -- io --cu-seqlens 0,5,9 --algo flash1
expect_exit 2 "cu-seqlens junk list" -- io --cu-seqlens 0,5,abc
expect_exit 2 "cu-seqlens empty item" -- io --cu-seqlens 0,,5
expect_exit 2 "doc-mask empty item" -- io --seqlen 128 --doc-mask 64,,64
expect_exit 2 "block mask is a directory" -- io --block-mask "$T"
expect_exit 2 "check --decode --dtype" -- check --decode --kv-len 1000 --dtype bf16
printf 'kernel,B,H,N_q,d,ms\nv2,4,16,256,64,abc\n' > "$T/cm1.csv"
expect_msg "compare: junk time" "cm1.csv:2: column ms = 'abc' must be a finite number > 0" -- compare --measured "$T/cm1.csv"
printf 'kernel,B,H,N_q,d,causal\nv2,4,16,256,64,7\n' > "$T/cm2.csv"
expect_msg "compare: causal 7" "cm2.csv:2: column causal = '7' must be 0 or 1" -- compare --measured "$T/cm2.csv"
printf 'kernel,B,H,N_q,d\n' > "$T/cm3.csv"
expect_msg "compare: no rows" "cm3.csv has a header but no rows" -- compare --measured "$T/cm3.csv"
"$FASIM" io --seqlen 128 --window 20,0 --alibi --algo flash2 --format json | jq -e '.[0].mask == "window (20, 0), ALiBi"' >/dev/null \
    && pass "json names the mask" || fail "json mask"
[ "$("$FASIM" io --seqlen 128 --window 20,0 --algo flash2 --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "mask") m = i; next } { print $m }')" = "window (20; 0)" ] \
    && pass "csv names the mask" || fail "csv mask"
"$FASIM" io --seqlen 128 --softcap 30 --pass bwd --format json 2>/dev/null | jq -e 'length == 2' >/dev/null \
    && pass "softcap backward: standard left out with a note" || fail "softcap bwd algo all"
expect_exit 2 "softcap backward of standard, asked for" -- io --seqlen 128 --softcap 30 --pass bwd --algo standard
if ! "$FASIM" check --save-npy "$T/npy" --seqlen 16 --headdim 8 >/dev/null 2>"$T/err" || [ ! -f "$T/npy/q.npy" ]; then
    fail ".npy check refuses a NaN input: check --save-npy failed: $(cat "$T/err")"
elif ! command -v python3 >/dev/null; then
    skip ".npy check refuses a NaN input" "no python3 to write the NaN"
else
    python3 - "$T/npy/q.npy" "$T/npy/qnan.npy" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
hl = int.from_bytes(b[8:10], "little") + 10 if b[6] == 1 else int.from_bytes(b[8:12], "little") + 12
word = 8 if b"<f8" in b[:hl] else 4 if b"<f4" in b[:hl] else 2
b[hl:hl + word] = b"\xff" * word  # a NaN in the first element
open(sys.argv[2], "wb").write(b)
PY
    expect_exit 2 ".npy check refuses a NaN input" -- check --q "$T/npy/qnan.npy" --k "$T/npy/k.npy" --v "$T/npy/v.npy" --out "$T/npy/o.npy"
fi

# more checks, one file a command or topic, named after it (same helpers, $FASIM, and a copy of
# $T each): CLI_JOBS at once (default one a CPU; CLI_JOBS=1 runs them in turn), each through
# tests/cli_one.sh, then their lines printed file by file in name order and their counts added.
# FASIM_MEMO: the outputs of identical print-only runs (fasim_memo, tests/cli_lib.sh), shared.
FASIM_MEMO="$T/memo"
export FASIM FASIM_MEMO
mkdir -p "$T/memo" "$T/logs"
ls "$(dirname "$0")"/cli_test_*.sh | xargs -P "${CLI_JOBS:-$(nproc 2>/dev/null || echo 2)}" -I{} \
    sh "$(dirname "$0")/cli_one.sh" {} "$T"
for extra in "$(dirname "$0")"/cli_test_*.sh; do
    x=$(basename "$extra" .sh)
    if [ ! -f "$T/logs/$x.cnt" ]; then
        cat "$T/logs/$x.log" 2>/dev/null
        fail "$x: the file did not run to its end (tests/cli_one.sh wrote no counts)"
        continue
    fi
    cat "$T/logs/$x.log"
    read -r xn xf xs < "$T/logs/$x.cnt"
    n=$((n + xn)) fails=$((fails + xf)) skips=$((skips + xs))
done

summary cli
