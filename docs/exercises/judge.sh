#!/bin/sh
# judge.sh NN [FILE] -- builds FILE (default: exercise NN's student.c) together with the exercise's
# judge against libfasim, runs the judge, and exits with its status (0 solved, 1 not yet,
# 2 build error or bad usage).  `make exercise EX=NN [FILE=path.c]` calls it.
# Environment: CC, EXFLAGS (compile flags), LIB (libfasim.a), EXOUT (where binaries go).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EX=$1
FILE=$2
list=$(cd "$ROOT/docs/exercises" && ls -d [0-9][0-9]-*/ | sed 's,-.*,,' | tr '\n' ' ' | sed 's/ $//')
dir=""
[ -n "$EX" ] && dir=$(ls -d "$ROOT"/docs/exercises/"$EX"-*/ 2>/dev/null | head -1)
if [ -z "$dir" ]; then
    echo "judge: no exercise '$EX' (use make exercise EX=NN with NN one of: $list)" >&2
    exit 2
fi
dir=${dir%/}
FILE=${FILE:-$dir/student.c}
# FILE is one C source file: the student's copy of $dir/student.c
if [ -d "$FILE" ]; then
    echo "judge: $FILE is a directory; expected one C file with exercise $EX's functions (the default: ${dir#"$ROOT"/}/student.c)" >&2
    exit 2
fi
[ -f "$FILE" ] || { echo "judge: no file $FILE; expected one C file with exercise $EX's functions (the default: ${dir#"$ROOT"/}/student.c)" >&2; exit 2; }
LIB=${LIB:-$ROOT/build/libfasim.a}
EXOUT=${EXOUT:-$ROOT/build/exercises}
CC=${CC:-gcc}
EXFLAGS=${EXFLAGS:--O1 -g -Wall -Wextra -Wno-unused-parameter}
# the library first: a missing one is not the student's fault (the link step would blame FILE)
if [ ! -f "$LIB" ]; then
    echo "judge: the library $LIB is missing: build it first (make exercise EX=$EX builds it, or make)" >&2
    exit 2
fi
mkdir -p "$EXOUT" || exit 2
bin=$EXOUT/ex$EX-$(basename "$(dirname "$FILE")")-$(basename "$FILE" .c)
# shellcheck disable=SC2086
$CC -std=c11 $EXFLAGS -D_POSIX_C_SOURCE=200809L -I"$ROOT/sim" -I"$ROOT/cpu_ref" -I"$ROOT/analysis" \
    -I"$ROOT/docs/exercises/common" -I"$dir" "$FILE" "$dir/judge.c" "$LIB" \
    -ljansson -lgsl -lgslcblas -lm -o "$bin" || { echo "judge: $FILE does not compile (see above)" >&2; exit 2; }
echo "== exercise $EX: judging $FILE"
"$bin"
