#!/bin/sh
# cli_golden.sh -- byte-identical outputs across the command-line redesign (issue 13): the
# --trace CSV and the --format json counts of a fixed set of shapes, recorded in tests/golden/
# before the redesign; every later build must reproduce them exactly.
#   FASIM=build/fasim sh tests/cli_golden.sh            compare (exit 1 on any difference)
#   FASIM=build/fasim sh tests/cli_golden.sh --update   re-record (only when a count is meant to change)
set -u
FASIM=${FASIM:-./build/fasim}
DIR=$(dirname "$0")/golden
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
update=0
[ "${1:-}" = "--update" ] && update=1
fails=0
n=0
# name | t (also --trace) or - | arguments (word-split): each case writes name.json (stdout of
# --format json) and, with t, name.trace.csv (--trace FILE)
while IFS='|' read -r name trace args; do
  case "$name" in ''|'#'*) continue;; esac
  n=$((n + 1))
  # shellcheck disable=SC2086
  "$FASIM" io $args --format json >"$T/$name.json" 2>"$T/$name.err" || echo "exit $?" >>"$T/$name.json"
  # shellcheck disable=SC2086
  [ "$trace" = t ] && { "$FASIM" io $args --trace "$T/$name.trace.csv" >/dev/null 2>>"$T/$name.err" || echo "exit $?" >>"$T/$name.trace.csv"; }
  for f in "$T/$name.json" "$T/$name.trace.csv"; do
    [ -f "$f" ] || continue
    g="$DIR/$(basename "$f")"
    if [ $update = 1 ]; then cp "$f" "$g"
    elif ! cmp -s "$f" "$g"; then echo "FAIL golden $(basename "$f"): differs from tests/golden (fasim io $args)"; diff "$g" "$f" | head -5; fails=$((fails + 1)); fi
  done
done <<'CASES'
fwd_flash2|t|--algo flash2 --batch 1 --heads 2 --seqlen 256 --headdim 64
fwd_flash1|t|--algo flash1 --batch 1 --heads 2 --seqlen 256 --headdim 64 --dtype bf16
fwd_standard|t|--algo standard --batch 1 --heads 1 --seqlen 128 --headdim 32
fwd_causal|t|--algo flash2 --batch 1 --heads 2 --seqlen 300 --seqlen-k 257 --headdim 64 --causal
fwd_topleft|t|--algo flash1 --seqlen 200 --headdim 64 --causal=top-left --block-r 32 --block-c 48
fwd_gqa|t|--algo flash2 --batch 2 --heads 8 --kv-heads 2 --seqlen 256 --headdim 128 --dtype fp16
fwd_window|t|--algo flash2 --seqlen 512 --headdim 64 --window 63,0 --blocks paper
fwd_paper|t|--algo flash2 --seqlen 512 --headdim 64 --profile paper --sram 64KiB
fwd_softcap|t|--algo flash2 --seqlen 256 --headdim 64 --softcap 30 --alibi
fwd_dropout|t|--algo flash2 --seqlen 256 --headdim 64 --dropout 0.1 --seed 7
bwd_flash2|t|--algo flash2 --pass bwd --batch 1 --heads 2 --seqlen 256 --headdim 64
bwd_flash1|t|--algo flash1 --pass bwd --seqlen 256 --headdim 64 --causal
bwd_standard|t|--algo standard --pass bwd --seqlen 128 --headdim 64
fwdbwd_all|-|--algo all --pass fwdbwd --batch 2 --heads 4 --seqlen 512 --headdim 64 --hw a100
fwd_all_h100|-|--algo all --batch 4 --heads 16 --seqlen 2048 --headdim 128 --hw h100 --causal
fwd_l2|t|--algo flash2 --batch 1 --heads 4 --seqlen 1024 --headdim 64 --l2
fwd_decode|-|--decode --kv-len 4096 --heads 32 --kv-heads 8 --headdim 128 --splits 4
fwd_paged|-|--decode --kv-len 1000 --page-size 256 --headdim 64
fwd_doc|t|--algo flash2 --seqlen 512 --headdim 64 --doc-mask 100,300,112
fwd_model|-|--algo all --model analysis/models/gpt2-medium.json --seqlen 1024
CASES
# fasim sweep's JSON over a range (the rows it builds from the same option table)
for c in "seqlen=128:1024:x2 --algo all --headdim 64|sweep_seqlen" "block-r=16:64:+16 --algo flash2 --seqlen 256 --block-c 32|sweep_block"; do
  args=${c%%|*} name=${c##*|}
  n=$((n + 1))
  # shellcheck disable=SC2086
  "$FASIM" sweep --vary $args --format json >"$T/$name.json" 2>&1 || echo "exit $?" >>"$T/$name.json"
  if [ $update = 1 ]; then cp "$T/$name.json" "$DIR/$name.json"
  elif ! cmp -s "$T/$name.json" "$DIR/$name.json"; then echo "FAIL golden $name.json: differs (fasim sweep --vary $args)"; fails=$((fails + 1)); fi
done
echo "golden: $n cases, $fails differences"
[ $fails = 0 ]
