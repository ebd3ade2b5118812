/* outfile.c -- outputs written all or nothing: one file through a temporary, and a set of files
 * (fa_outfile.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fa_outfile.h"

/* ---------------------------------------------------------------- one file */

fa_status fa_outfile_open(fa_outfile *cf, const char *path)
{
    memset(cf, 0, sizeof *cf);
    if (!strcmp(path, "-")) { /* not a file named "-" left in the working directory */
        FA_FAIL(FA_EIO, "'-' is not an output path (give a file, or /dev/stdout to print)");
    }
    if (strlen(path) >= sizeof cf->path - 32) {
        FA_FAIL(FA_EIO, "output path is %zu characters long (limit %zu)", strlen(path), sizeof cf->path - 33);
    }
    /* A symbolic link is followed (the file it names is replaced, the link stays); a device,
     * FIFO or other non-regular file is written in place (no temporary file, no rename). */
    char target[PATH_MAX];
    const char *t = path;
    struct stat st;
    if (stat(path, &st) == 0) { /* follows links */
        if (S_ISDIR(st.st_mode)) {
            FA_FAIL(FA_EIO, "cannot write %s: it is a directory", path);
        }
        if (!S_ISREG(st.st_mode)) { /* device, FIFO, /dev/stdout: write through the path */
            memcpy(cf->path, path, strlen(path) + 1);
            cf->f = fopen(path, "w");
            cf->direct = 1;
            if (!cf->f) FA_FAIL(FA_EIO, "cannot write %s: %s", path, strerror(errno));
            return FA_OK;
        }
        struct stat lst;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) { /* replace the file, keep the link */
            if (!realpath(path, target) || strlen(target) >= sizeof cf->path - 32) {
                FA_FAIL(FA_EIO, "cannot resolve the link %s", path);
            }
            t = target;
        }
    }
    memcpy(cf->path, t, strlen(t) + 1);
    snprintf(cf->tmp, sizeof cf->tmp, "%s.tmp.%ld", cf->path, (long)getpid());
    cf->f = fopen(cf->tmp, "w");
    if (!cf->f) {
        /* The result goes to a temporary file beside the target, renamed at the end: when the
         * directory exists, the failure is its own (read-only, /proc, no permission), whatever
         * errno says (ENOENT on /proc). */
        int e = errno;
        char dir[sizeof cf->path];
        const char *slash = strrchr(cf->path, '/');
        if (!slash) snprintf(dir, sizeof dir, ".");
        else if (slash == cf->path) snprintf(dir, sizeof dir, "/");
        else snprintf(dir, sizeof dir, "%.*s", (int)(slash - cf->path), cf->path);
        struct stat ds;
        if (stat(dir, &ds) == 0 && S_ISDIR(ds.st_mode))
            FA_FAIL(FA_EIO, "cannot write %s: its directory %s cannot take a temporary file (%s, "
                    "written first and then renamed)%s%s",
                    path, dir, cf->tmp, e == ENOENT ? "" : ": ", e == ENOENT ? "" : strerror(e));
        if (e == ENOENT && stat(dir, &ds) != 0)
            FA_FAIL(FA_EIO, "cannot write %s: the directory %s does not exist (a file option -- sweep --out, "
                    "io --trace -- does not create its folder: make it first; the folder options report "
                    "--out-dir, animate --out-dir, check --study and --save-npy create their last folder only)", path, dir);
        if (e == ENOTDIR || (stat(dir, &ds) == 0 && !S_ISDIR(ds.st_mode)))
            FA_FAIL(FA_EIO, "cannot write %s: %s is not a directory", path, dir);
        FA_FAIL(FA_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return FA_OK;
}

fa_status fa_outfile_commit(fa_outfile *cf)
{
    if (!cf->f) return FA_OK;
    if (cf->direct) { /* a device or FIFO: nothing to rename */
        int bad = ferror(cf->f) | (fclose(cf->f) != 0);
        cf->f = NULL;
        if (bad) FA_FAIL(FA_EIO, "cannot write %s: %s", cf->path, strerror(errno));
        return FA_OK;
    }
    int bad = ferror(cf->f);
    if (fclose(cf->f) != 0) bad = 1;
    cf->f = NULL;
    if (bad || rename(cf->tmp, cf->path) != 0) {
        int e = errno;
        remove(cf->tmp);
        FA_FAIL(FA_EIO, "cannot write %s: %s", cf->path, strerror(e));
    }
    return FA_OK;
}

void fa_outfile_abort(fa_outfile *cf)
{
    if (!cf->f) return;
    fclose(cf->f);
    cf->f = NULL;
    if (!cf->direct) remove(cf->tmp);
}

/* ---------------------------------------------------------------- cleanup on a signal */

/* The set being written; a signal removes its temporaries and the directories it made. */
static fa_outset *volatile active;
static struct sigaction old_int, old_term, old_hup;
static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};

