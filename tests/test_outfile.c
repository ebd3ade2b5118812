/* test_outfile.c -- analysis/outfile.c: a file appears only on commit, an abort leaves nothing
 * behind, bad paths are refused with FA_EIO, and a set of files (with the directories it made)
 * is written all or nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fa_outfile.h"

static char g_dir[256];

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int setup(void **st)
{
    (void)st;
    snprintf(g_dir, sizeof g_dir, "/tmp/fasim_outfile_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_one_file(void **st)
{
    (void)st;
    char path[300];
    snprintf(path, sizeof path, "%s/a.csv", g_dir);
    fa_outfile f;
    assert_int_equal(fa_outfile_open(&f, path), FA_OK);
    assert_false(exists(path)); /* only the temporary so far */
    assert_true(exists(f.tmp));
    fputs("x,y\n", f.f);
    assert_int_equal(fa_outfile_commit(&f), FA_OK);
    assert_true(exists(path));
    assert_false(exists(f.tmp));
    FILE *r = fopen(path, "r");
    char line[16] = "";
    assert_non_null(fgets(line, sizeof line, r));
    fclose(r);
    assert_string_equal(line, "x,y\n");
    /* an abort keeps the old file and removes the temporary */
    assert_int_equal(fa_outfile_open(&f, path), FA_OK);
    fputs("new\n", f.f);
    char tmp[sizeof f.tmp];
    memcpy(tmp, f.tmp, sizeof tmp);
    fa_outfile_abort(&f);
    assert_false(exists(tmp));
    r = fopen(path, "r");
    assert_non_null(fgets(line, sizeof line, r));
    fclose(r);
    assert_string_equal(line, "x,y\n");
    /* refused: "-", a directory, a missing directory */
    assert_int_equal(fa_outfile_open(&f, "-"), FA_EIO);
    assert_non_null(strstr(fa_last_error(), "'-' is not an output path"));
    assert_int_equal(fa_outfile_open(&f, g_dir), FA_EIO);
    assert_non_null(strstr(fa_last_error(), "it is a directory"));
    snprintf(path, sizeof path, "%s/no/such/dir/a.csv", g_dir);
    assert_int_equal(fa_outfile_open(&f, path), FA_EIO);
    fa_clear_error();
}

/* the smallest files image_complete takes: a PNG signature and its IEND chunk; a GIF header and
 * its trailer */
static const unsigned char PNG_MIN[20] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0, 'I', 'E', 'N', 'D',
                                          0xae, 0x42, 0x60, 0x82};
static const unsigned char GIF_MIN[11] = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0x3b};

static void write_bytes(const char *path, const unsigned char *b, size_t n)
{
    FILE *g = fopen(path, "wb");
    assert_non_null(g);
    assert_int_equal(fwrite(b, 1, n, g), n);
    fclose(g);
}

