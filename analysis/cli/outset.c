/* outset.c -- all-or-nothing output of a command that writes several files (cli_outset.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_outset.h"

/* ---------------------------------------------------------------- cleanup on a signal */

/* The set being written; a signal removes its temporaries and the directories it made. */
static cli_outset *volatile active;
static struct sigaction old_int, old_term, old_hup;
static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};

static void remove_made_dirs(const cli_outset *os)
{
    if (!os->made_from) return;
    char d[sizeof os->dir];
    memcpy(d, os->dir, sizeof d);
    size_t l = strlen(d);
    while (l > 1 && d[l - 1] == '/') l--;
    while (l >= os->made_from) { /* innermost first; rmdir fails, harmlessly, on a non-empty one */
        d[l] = '\0';
        if (rmdir(d) != 0) break;
        while (l > 0 && d[l - 1] != '/') l--;
        while (l > 0 && d[l - 1] == '/') l--;
        if (l == 0) break;
    }
}

static void on_signal(int sig)
{
    cli_outset *os = active;
    if (os) {
        for (int i = 0; i < os->n; i++)
            if (!os->file[i].direct) unlink(os->file[i].tmp); /* async-signal-safe */
        remove_made_dirs(os);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch(cli_outset *os)
{
    if (active == os) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    active = os;
    struct sigaction *old[3] = {&old_int, &old_term, &old_hup};
    for (int k = 0; k < 3; k++) {
        sigaction(sigs[k], &sa, old[k]);
        if (old[k]->sa_handler == SIG_IGN) sigaction(sigs[k], old[k], NULL); /* ignored (nohup, &): stays so */
    }
}

static void unwatch(cli_outset *os)
{
    if (active != os) return;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    active = NULL;
}

/* Blocks the three signals while the arrays the handler reads are reallocated. */
static void block(int on, sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int k = 0; k < 3; k++) sigaddset(&set, sigs[k]);
    if (on) sigprocmask(SIG_BLOCK, &set, old);
    else sigprocmask(SIG_SETMASK, old, NULL);
}

/* ---------------------------------------------------------------- the set */

int cli_outset_mkdir(cli_outset *os, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof os->dir) {
        fprintf(stderr, "fasim: output directory path is %zu characters long (limit %zu)\n", n, sizeof os->dir - 1);
        return EXIT_USAGE;
    }
    watch(os);
    memcpy(os->dir, dir, n + 1);
    os->made_from = 0;
    char buf[sizeof os->dir];
    memcpy(buf, dir, n + 1);
    int err = 0;
    for (size_t k = 1; k <= n && !err; k++) {
        if (buf[k] != '/' && buf[k] != '\0') continue;
        if (buf[k - 1] == '/') continue; /* "a//b", a trailing slash */
        char c = buf[k];
        buf[k] = '\0';
        if (mkdir(buf, 0777) == 0) {
            if (!os->made_from) os->made_from = k;
        } else if (errno != EEXIST) {
            err = errno;
        }
        buf[k] = c;
    }
    struct stat sb;
    if (!err && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))) err = errno ? errno : ENOTDIR;
    if (err) {
        fprintf(stderr, "fasim: cannot create the directory %s: %s\n", dir,
                err == EEXIST ? "a file of that name exists" : strerror(err));
        remove_made_dirs(os);
        os->made_from = 0;
        return EXIT_USAGE;
    }
    return 0;
}

int cli_outset_add(cli_outset *os, const char *path, int keep_open)
{
    for (int i = 0; i < os->n; i++)
        if (!strcmp(os->file[i].path, path)) {
            fprintf(stderr, "fasim: %s would be written twice (two inputs of the same name?)\n", path);
            return -1;
        }
    watch(os);
    if (os->n == os->cap) {
        int nc = os->cap ? 2 * os->cap : 16;
        sigset_t old;
        block(1, &old);
        cli_file *f = realloc(os->file, (size_t)nc * sizeof *f);
        if (f) os->file = f;
        int *d = f ? realloc(os->dropped, (size_t)nc * sizeof *d) : NULL;
        if (d) os->dropped = d;
        if (f && d) os->cap = nc;
        block(0, &old);
        if (!f || !d) {
            fprintf(stderr, "fasim: out of host memory\n");
            return -1;
        }
    }
    cli_file *cf = &os->file[os->n];
    if (cli_open(cf, path)) return -1; /* its message printed; nothing created */
    if (!keep_open) {
        fclose(cf->f);
        cf->f = NULL;
    }
    os->dropped[os->n] = 0;
    return os->n++;
}

const char *cli_outset_target(const cli_outset *os, int i)
{
    return os->file[i].direct ? os->file[i].path : os->file[i].tmp;
}

void cli_outset_drop(cli_outset *os, int i)
{
    cli_file *cf = &os->file[i];
    if (cf->f) fclose(cf->f);
    cf->f = NULL;
    if (!cf->direct) remove(cf->tmp);
    os->dropped[i] = 1;
}

static void release(cli_outset *os)
{
    unwatch(os);
    free(os->file);
    free(os->dropped);
    os->file = NULL;
    os->dropped = NULL;
    os->n = os->cap = 0;
}

void cli_outset_abort(cli_outset *os)
{
    for (int i = 0; i < os->n; i++)
        if (!os->dropped[i]) cli_outset_drop(os, i);
    remove_made_dirs(os);
    os->made_from = 0;
    release(os);
}

int cli_outset_commit(cli_outset *os)
{
    /* 1. every file closes cleanly, or none is renamed */
    int bad = -1, err = 0;
    for (int i = 0; i < os->n; i++) {
        cli_file *cf = &os->file[i];
        if (os->dropped[i] || !cf->f) continue;
        errno = 0;
        int e = ferror(cf->f);
        if (fclose(cf->f) != 0) e = 1;
        cf->f = NULL;
        if (e && bad < 0) {
            bad = i;
            err = errno ? errno : EIO;
        }
    }
    if (bad >= 0) {
        fprintf(stderr, "fasim: cannot write %s: %s\n", os->file[bad].path, strerror(err));
        cli_outset_abort(os);
        return EXIT_RUN;
    }
    /* 2. into place */
    int rc = 0;
    for (int i = 0; i < os->n; i++) {
        cli_file *cf = &os->file[i];
        if (os->dropped[i] || cf->direct) continue;
        if (rc == 0 && rename(cf->tmp, cf->path) != 0) {
            fprintf(stderr, "fasim: cannot write %s: %s\n", cf->path, strerror(errno));
            rc = EXIT_RUN;
        }
        if (rc) remove(cf->tmp);
    }
    release(os);
    return rc;
}
