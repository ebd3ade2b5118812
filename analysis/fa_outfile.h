/* fa_outfile.h -- outputs written all or nothing: one file through a temporary beside it, and a
 * set of files (a command that writes several: report, animate, check --study).
 *
 * fa_outfile_open checks the path (a directory in the way, an unwritable directory) and creates
 * its temporary (path.tmp.PID); fa_outfile_commit renames it into place after it closed cleanly,
 * fa_outfile_abort removes it: a failed run never creates or truncates path.  A symbolic link is
 * followed (the file it names is replaced, the link stays); a device, FIFO or other non-regular
 * file (/dev/stdout) is written in place.
 *
 * A set (fa_outset): every output is opened before any work (fa_outset_add), written by the
 * caller through its FILE or by a program (gnuplot) at fa_outset_target, and fa_outset_commit
 * renames them all only after every one closed cleanly.  fa_outset_abort removes the temporaries
 * and the directories fa_outset_mkdir created; so does SIGINT, SIGTERM or SIGHUP while a set is
 * open (the signal then ends the process).
 *
 * Errors (fa_status, message in fa_last_error): FA_EIO for a path that cannot be written, FA_ENOMEM. */
#ifndef FA_OUTFILE_H
#define FA_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "fa_status.h"

typedef struct {
    FILE *f;
    char path[1024];
    char tmp[1060];
    int direct; /* writing a device or FIFO in place */
} fa_outfile;

/* Opens path for writing through its temporary.  Errors: FA_EIO ("-", a path over 991
 * characters, a directory, an unresolvable link, an unwritable directory). */
fa_status fa_outfile_open(fa_outfile *cf, const char *path);
/* Closes and renames into place.  Errors: FA_EIO (a write or the rename failed; the temporary
 * is removed). */
fa_status fa_outfile_commit(fa_outfile *cf);
/* Closes and removes the temporary (nothing happens to path). */
void fa_outfile_abort(fa_outfile *cf);

typedef struct {
    fa_outfile *file; /* the outputs, in the order added */
    int *dropped;     /* 1: not written after all (fa_outset_drop) */
    int *program;     /* 1: written by a program at fa_outset_target (keep_open 0): an image it
                         wrote (.png, .gif) is checked whole at the commit */
    int n, cap;
    char dir[1024];   /* the directory of fa_outset_mkdir */
    size_t made_from; /* length of dir (its trailing slashes dropped) when fa_outset_mkdir made it (0: none created) */
} fa_outset;

/* Creates dir, its last component only, remembering whether it made it.  Errors: FA_EIO (a
 * parent that does not exist or is not a directory, named; a file in dir's place). */
fa_status fa_outset_mkdir(fa_outset *os, const char *dir);
/* Opens one output: keep_open 1 keeps the FILE (os->file[i].f) for the caller to write; 0 closes
 * it, for a program to write fa_outset_target.  Returns its index, or -1 with the error set
 * (a path added twice: FA_EINVAL; FA_ENOMEM; those of fa_outfile_open); the caller aborts. */
int fa_outset_add(fa_outset *os, const char *path, int keep_open);
/* The path to write output i at: its temporary (or the device itself). */
const char *fa_outset_target(const fa_outset *os, int i);
/* Output i will not be written after all: its temporary removed, an old file kept. */
void fa_outset_drop(fa_outset *os, int i);
/* Closes every output and, when all closed cleanly and every .png or .gif a program wrote ends
 * as its format says (a PNG's IEND chunk, a GIF's trailer: a full disk cuts them short while
 * gnuplot exits 0), renames each into place; frees the set.  Errors: FA_EIO (the temporaries
 * removed). */
fa_status fa_outset_commit(fa_outset *os);
/* Removes every temporary and the directories this set created; frees the set. */
void fa_outset_abort(fa_outset *os);

/* The last non-empty line of the file at path (a program's log, for a one-line message), without
 * its line break, into buf (n bytes; cut to fit, and to 511 bytes a line); "no message" when the
 * file cannot be read or has no such line.  Returns buf. */
const char *fa_file_last_line(const char *path, char *buf, size_t n);

#endif