static void test_set(void **st)
{
    (void)st;
    char dir[300], a[320], b[320], deep[320];
    /* only the last folder is made: a missing parent is refused, named, and nothing is created */
    snprintf(deep, sizeof deep, "%s/new/deeper", g_dir);
    fa_outset os = {0};
    assert_int_equal(fa_outset_mkdir(&os, deep), FA_EIO);
    char want[700];
    snprintf(want, sizeof want, "cannot create the directory %s: its parent %s/new does not exist", deep, g_dir);
    assert_non_null(strstr(fa_last_error(), want));
    fa_clear_error();
    fa_outset_abort(&os);
    snprintf(dir, sizeof dir, "%s/new", g_dir);
    assert_false(exists(dir));
    snprintf(a, sizeof a, "%s/a.csv", dir);
    snprintf(b, sizeof b, "%s/b.png", dir);
    /* aborted: the files and the directory it made are gone */
    memset(&os, 0, sizeof os);
    assert_int_equal(fa_outset_mkdir(&os, dir), FA_OK);
    assert_true(exists(dir));
    assert_int_equal(fa_outset_add(&os, a, 1), 0);
    assert_int_equal(fa_outset_add(&os, b, 0), 1);
    assert_int_equal(fa_outset_add(&os, a, 1), -1); /* the same path twice */
    fa_clear_error();
    fputs("1\n", os.file[0].f);
    fa_outset_abort(&os);
    char made[300];
    snprintf(made, sizeof made, "%s/new", g_dir);
    assert_false(exists(made));
    /* committed: every output in place; a dropped one not written */
    memset(&os, 0, sizeof os);
    assert_int_equal(fa_outset_mkdir(&os, dir), FA_OK);
    assert_int_equal(fa_outset_add(&os, a, 1), 0);
    assert_int_equal(fa_outset_add(&os, b, 0), 1);
    write_bytes(fa_outset_target(&os, 1), PNG_MIN, sizeof PNG_MIN); /* as gnuplot would */
    fputs("1\n", os.file[0].f);
    assert_int_equal(fa_outset_commit(&os), FA_OK);
    assert_true(exists(a));
    assert_true(exists(b));
    /* an image a program left cut short (a full disk: gnuplot exits 0) fails the commit, and
     * nothing of the set is put in place; a whole GIF passes */
    char p2[330], g2[330], c2[330];
    snprintf(p2, sizeof p2, "%s/cut.png", dir);
    snprintf(g2, sizeof g2, "%s/whole.gif", dir);
    snprintf(c2, sizeof c2, "%s/c2.csv", dir);
    memset(&os, 0, sizeof os);
    assert_int_equal(fa_outset_add(&os, c2, 1), 0);
    assert_int_equal(fa_outset_add(&os, p2, 0), 1);
    assert_int_equal(fa_outset_add(&os, g2, 0), 2);
    fputs("1\n", os.file[0].f);
    write_bytes(fa_outset_target(&os, 1), PNG_MIN, sizeof PNG_MIN - 4); /* CRC cut off */
    write_bytes(fa_outset_target(&os, 2), GIF_MIN, sizeof GIF_MIN);
    assert_int_equal(fa_outset_commit(&os), FA_EIO);
    assert_non_null(strstr(fa_last_error(), "cut.png: the image gnuplot wrote is cut short or empty"));
    fa_clear_error();
    assert_false(exists(p2));
    assert_false(exists(g2));
    assert_false(exists(c2));
    memset(&os, 0, sizeof os);
    assert_int_equal(fa_outset_add(&os, g2, 0), 0);
    write_bytes(fa_outset_target(&os, 0), GIF_MIN, sizeof GIF_MIN);
    assert_int_equal(fa_outset_commit(&os), FA_OK);
    assert_true(exists(g2));
    memset(&os, 0, sizeof os);
    assert_int_equal(fa_outset_add(&os, p2, 0), 0); /* empty */
    assert_int_equal(fa_outset_commit(&os), FA_EIO);
    fa_clear_error();
    assert_false(exists(p2));
    memset(&os, 0, sizeof os);
    char c[330];
    snprintf(c, sizeof c, "%s/c.png", dir);
    assert_int_equal(fa_outset_mkdir(&os, dir), FA_OK);
    assert_int_equal(fa_outset_add(&os, c, 0), 0);
    fa_outset_drop(&os, 0);
    assert_int_equal(fa_outset_commit(&os), FA_OK);
    assert_false(exists(c));
    /* a file in the way of the directory */
    memset(&os, 0, sizeof os);
    assert_int_equal(fa_outset_mkdir(&os, a), FA_EIO);
    fa_clear_error();
}

/* A log's last non-empty line, without its line break; "no message" for none or no file. */
static void test_last_line(void **st)
{
    (void)st;
    char path[300], buf[64];
    snprintf(path, sizeof path, "%s/gnuplot.log", g_dir);
    assert_string_equal(fa_file_last_line(path, buf, sizeof buf), "no message"); /* no file */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("line 1\n\"x.gp\" line 7: undefined variable: tr\r\n\n\n", f);
    fclose(f);
    assert_string_equal(fa_file_last_line(path, buf, sizeof buf), "\"x.gp\" line 7: undefined variable: tr");
    assert_string_equal(fa_file_last_line(path, buf, 8), "\"x.gp\" "); /* cut to 7 bytes */
    f = fopen(path, "w");
    fputs("\n\n", f);
    fclose(f);
    assert_string_equal(fa_file_last_line(path, buf, sizeof buf), "no message");
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_one_file), cmocka_unit_test(test_set), cmocka_unit_test(test_last_line)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
