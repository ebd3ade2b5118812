# cli_lib.sh -- the helpers of the command-line tests, sourced by tests/cli_test.sh (and through
# it by every tests/cli_test_*.sh) and tests/valgrind.sh.  The sourcing script sets FASIM (the
# fasim binary) and T (a temporary directory: every run leaves its stdout in $T/out and its
# stderr in $T/err).  Each check prints one line: PASS NAME, FAIL NAME: why, or SKIP NAME (why).

n=0     # checks run (passed + failed)
fails=0 # checks failed
skips=0 # checks not run here (a missing tool)

pass() { n=$((n + 1)); echo "PASS $1"; }
fail() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL $1"; }

# skip WHAT WHY: the check WHAT cannot run here, because of WHY ("no gnuplot"); counted apart
# from the checks that ran, and reported by summary
skip() { skips=$((skips + 1)); echo "SKIP $1 ($2)"; }

# summary NAME: prints "NAME: P/N passed, S skipped"; returns 1 when a check failed
summary() {
    echo "$1: $((n - fails))/$n passed, $skips skipped"
    [ "$fails" -eq 0 ]
}

# expect_exit CODE NAME -- ARGS: runs fasim ARGS; passes when it exits CODE -- for 2 (bad input)
# also with one line on stderr starting "fasim: " and nothing on stdout.  To check what the
# message says, use expect_msg.
expect_exit() {
    code=$1; name=$2; shift 3
    "$FASIM" "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -ne "$code" ]; then fail "$name: exit $rc, expected $code ($(head -c 300 "$T/err"))"; return; fi
    if [ "$code" -eq 2 ] && ! grep -q "fasim: " "$T/err"; then fail "$name: no message on stderr"; return; fi
    if [ "$code" -eq 2 ] && [ "$(wc -l < "$T/err")" -ne 1 ]; then fail "$name: expected one message line, got: $(cat "$T/err")"; return; fi
    if [ "$code" -eq 2 ] && [ -s "$T/out" ]; then fail "$name: wrote to stdout on error"; return; fi
    pass "$name"
}

# expect_msg [-p] [-x] NAME TEXT -- ARGS: the one check of a refusal and its message: fasim ARGS
# exits 2 with one line on stderr that starts "fasim: " and holds TEXT (a fixed string), and
# nothing on stdout.  -p: the message also holds no byte outside printable ASCII and tab (a
# message that quotes a file's content must escape it).  -x: the message is "fasim: TEXT" exactly.
expect_msg() {
    em_printable=0; em_exact=0
    while :; do
        case $1 in -p) em_printable=1; shift ;; -x) em_exact=1; shift ;; *) break ;; esac
    done
    em_name=$1; em_text=$2; shift 3
    "$FASIM" "$@" >"$T/out" 2>"$T/err"
    em_rc=$?
    if [ "$em_rc" -ne 2 ]; then fail "$em_name: exit $em_rc, expected 2 ($(head -c 300 "$T/err" | od -c | head -3))"; return; fi
    if [ "$(wc -l < "$T/err")" -ne 1 ]; then fail "$em_name: expected one message line, got: $(od -c "$T/err" | head -5)"; return; fi
    if ! grep -q "^fasim: " "$T/err"; then fail "$em_name: the message does not start 'fasim: ': $(cat "$T/err")"; return; fi
    if [ -s "$T/out" ]; then fail "$em_name: wrote to stdout on error"; return; fi
    if [ "$em_printable" = 1 ] && [ "$(LC_ALL=C tr -d '\t\n\040-\176' < "$T/err" | wc -c)" -ne 0 ]; then
        fail "$em_name: non-printable bytes in the message: $(od -c "$T/err" | head -5)"; return
    fi
    if [ "$em_exact" = 1 ] && ! grep -qxF -- "fasim: $em_text" "$T/err"; then
        fail "$em_name: message is not 'fasim: $em_text': $(cat "$T/err")"; return
    fi
    if ! grep -qF -- "$em_text" "$T/err"; then fail "$em_name: message lacks '$em_text': $(cat "$T/err")"; return; fi
    pass "$em_name"
}

# oneline FILE: FILE's text on one line, every run of blanks and newlines one blank -- for a check
# of a note that the report fills into lines by their length (a phrase may break anywhere)
oneline() { tr '\n' ' ' < "$1" | tr -s ' '; }

# nothing_in DIR: DIR holds nothing but directories (no file, no temporary left behind)
nothing_in() { [ -z "$(find "$1" ! -type d 2>/dev/null)" ]; }

# hw_dir_save / hw_dir_restore: keep FASIM_HW_DIR (set, empty or unset) across a check that
# points it elsewhere
hw_dir_save() { hw_saved_dir=${FASIM_HW_DIR-}; hw_saved_set=${FASIM_HW_DIR+set}; }
hw_dir_restore() { if [ "$hw_saved_set" = set ]; then export FASIM_HW_DIR="$hw_saved_dir"; else unset FASIM_HW_DIR; fi; }

