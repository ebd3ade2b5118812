# cli_test_explain.sh -- `fasim explain`: 'all' inside an --algo list is refused (it stands
# alone).  Sourced by tests/cli_test.sh (tests/cli_lib.sh: expect_msg; $T, $FASIM); the
# derivation's numbers are checked in cli_test.sh, its tiles in cli_test_profile.sh.
expect_msg "explain --algo all,flash2: all stands alone" "'all' stands alone" -- explain --algo all,flash2
