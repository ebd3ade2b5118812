#!/bin/sh
# valgrind.sh -- runs representative fasim commands under valgrind memcheck; fails on any error
# or leak.  `make valgrind`, and `make test`; without valgrind every run is a SKIP.
FASIM=${FASIM:-./build/fasim}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# pass, fail, skip, summary: tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
have_vg=0
command -v valgrind >/dev/null 2>&1 && have_vg=1
run() {
    if [ $have_vg = 0 ]; then skip "valgrind: fasim $*" "no valgrind"; return; fi
    $VG "$FASIM" "$@" >/dev/null 2>"$T/err"
    rc=$?
    if [ $rc -eq 99 ] || grep -q "==[0-9]*==" "$T/err"; then
        fail "valgrind: fasim $*"; cat "$T/err"
    else
        pass "valgrind: fasim $*"
    fi
}
run io --algo all --seqlen 1000 --causal --breakdown --format json
run io --algo flash1 --seqlen 100 --trace "$T/t.csv"
run check --seqlen 70 --seqlen-k 45 --causal --heads 4 --kv-heads 2 --headdim 16
run sweep --vary seqlen=64:1024:x4 --quiet
run report --no-plots --quiet --out-dir "$T/rep"
run check --dtype bf16 --seqlen 40 --seqlen-k 33 --causal --headdim 8 --pass bwd
run io --seqlen 300 --window 40,3 --alibi --softcap 5 --dropout 0.1 --pass fwdbwd --l2 --breakdown
run check --seqlen 45 --doc-mask 20,25 --block-r 16 --block-c 16
run check --seqlen 50 --window 10,0 --dropout 0.2 --heads 2 --headdim 8 --block-r 16 --block-c 16
run io --decode --kv-len 300 --heads 8 --kv-heads 2 --splits 2 --page-size 16 --block-r 16 --block-c 16
run check --cu-seqlens 0,5,5,37,60 --causal --heads 2 --headdim 8 --pass bwd
run explain --seqlen 256 --block-r 64 --block-c 64 --causal
run compare --measured analysis/measured/h200/compare_input.csv --hw h200 --no-l2
run io --seqlen 0
run io --model /nonexistent.json
summary valgrind
