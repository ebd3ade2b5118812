# cli_test_animate_frames.sh -- `fasim animate` into a directory that holds a longer animation of
# an earlier run: the frames numbered past this run's last are removed, so DIR holds one
# animation (the GIF and the PNGs agree).  Sourced by cli_test.sh (tests/cli_lib.sh: pass, fail,
# skip; $T, $FASIM).
if command -v gnuplot >/dev/null 2>&1; then
    "$FASIM" animate --algo flash1 --causal --seqlen 64 --headdim 16 --out-dir "$T/o_fr" >"$T/out1" 2>"$T/err" \
        || fail "animate flash1 causal: $(cat "$T/err")"
    n1=$(ls "$T/o_fr" | grep -c '^frame_[0-9]*\.png$')
    "$FASIM" animate --algo flash2 --seqlen 64 --headdim 16 --out-dir "$T/o_fr" >"$T/out2" 2>"$T/err" \
        || fail "animate flash2 into the same directory: $(cat "$T/err")"
    n2=$(ls "$T/o_fr" | grep -c '^frame_[0-9]*\.png$')
    want=$(sed -n 's/^flash2: \([0-9]*\) transfers.*/\1/p' "$T/out2")
    [ "$n1" -gt "$n2" ] && pass "flash1 causal draws more frames ($n1) than flash2 ($n2)" \
        || fail "frame counts flash1 $n1, flash2 $n2"
    [ "$n2" = "$want" ] && pass "after the second run the directory holds its $want frames only" \
        || fail "directory holds $n2 frames, the run drew $want"
    grep -q "removed frame_$(printf %04d $((want + 1))).png .. frame_$(printf %04d "$n1").png of an earlier run" "$T/out2" \
        && pass "animate says which stale frames it removed" || fail "stale-frame message: $(cat "$T/out2")"
    echo "not a frame" > "$T/o_fr/frame_notes.txt"
    "$FASIM" animate --algo flash2 --seqlen 64 --headdim 16 --out-dir "$T/o_fr" >/dev/null 2>&1
    [ -f "$T/o_fr/frame_notes.txt" ] && pass "animate leaves files that are not its frames" \
        || fail "animate removed frame_notes.txt"
else
    for af_c in "flash1 causal draws more frames than flash2" "after the second run the directory holds its frames only" \
                "animate says which stale frames it removed" "animate leaves files that are not its frames"; do
        skip "$af_c" "no gnuplot"
    done
fi
