/* cli_outset.h -- all-or-nothing output of a command that writes several files (report,
 * animate, check --study): the messages and exit statuses around analysis/fa_outfile.h's fa_outset
 * (fa_outset_target, fa_outset_drop and fa_outset_abort are called directly).
 *
 * Every output is opened before any work with cli_open (args.c): that checks the path (a
 * directory in the way, an unwritable directory: exit 2 at once) and creates its temporary
 * (path.tmp.PID) beside it.  The command writes the temporaries -- itself through the FILE, or
 * gnuplot at fa_outset_target -- and only cli_outset_commit renames them into place, after
 * every one of them closed cleanly.  fa_outset_abort removes the temporaries and the
 * directories cli_outset_mkdir created, so a failed run leaves the file system as it found it;
 * so does SIGINT, SIGTERM or SIGHUP while a set is open (the signal then ends the process).
 *
 * Usage:
 *     cli_outset os = {0};
 *     if (cli_outset_mkdir(&os, dir)) return EXIT_USAGE;
 *     int csv = cli_outset_add(&os, "DIR/x.csv", 1), png = cli_outset_add(&os, "DIR/x.png", 0);
 *     if (csv < 0 || png < 0) { fa_outset_abort(&os); return EXIT_USAGE; }
 *     ... fprintf(os.file[csv].f, ...); gnuplot writes fa_outset_target(&os, png) ...
 *     return cli_outset_commit(&os);   (fa_outset_abort(&os) on any failure instead) */
#ifndef FA_CLI_OUTSET_H
#define FA_CLI_OUTSET_H

#include "cli.h"

typedef fa_outset cli_outset; /* analysis/fa_outfile.h */

/* Creates dir and its missing parents, remembering the ones it made (removed again by
 * fa_outset_abort).  Returns 0, or EXIT_USAGE with one message on stderr. */
int cli_outset_mkdir(cli_outset *os, const char *dir);

/* Opens one output (cli_open).  keep_open: 1 keeps the FILE (os->file[i].f) for the command to
 * write; 0 closes it, for a program (gnuplot) to write fa_outset_target.  Returns its index,
 * or -1 with one message on stderr (the caller aborts the set and exits 2). */
int cli_outset_add(cli_outset *os, const char *path, int keep_open);

/* Closes every output and, when all closed cleanly and standard output took everything the
 * command printed (cli_stdout_failed: not a closed pipe, not a full disk), renames each into
 * place.  Returns 0 or EXIT_RUN (message printed; the temporaries removed).  Frees the set. */
int cli_outset_commit(cli_outset *os);

/* Runs `gnuplot -e VARS DIR/script`, DIR being $FASIM_PLOTS_DIR or plots/; its messages go to
 * the file log (NULL: to fasim's stderr).  Returns 0 when gnuplot ran and exited 0, else -1. */
int cli_gnuplot(const char *script, const char *vars, const char *log);

#endif
