#!/bin/sh
# valgrind.sh -- runs representative fasim commands under valgrind memcheck; fails on any error
# or leak.  `make valgrind` (also run by `make test` when valgrind is installed).
FASIM=${FASIM:-./build/fasim}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
fails=0
run() {
    $VG "$FASIM" "$@" >/dev/null 2>"$T/err"
    rc=$?
    if [ $rc -eq 99 ] || grep -q "==[0-9]*==" "$T/err"; then
        echo "FAIL valgrind: fasim $*"; cat "$T/err"; fails=$((fails + 1))
    else
        echo "PASS valgrind: fasim $*"
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
run io --seqlen 0
run io --model /nonexistent.json
[ $fails -eq 0 ]