static void remove_made_dirs(const fa_outset *os)
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
    fa_outset *os = active;
    if (os) {
        for (int i = 0; i < os->n; i++)
            if (!os->file[i].direct) unlink(os->file[i].tmp); /* async-signal-safe */
        remove_made_dirs(os);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch(fa_outset *os)
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

static void unwatch(fa_outset *os)
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

fa_status fa_outset_mkdir(fa_outset *os, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof os->dir)
        FA_FAIL(FA_EIO, "output directory path is %zu characters long (limit %zu)", n, sizeof os->dir - 1);
    watch(os);
    memcpy(os->dir, dir, n + 1);
    os->made_from = 0;
    /* only the last component is created: its parent must exist (a typo never makes a new tree, at /
     * or elsewhere), as a file option's folder must (fa_outfile_open) */
    char buf[sizeof os->dir], par[sizeof os->dir];
    memcpy(buf, dir, n + 1);
    size_t l = n;
    while (l > 1 && buf[l - 1] == '/') l--; /* a trailing slash */
    buf[l] = '\0';
    size_t p = l;
    while (p > 0 && buf[p - 1] != '/') p--;
    if (p == 0) snprintf(par, sizeof par, ".");
    else {
        size_t q = p;
        while (q > 1 && buf[q - 1] == '/') q--; /* "a//b" */
        snprintf(par, sizeof par, "%.*s", (int)q, buf);
    }
    struct stat sb;
    if (stat(par, &sb) != 0)
        FA_FAIL(FA_EIO, "cannot create the directory %s: its parent %s does not exist (a folder option -- report "
                "--out-dir, animate --out-dir, check --study, --save-npy -- creates its last folder only: make %s "
                "first)", dir, par, par);
    if (!S_ISDIR(sb.st_mode)) FA_FAIL(FA_EIO, "cannot create the directory %s: its parent %s is not a directory", dir, par);
    int err = 0;
    if (mkdir(buf, 0777) == 0) os->made_from = l;
    else if (errno != EEXIST) err = errno;
    if (!err && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))) err = errno ? errno : ENOTDIR;
    if (err) {
        remove_made_dirs(os);
        os->made_from = 0;
        if (err == EEXIST || err == ENOTDIR) FA_FAIL(FA_EIO, "cannot create the directory %s: a file of that name exists", dir);
        /* the parent exists (checked above): the file system itself refuses (/proc gives ENOENT) */
        FA_FAIL(FA_EIO, "cannot create the directory %s: its parent %s exists, but refuses a new folder (%s)", dir, par,
                strerror(err));
    }
    return FA_OK;
}

int fa_outset_add(fa_outset *os, const char *path, int keep_open)
{
    for (int i = 0; i < os->n; i++)
        if (!strcmp(os->file[i].path, path)) {
            fa_error(FA_EINVAL, __FILE__, __LINE__, "%s would be written twice (two inputs of the same name?)", path);
            return -1;
        }
    watch(os);
    if (os->n == os->cap) {
        int nc = os->cap ? 2 * os->cap : 16;
        sigset_t old;
        block(1, &old);
        fa_outfile *f = realloc(os->file, (size_t)nc * sizeof *f);
        if (f) os->file = f;
        int *d = f ? realloc(os->dropped, (size_t)nc * sizeof *d) : NULL;
        if (d) os->dropped = d;
        int *pg = d ? realloc(os->program, (size_t)nc * sizeof *pg) : NULL;
        if (pg) os->program = pg;
        if (f && d && pg) os->cap = nc;
        block(0, &old);
        if (!f || !d || !pg) {
            fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory");
            return -1;
        }
    }
    fa_outfile *cf = &os->file[os->n];
    if (fa_outfile_open(cf, path)) return -1; /* the error set; nothing created */
    if (!keep_open) {
        fclose(cf->f);
        cf->f = NULL;
    }
    os->dropped[os->n] = 0;
    os->program[os->n] = !keep_open;
    return os->n++;
}

