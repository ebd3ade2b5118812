#!/bin/sh
# tutorial.sh [--update] -- runs every command of docs/tutorial.md and compares its output with
# the output committed under it (or, with --update, rewrites the output blocks; `make tutorial`).
# A command is a line "$ fasim ..." inside a ```console block; the lines after it, up to the next
# "$ " line or the end of the block, are its output.  Run from the repository root with FASIM set.
FASIM=${FASIM:-./build/fasim}
DOC=${DOC:-docs/tutorial.md}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p build/tutorial
awk -v fasim="$FASIM" '
    /^```console$/ { print; inblk = 1; skip = 0; next }
    inblk && /^\$ fasim / {
        print
        c = substr($0, 3); sub(/^fasim/, fasim, c); c = c " 2>&1"
        while ((c | getline l) > 0) print l
        close(c); skip = 1; next
    }
    inblk && /^```$/ { print; inblk = 0; skip = 0; next }
    inblk && skip { next }
    { print }
' "$DOC" > "$T/new.md" || { echo "FAIL tutorial: could not run the commands"; exit 1; }
if [ "$1" = "--update" ]; then
    cp "$T/new.md" "$DOC" && echo "tutorial: rewrote the outputs of $(grep -c '^\$ fasim ' "$DOC") commands in $DOC"
    exit $?
fi
if diff -u "$DOC" "$T/new.md" > "$T/diff"; then
    echo "PASS tutorial: the outputs of all $(grep -c '^\$ fasim ' "$DOC") commands in $DOC are current"
else
    echo "FAIL tutorial: $DOC is stale (run make tutorial); differences:"
    head -60 "$T/diff"
    exit 1
fi
