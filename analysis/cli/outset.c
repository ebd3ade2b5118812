/* outset.c -- the command line's side of an all-or-nothing set of output files
 * (analysis/outfile.c): the messages and exit statuses. */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "cli_outset.h"

#ifndef FASIM_PLOTS_DIR
#define FASIM_PLOTS_DIR "plots"
#endif

extern char **environ;

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

int cli_outset_commit(cli_outset *os)
{
    /* what the command printed must have reached stdout, or none of its files is written */
    if (cli_stdout_failed("; no output file written (the temporaries removed)")) {
        fa_outset_abort(os);
        return EXIT_RUN;
    }
    if (!fa_outset_commit(os)) return 0;
    fprintf(stderr, "fasim: %s\n", fa_last_error());
    fa_clear_error();
    return EXIT_RUN;
}


int cli_gnuplot(const char *script, const char *vars, const char *log)
{
    char path[1200];
    const char *dir = getenv("FASIM_PLOTS_DIR");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : FASIM_PLOTS_DIR, script);
    char *argv[] = {"gnuplot", "-e", (char *)vars, path, NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) return -1;
    if (log) posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    /* gnuplot gets SIGPIPE's default back (fasim ignores it, main.c) */
    posix_spawnattr_t at;
    if (posix_spawnattr_init(&at)) {
        posix_spawn_file_actions_destroy(&fa);
        return -1;
    }
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int bad = posix_spawnp(&pid, "gnuplot", &fa, &at, argv, environ) != 0;
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    if (bad || waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
