#!/bin/sh
# exercises.sh -- proves every course exercise (docs/exercises/NN-name/) solvable and its judge
# strict: the reference solution (solutions/NN.c) must pass, the planted wrong solution
# (wrong/NN.c) and the untouched student stub must fail -- the stub at most half of its checks
# (a budget check must not pass for code that does nothing; judge.h's judge_budget) -- and all three
# report the same number of checks (the judge's, not the submission's).  Built with
# -Werror and the sanitizers against the ASan library; run by `make test`.  One PASS/FAIL line per
# file.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
J="$ROOT/docs/exercises/judge.sh"
export LIB=${LIB:-$ROOT/build/asan/libfasim.a}
export EXOUT=${EXOUT:-$ROOT/build/asan/exercises}
export EXFLAGS=${EXFLAGS:--O1 -g -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all}
export ASAN_OPTIONS=detect_leaks=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# a private copy: a concurrent `make` may be re-archiving the library meanwhile
cp "$LIB" "$T/libfasim.a" || { echo "FAIL exercises: no library $LIB"; exit 1; }
LIB=$T/libfasim.a
fails=0
n=0
expect() { # expect STATUS NN FILE WHAT [stub]
    n=$((n + 1))
    sh "$J" "$2" "$3" >"$T/out" 2>&1
    rc=$?
    np=$(grep -c '^PASS' "$T/out")
    nc=$(grep -c '^\(PASS\|FAIL\|SKIP\)' "$T/out")
    # the total of the verdict line ("all N checks passed", "P of N checks passed"), per exercise
    total=$(tail -1 "$T/out" | sed -n 's/.*: all \([0-9]*\) checks passed.*/\1/p; s/.*: [0-9]* of \([0-9]*\) checks passed.*/\1/p')
    [ -z "$total_first" ] && total_first=$total
    if [ "$total" != "$total_first" ] || [ "$total" != "$nc" ]; then
        fails=$((fails + 1))
        echo "FAIL exercise $2: $4: $total checks reported ($nc lines), $total_first for the reference solution -- the count must not depend on the submission"
        return
    fi
    if [ "$rc" -eq "$1" ] && [ -n "$5" ] && [ $((2 * np)) -gt "$nc" ]; then
        fails=$((fails + 1))
        echo "FAIL exercise $2: $4: the untouched stub passes $np of $nc checks (vacuous budget checks?)"
        grep '^PASS' "$T/out"
    elif [ "$rc" -eq "$1" ]; then
        echo "PASS exercise $2: $4 ($(tail -1 "$T/out" | cut -c1-90))"
    else
        fails=$((fails + 1))
        echo "FAIL exercise $2: $4: judge exit $rc, expected $1"
        cat "$T/out"
    fi
}
for dir in "$ROOT"/docs/exercises/[0-9][0-9]-*/; do
    nn=$(basename "$dir" | cut -c1-2)
    [ -f "$ROOT/docs/exercises/solutions/$nn.c" ] || { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL exercise $nn: no solutions/$nn.c"; continue; }
    [ -f "$ROOT/docs/exercises/wrong/$nn.c" ] || { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL exercise $nn: no wrong/$nn.c"; continue; }
    [ -f "$dir/README.md" ] || { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL exercise $nn: no README.md"; continue; }
    total_first=""
    expect 0 "$nn" "$ROOT/docs/exercises/solutions/$nn.c" "reference solution accepted"
    expect 1 "$nn" "$ROOT/docs/exercises/wrong/$nn.c" "planted wrong solution rejected"
    expect 1 "$nn" "$dir/student.c" "student stub compiles and fails" stub
done
# bad usage: exit 2 with a message
sh "$J" 99 >/dev/null 2>"$T/err"; rc=$?
n=$((n + 1))
if [ $rc -eq 2 ] && grep -q "no exercise" "$T/err"; then echo "PASS judge: unknown exercise exits 2"; else fails=$((fails + 1)); echo "FAIL judge: unknown exercise: exit $rc"; fi
# a directory where the file should be: exit 2, saying what it expected
sh "$J" 01 "$T" >/dev/null 2>"$T/err"; rc=$?
n=$((n + 1))
if [ $rc -eq 2 ] && grep -q "is a directory; expected one C file" "$T/err" && grep -q "01-online-softmax/student.c" "$T/err"; then
    echo "PASS judge: a directory for FILE exits 2 and names the file expected"
else fails=$((fails + 1)); echo "FAIL judge: a directory for FILE: exit $rc, $(cat "$T/err")"; fi
# the library missing (judge.sh run before make): exit 2, saying so, not blaming the student's file
LIB=$T/no-such-lib.a sh "$J" 01 >/dev/null 2>"$T/err"; rc=$?
n=$((n + 1))
if [ $rc -eq 2 ] && grep -q "the library $T/no-such-lib.a is missing: build it first" "$T/err" && ! grep -q "does not compile" "$T/err"; then
    echo "PASS judge: a missing library exits 2 and says to build it first"
else fails=$((fails + 1)); echo "FAIL judge: a missing library: exit $rc, $(cat "$T/err")"; fi
echo "exercises: $((n - fails))/$n passed"
[ "$fails" -eq 0 ]
