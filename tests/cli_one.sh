#!/bin/sh
# cli_one.sh FILE BASE -- runs one tests/cli_test_*.sh FILE for tests/cli_test.sh, which starts one
# of these a CPU: FASIM, FASIM_MEMO as there; T a new directory holding a copy of BASE (the main
# checks' files, which some topic files read); FILE's PASS/FAIL/SKIP lines to BASE/logs/NAME.log,
# its counts "checks failed skipped" to BASE/logs/NAME.cnt.  Run from the repository root, like
# cli_test.sh ($0's directory is the tests' folder either way).
# (names a topic file will not reuse: the files set variables of their own, name and f among them)
cli1_base=$2
cli1_log="$2/logs/$(basename "$1" .sh).log"
cli1_cnt="$2/logs/$(basename "$1" .sh).cnt"
cli1_file=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the main checks' files, not the memory or the other files' logs
(cd "$cli1_base" && find . -maxdepth 1 ! -name . ! -name memo ! -name logs -exec cp -R {} "$T/" \;)
. "$(dirname "$0")/cli_lib.sh"
. "$cli1_file" > "$cli1_log" 2>&1
echo "$n $fails $skips" > "$cli1_cnt"