const char *fa_outset_target(const fa_outset *os, int i)
{
    return os->file[i].direct ? os->file[i].path : os->file[i].tmp;
}

void fa_outset_drop(fa_outset *os, int i)
{
    fa_outfile *cf = &os->file[i];
    if (cf->f) fclose(cf->f);
    cf->f = NULL;
    if (!cf->direct) remove(cf->tmp);
    os->dropped[i] = 1;
}

static void release(fa_outset *os)
{
    unwatch(os);
    free(os->file);
    free(os->dropped);
    free(os->program);
    os->program = NULL;
    os->file = NULL;
    os->dropped = NULL;
    os->n = os->cap = 0;
}

void fa_outset_abort(fa_outset *os)
{
    for (int i = 0; i < os->n; i++)
        if (!os->dropped[i]) fa_outset_drop(os, i);
    remove_made_dirs(os);
    os->made_from = 0;
    release(os);
}

/* Whether the image a program wrote at path ends as its format says: a PNG's last chunk is IEND
 * (its 12 bytes: length 0, "IEND", CRC ae 42 60 82), a GIF ends with its trailer 0x3b.  A full
 * disk leaves gnuplot's PNG or GIF cut short or empty while gnuplot itself exits 0.  Other
 * names: any file.  Returns 1 complete, 0 not. */
static int image_complete(const char *tmp, const char *name)
{
    const char *dot = strrchr(name, '.');
    const int png = dot && !strcmp(dot, ".png"), gif = dot && !strcmp(dot, ".gif");
    if (!png && !gif) return 1;
    FILE *f = fopen(tmp, "rb");
    if (!f) return 0;
    unsigned char head[8] = {0}, tail[12] = {0};
    int ok = fread(head, 1, 8, f) == 8 && fseek(f, -(long)(png ? 12 : 1), SEEK_END) == 0 &&
             fread(tail, 1, png ? 12 : 1, f) == (size_t)(png ? 12 : 1);
    fclose(f);
    if (!ok) return 0;
    if (png)
        return !memcmp(head, "\x89PNG\r\n\x1a\n", 8) && !memcmp(tail, "\0\0\0\0IEND\xae\x42\x60\x82", 12);
    return !memcmp(head, "GIF8", 4) && tail[0] == 0x3b;
}

fa_status fa_outset_commit(fa_outset *os)
{
    /* 1. every file closes cleanly, or none is renamed */
    int bad = -1, err = 0;
    for (int i = 0; i < os->n; i++) {
        fa_outfile *cf = &os->file[i];
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
        fa_error(FA_EIO, __FILE__, __LINE__, "cannot write %s: %s", os->file[bad].path, strerror(err));
        fa_outset_abort(os);
        return FA_EIO;
    }
    /* 1b. the images a program wrote are whole (a full disk cuts them short without an error) */
    for (int i = 0; i < os->n; i++) {
        const fa_outfile *cf = &os->file[i];
        if (os->dropped[i] || cf->direct || !os->program[i] || image_complete(cf->tmp, cf->path)) continue;
        fa_error(FA_EIO, __FILE__, __LINE__, "cannot write %s: the image gnuplot wrote is cut short or empty (is the disk full?)",
                 cf->path);
        fa_outset_abort(os);
        return FA_EIO;
    }
    /* 2. into place */
    fa_status rc = FA_OK;
    for (int i = 0; i < os->n; i++) {
        fa_outfile *cf = &os->file[i];
        if (os->dropped[i] || cf->direct) continue;
        if (rc == FA_OK && rename(cf->tmp, cf->path) != 0)
            rc = fa_error(FA_EIO, __FILE__, __LINE__, "cannot write %s: %s", cf->path, strerror(errno));
        if (rc) remove(cf->tmp);
    }
    release(os);
    return rc;
}

const char *fa_file_last_line(const char *path, char *buf, size_t n)
{
    snprintf(buf, n, "no message");
    FILE *f = fopen(path, "r");
    if (!f) return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t l = strcspn(line, "\r\n");
        line[l] = '\0';
        if (l > 0) snprintf(buf, n, "%s", line);
    }
    fclose(f);
    return buf;
}