# svg_gnuplot BIN SVG: writes BIN/gnuplot, a wrapper that runs the real gnuplot (fasim's PNG) and
# then the same script again with `set terminal svg` into SVG/NAME.K.svg (NAME the script's, K
# counting from 0), so that a check can read the text a plot shows.  Put BIN first in PATH.
svg_gnuplot() {
    sg_real=$(command -v gnuplot)
    mkdir -p "$1" "$2"
    cat > "$1/gnuplot" <<WRAP
#!/bin/sh
# called as: gnuplot -e VARS SCRIPT (analysis/cli/outset.c)
"$sg_real" "\$@" || exit \$?
n=\$(basename "\$3" .gp)
k=\$(ls "$2" | grep -c "^\$n\\.")
mkdir -p "$2/gp"
for g in \$(dirname "\$3")/*.gp; do sed 's/^set terminal pngcairo/set terminal svg/' "\$g" > "$2/gp/\$(basename "\$g")"; done
"$sg_real" -e "\$2; outfile='$2/\$n.\$k.svg'; dir='$2'; sfx='.\$n.svg'; gif='$2/anim.gif.tmp'" "$2/gp/\$n.gp"
WRAP
    chmod +x "$1/gnuplot"
}

# pl_text FILE: the text of an SVG, one <text> element a line, its <tspan> pieces joined
# (2<tspan>35</tspan>: "235")
pl_text() { tr '\n' ' ' < "$1" | sed 's/<text/\n<text/g' | grep '^<text' | sed 's/<\/text>.*//; s/<[^>]*>//g'; }

# pl_has NAME FILE TEXT...: every TEXT (fixed strings) is in FILE's text (pl_text)
pl_has() {
    ph_name=$1 ph_f=$2; shift 2
    [ -s "$ph_f" ] || { fail "$ph_name: no SVG $ph_f"; return; }
    pl_text "$ph_f" > "$T/pl_txt"
    for ph_t in "$@"; do
        grep -qF -- "$ph_t" "$T/pl_txt" || { fail "$ph_name: '$ph_t' not in the plot's text: $(tr '\n' '|' < "$T/pl_txt" | head -c 600)"; return; }
    done
    pass "$ph_name"
}

# cli_judge EX FILE OUT: runs exercise EX's judge on FILE against the library beside $FASIM (its asan
# build when $FASIM is), output in OUT; returns 1 (nothing run) without that library or a C compiler
cli_judge() {
    cj_lib=$(dirname "$FASIM")/libfasim.a
    [ -f "$cj_lib" ] && command -v "${CC:-gcc}" >/dev/null 2>&1 || return 1
    [ -f "$T/cj_lib.a" ] || cp "$cj_lib" "$T/cj_lib.a"
    cj_flags="-O1 -g -Wall -Wextra -Wno-unused-parameter"
    case "$FASIM" in */asan/*) cj_flags="$cj_flags -fsanitize=address,undefined -fno-omit-frame-pointer" ;; esac
    LIB="$T/cj_lib.a" EXOUT="$T/cj_ex" EXFLAGS="$cj_flags" sh "$(dirname "$0")/../docs/exercises/judge.sh" "$1" "$2" > "$3" 2>&1
    return 0
}


# fasim_memo ARGS: runs "$FASIM" ARGS -- its stdout, stderr and exit status -- or, when an identical
# run already happened in this test run, replays that one's.  The key is $FASIM, the working
# directory, ARGS and the bytes of every ARGS that names a file, so an edited input runs again.
# For commands that only print (compare on the committed measurements takes 20-30 s under ASan,
# and a dozen test files ask for the same few): never for one that writes files.  The memory is
# $FASIM_MEMO, a directory every test file of one run shares (tests/cli_test.sh sets it); unset,
# every call runs.  Two files asking at once: the first computes, the other waits for it.
fasim_memo() {
    if [ -z "${FASIM_MEMO:-}" ]; then "$FASIM" "$@"; return; fi
    fm_key=$( { printf '%s\n' "$FASIM" "$(pwd)" "$@"; for fm_a in "$@"; do [ -f "$fm_a" ] && cat "$fm_a"; done; } |
              cksum | tr ' ' '_')
    fm_m="$FASIM_MEMO/$fm_key"
    if mkdir "$fm_m.lock" 2>/dev/null; then
        "$FASIM" "$@" > "$fm_m.out" 2> "$fm_m.err"
        echo $? > "$fm_m.rc.tmp" && mv "$fm_m.rc.tmp" "$fm_m.rc"
    else
        while [ ! -f "$fm_m.rc" ]; do sleep 1; done
    fi
    cat "$fm_m.out"
    cat "$fm_m.err" >&2
    return "$(cat "$fm_m.rc")"
}
