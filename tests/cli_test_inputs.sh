# cli_test_inputs.sh -- every file argument refuses what is not a regular file, at once: /dev/zero
# (which a reader would read forever) and a FIFO (which would block the open), exit 2 with one
# message naming the file (issue 14's readers).  Sourced by cli_test.sh.
mkfifo "$T/fifo" 2>/dev/null
for arg in "check --q @ --k @ --v @ --out @" "io --block-mask @" "io --col-mask @" "io --mask @" "io --cu-seqlens @" \
    "io --model @" "compare --measured @" "report --model @ --no-plots --out-dir $T/rz"; do
    for f in /dev/zero "$T/fifo"; do
        a=$(echo "$arg" | sed "s|@|$f|g")
        # shellcheck disable=SC2086
        timeout 10 "$FASIM" $a >/dev/null 2>"$T/err"; rc=$?
        [ $rc = 2 ] && grep -q "is a .*, not a regular file: give a file" "$T/err" \
            && pass "$(echo "$a" | cut -d' ' -f1-2) $(basename "$f"): refused at once" \
            || fail "$a: exit $rc, $(head -c 200 "$T/err")"
    done
done
[ ! -e "$T/rz" ] && pass "report with a refused --model made no directory" || fail "report made $T/rz"
