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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_kinds)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
