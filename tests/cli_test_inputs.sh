# cli_test_inputs.sh -- every file argument refuses what is not a regular file, at once: /dev/zero
# (which a reader would read forever) and a FIFO (which would block the open), exit 2 within a
# second with one message naming the file (issue 14's readers).  Each of check's nine tensor
# files is tried in its own place, the others being a valid sample problem.  Sourced by cli_test.sh.
mkfifo "$T/fifo" 2>/dev/null
"$FASIM" check --save-npy "$T/in" --dtype fp32 --seqlen 16 --headdim 8 --quiet
ok="--q $T/in/q.npy --k $T/in/k.npy --v $T/in/v.npy --out $T/in/o.npy --lse $T/in/lse.npy"
ok="$ok --dout $T/in/do.npy --dq $T/in/dq.npy --dk $T/in/dk.npy --dv $T/in/dv.npy"
"$FASIM" check $ok >/dev/null 2>&1 && pass "inputs: the sample problem passes check" || fail "inputs: the sample problem fails check"
hw_dir_save
mkdir -p "$T/hwz"
ln -sf /dev/zero "$T/hwz/h200-sxm.hw"
for arg in "check @q" "check @k" "check @v" "check @out" "check @lse" "check @dout" "check @dq" "check @dk" "check @dv" \
    "io --block-mask @" "io --col-mask @" "io --mask @" "io --cu-seqlens @" "io --model @" "compare --measured @" \
    "report --model @ --no-plots --out-dir $T/rz" "hw"; do
    for f in /dev/zero "$T/fifo"; do
        case $arg in
        "check @"*) o=${arg#check @}; a="check $(echo "$ok" | sed "s|--$o [^ ]*|--$o $f|")" ;;
        hw) a="io"; [ "$f" = /dev/zero ] || ln -sf "$T/fifo" "$T/hwz/h200-sxm.hw"; export FASIM_HW_DIR="$T/hwz" ;;
        *) a=$(echo "$arg" | sed "s|@|$f|g") ;;
        esac
        t0=$(date +%s%N)
        # shellcheck disable=SC2086
        timeout 10 "$FASIM" $a >/dev/null 2>"$T/err"; rc=$?
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        hw_dir_restore
        [ $rc = 2 ] && [ "$ms" -lt 1000 ] && [ "$(wc -l < "$T/err")" = 1 ] \
            && grep -q "is a .*, not a regular file: give a file" "$T/err" \
            && pass "$arg $(basename "$f"): refused in $ms ms" \
            || fail "$arg $(basename "$f"): exit $rc after $ms ms, $(head -c 200 "$T/err")"
    done
done
[ ! -e "$T/rz" ] && pass "report with a refused --model made no directory" || fail "report made $T/rz"
