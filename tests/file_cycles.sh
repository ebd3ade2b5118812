#!/bin/sh
# file_cycles.sh -- no source file calls back into a file that calls it (issue 13): the
# file-level call graph of the build's objects (nm: the symbols each defines and uses) has no
# cycle.  Usage: sh tests/file_cycles.sh BUILD_DIR   (the objects under BUILD_DIR/obj)
set -u
B=${1:-build}
objs=$(find "$B/obj" -name '*.o' ! -path '*/tests/*' | sort)
[ -n "$objs" ] || { echo "FAIL file cycles: no objects under $B/obj"; exit 1; }
for o in $objs; do nm "$o" | awk -v f="${o#"$B"/obj/}" '
    NF == 3 && $2 ~ /^[TDBRC]$/ { print "D", f, $3 }
    NF == 2 && $1 == "U" { print "U", f, $2 }'; done | awk '
    $1 == "D" { owner[$3] = $2; files[$2] = 1 }
    $1 == "U" { n++; uf[n] = $2; us[n] = $3; files[$2] = 1 }
    END {
        for (i = 1; i <= n; i++) if ((us[i] in owner) && owner[us[i]] != uf[i]) r[uf[i], owner[us[i]]] = 1
        for (k in files) for (i in files) if ((i, k) in r) for (j in files) if ((k, j) in r) r[i, j] = 1
        bad = 0
        for (i in files) for (j in files) if (i < j && ((i, j) in r) && ((j, i) in r)) {
            printf "FAIL file cycles: %s and %s call each other (directly or through others)\n", i, j; bad++ }
        nf = 0; for (i in files) nf++
        if (!bad) printf "PASS file cycles: %d source files, no file calls back into a file that calls it\n", nf
        exit bad ? 1 : 0
    }'
