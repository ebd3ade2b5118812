# cli_test_reader24.sh -- issue 19, the twenty-fourth reader's findings (/work/notes/reader24_findings.md,
# items 3-6): where the tutorial's `fasim` is, the two decoding time models side by side, a plot's log
# axes, the B200 roofline beside the time model, report's overflow limit, check/animate's own
# --block-r wording and help text into a closed pipe.  Sourced by tests/cli_test.sh (FASIM, T,
# pass/fail/expect_msg from cli_lib.sh).
R24_ROOT="$(dirname "$0")/.."

# ---- 3: the tutorial says how to run its `$ fasim ...` commands (./build/fasim after make, or build/ on PATH) ----
grep -qxF 'export PATH=$PWD/build:$PATH    # from the repository root; then `fasim io ...` runs ./build/fasim' "$R24_ROOT/docs/tutorial.md" \
    && [ "$(awk '/^export PATH=\$PWD\/build:\$PATH/ {print NR; exit}' "$R24_ROOT/docs/tutorial.md")" -lt "$(awk '/^\$ fasim / {print NR; exit}' "$R24_ROOT/docs/tutorial.md")" ] \
    && grep -q '^or type `./build/fasim` where a command says `fasim`' "$R24_ROOT/docs/tutorial.md" \
    && grep -q '^BUILD *?= build$' "$R24_ROOT/Makefile" \
    && pass "reader24 #3: the tutorial says, before its first command, that make builds ./build/fasim and how to put it on PATH" \
    || fail "reader24 #3: the tutorial does not say where fasim is"
