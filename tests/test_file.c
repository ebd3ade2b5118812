/* test_file.c -- sim/file.c: fa_check_regular takes a regular file and a missing path (the open
 * then says why) and refuses a directory, a character device and a FIFO without blocking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fa_file.h"

static void test_kinds(void **st)
{
    (void)st;
    char dir[] = "/tmp/fasim_file_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char reg[64], fifo[64];
    snprintf(reg, sizeof reg, "%s/a.txt", dir);
    snprintf(fifo, sizeof fifo, "%s/p", dir);
    FILE *f = fopen(reg, "w");
    assert_non_null(f);
    fputs("1\n", f);
    fclose(f);
    assert_int_equal(fa_check_regular(reg, "mask file"), FA_OK);
    assert_int_equal(fa_check_regular("/no/such/file", "mask file"), FA_OK);
    assert_int_equal(fa_check_regular(dir, "mask file"), FA_EIO);
    assert_non_null(strstr(fa_last_error(), "is a directory, not a regular file"));
    assert_int_equal(fa_check_regular("/dev/zero", ".npy file"), FA_EIO);
    assert_non_null(strstr(fa_last_error(), ".npy file /dev/zero is a character device"));
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(fa_check_regular(fifo, "model file"), FA_EIO); /* returns: no writer needed */
    assert_non_null(strstr(fa_last_error(), "a FIFO"));
    fa_clear_error();
    unlink(fifo);
    unlink(reg);
    rmdir(dir);
}

/* fa_read_line: lines with their newline, the last one without; a line of exactly cap - 2
 * characters fits, one more is too long (and the reader stays at its rest); a NUL byte inside a
 * line is reported, not a cut line. */
static void test_read_line(void **st)
{
    (void)st;
    static const char text[] = "ab\nabcde\nabcdef\n\nx\0y\nlast";
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    rewind(f);
    char buf[8]; /* lines of up to 6 characters and their newline */
    assert_int_equal(fa_read_line(f, buf, sizeof buf), 1);
    assert_string_equal(buf, "ab\n");
    assert_int_equal(fa_read_line(f, buf, sizeof buf), 1);
    assert_string_equal(buf, "abcde\n");
    assert_int_equal(fa_read_line(f, buf, sizeof buf), 1); /* 6 characters + newline: fits */
    assert_string_equal(buf, "abcdef\n");
    assert_int_equal(fa_read_line(f, buf, sizeof buf), 1);
    assert_string_equal(buf, "\n");
    assert_int_equal(fa_read_line(f, buf, sizeof buf), -2); /* "x\0y\n" */
    assert_int_equal(fa_read_line(f, buf, sizeof buf), 1);
    assert_string_equal(buf, "last");
    assert_int_equal(fa_read_line(f, buf, sizeof buf), 0);
    fclose(f);
    f = tmpfile();
    assert_non_null(f);
    fputs("abcdefgh\nz\n", f);
    rewind(f);
    assert_int_equal(fa_read_line(f, buf, sizeof buf), -1); /* 8 characters: too long */
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_kinds), cmocka_unit_test(test_read_line)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
