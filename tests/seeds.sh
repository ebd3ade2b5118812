#!/bin/sh
# seeds.sh -- the built-in check suites over many seeds: `fasim check --dtype D --pass P --seed S`
# for every dtype, both passes and seeds 1..SEEDS (default 100), JOBS at a time (default: the
# CPUs).  Prints one line per (dtype, pass): how many seeds passed, and the failing seeds; exits 1
# when any seed failed (docs/numerics.md "The verdict" records a run).
#   FASIM=build/fasim sh tests/seeds.sh        (make seeds)
FASIM=${FASIM:-build/fasim}
SEEDS=${SEEDS:-100}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for dt in fp32 bf16 fp16 fp8_e4m3 fp8_e5m2; do
    for p in fwd bwd; do
        s=1
        while [ "$s" -le "$SEEDS" ]; do echo "$dt $p $s"; s=$((s + 1)); done
    done
done | xargs -P "$JOBS" -n 3 sh -c '"$0" check --dtype "$1" --pass "$2" --seed "$3" --quiet >/dev/null 2>&1; echo "$1 $2 $3 $?"' "$FASIM" > "$T/all"
bad=0
printf '%-9s %-4s %-12s %s\n' dtype pass passed "failing seeds"
for dt in fp32 bf16 fp16 fp8_e4m3 fp8_e5m2; do
    for p in fwd bwd; do
        ok=$(awk -v d="$dt" -v p="$p" '$1 == d && $2 == p && $4 == 0' "$T/all" | wc -l)
        failing=$(awk -v d="$dt" -v p="$p" '$1 == d && $2 == p && $4 != 0 { print $3 }' "$T/all" | sort -n | tr '\n' ' ')
        printf '%-9s %-4s %3d of %-5d %s\n' "$dt" "$p" "$ok" "$SEEDS" "$failing"
        [ "$ok" -ne "$SEEDS" ] && bad=1
    done
done
exit $bad
