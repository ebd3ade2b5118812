#!/bin/sh
# bench.sh -- `make bench`: the CPU benchmarks (speed is measured here, never in tests).
# usage: tests/bench.sh FASIM BENCH
set -e
FASIM=$1
BENCH=$2
echo "== fasim io --algo all --seqlen 1048576 --headdim 128 (H200 profile), 5 runs of the command"
for i in 1 2 3 4 5; do
    t0=$(date +%s%N)
    "$FASIM" io --algo all --seqlen 1048576 --headdim 128 --hw h200 >/dev/null
    t1=$(date +%s%N)
    echo "  run $i: $(( (t1 - t0) / 1000000 )) ms (whole process)"
done
echo "== in-process benchmarks"
"$BENCH"
