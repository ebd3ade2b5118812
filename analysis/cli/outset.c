/* outset.c -- the command line's side of an all-or-nothing set of output files
 * (analysis/outfile.c): the messages and exit statuses. */
#include "cli_outset.h"

int cli_outset_mkdir(cli_outset *os, const char *dir)
{
    fa_status st = fa_outset_mkdir(os, dir);
    return st ? cli_fail(st) : 0;
}

int cli_outset_add(cli_outset *os, const char *path, int keep_open)
{
    int i = fa_outset_add(os, path, keep_open);
    if (i < 0) {
        fprintf(stderr, "fasim: %s\n", fa_last_error());
        fa_clear_error();
    }
    return i;
}

const char *cli_outset_target(const cli_outset *os, int i) { return fa_outset_target(os, i); }

void cli_outset_drop(cli_outset *os, int i) { fa_outset_drop(os, i); }

int cli_outset_commit(cli_outset *os)
{
    if (!fa_outset_commit(os)) return 0;
    fprintf(stderr, "fasim: %s\n", fa_last_error());
    fa_clear_error();
    return EXIT_RUN;
}

void cli_outset_abort(cli_outset *os) { fa_outset_abort(os); }
