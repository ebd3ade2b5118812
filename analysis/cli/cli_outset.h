/* cli_outset.h -- all-or-nothing output of a command that writes several files (report,
 * animate, check --study).
 *
 * Every output is opened before any work with cli_open (args.c): that checks the path (a
 * directory in the way, an unwritable directory: exit 2 at once) and creates its temporary
 * (path.tmp.PID) beside it.  The command writes the temporaries -- itself through the FILE, or
 * gnuplot at cli_outset_target -- and only cli_outset_commit renames them into place, after
 * every one of them closed cleanly.  cli_outset_abort removes the temporaries and the
 * directories cli_outset_mkdir created, so a failed run leaves the file system as it found it;
 * so does SIGINT, SIGTERM or SIGHUP while a set is open (the signal then ends the process).
 *
 * Usage:
 *     cli_outset os = {0};
 *     if (cli_outset_mkdir(&os, dir)) return EXIT_USAGE;
 *     int csv = cli_outset_add(&os, "DIR/x.csv", 1), png = cli_outset_add(&os, "DIR/x.png", 0);
 *     if (csv < 0 || png < 0) { cli_outset_abort(&os); return EXIT_USAGE; }
 *     ... fprintf(os.file[csv].f, ...); gnuplot writes cli_outset_target(&os, png) ...
 *     return cli_outset_commit(&os);   (cli_outset_abort(&os) on any failure instead) */
#ifndef FA_CLI_OUTSET_H
#define FA_CLI_OUTSET_H

#include "cli.h"

typedef fa_outset cli_outset; /* analysis/fa_outfile.h */

/* Creates dir and its missing parents, remembering the ones it made (removed again by
 * cli_outset_abort).  Returns 0, or EXIT_USAGE with one message on stderr. */
int cli_outset_mkdir(cli_outset *os, const char *dir);

/* Opens one output (cli_open).  keep_open: 1 keeps the FILE (os->file[i].f) for the command to
 * write; 0 closes it, for a program (gnuplot) to write cli_outset_target.  Returns its index,
 * or -1 with one message on stderr (the caller aborts the set and exits 2). */
int cli_outset_add(cli_outset *os, const char *path, int keep_open);

/* The path to write output i at: its temporary (or the device itself for a device or FIFO). */
const char *cli_outset_target(const cli_outset *os, int i);

/* Output i will not be written (gnuplot failed): its temporary is removed, an old file kept. */
void cli_outset_drop(cli_outset *os, int i);

/* Closes every output and, when all closed cleanly, renames each into place.  Returns 0 or
 * EXIT_RUN (message printed; the temporaries removed).  Frees the set. */
int cli_outset_commit(cli_outset *os);

/* Removes every temporary and the directories this set created; frees the set. */
void cli_outset_abort(cli_outset *os);

/* Runs `gnuplot -e VARS DIR/script`, DIR being $FASIM_PLOTS_DIR or plots/; its messages go to
 * the file log (NULL: to fasim's stderr).  Returns 0 when gnuplot ran and exited 0, else -1. */
int cli_gnuplot(const char *script, const char *vars, const char *log);

#endif
