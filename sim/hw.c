/* hw.c -- hardware profile files. */
#include "fa_hw.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FASIM_HW_DIR
#define FASIM_HW_DIR "sim/hw"
#endif

const char *const fa_hw_keys[] = {"a100", "h100", "h200", NULL};
static const char *const hw_files[] = {"a100-sxm4-80gb.hw", "h100-sxm5.hw", "h200-sxm.hw", NULL};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

static fa_status parse_num(const char *path, const char *k, const char *v, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    /* finite, and small enough for the integer fields (uint64_t bytes, int SMs) */
    if (errno || end == v || *trim(end) != '\0' || !(x > 0) || !isfinite(x) || x >= 0x1p63 ||
        (strcmp(k, "sms") == 0 && x > INT_MAX))
        FA_FAIL(FA_EINVAL, "%s: key %s: '%s' is not a positive number in range", path, k, v);
    *out = x;
    return FA_OK;
}

fa_status fa_hw_load_file(const char *path, fa_hw *hw)
{
    FILE *f = fopen(path, "r");
    if (!f) FA_FAIL(FA_EIO, "cannot open hardware profile %s: %s", path, strerror(errno));
    memset(hw, 0, sizeof *hw);
    enum { NKEYS = 12, NREQUIRED = 10 }; /* the last keys (hbm_capacity_bytes, l2_partitions) are optional */
    static const char *const keys[NKEYS] = {"name", "key", "hbm_bandwidth_bytes_per_s",
                                            "sram_per_sm_bytes", "sram_per_block_bytes", "sms",
                                            "l2_bytes", "peak_fp16_flops", "peak_fp32_flops",
                                            "source", "hbm_capacity_bytes", "l2_partitions"};
    int seen[NKEYS] = {0};
    char line[512];
    int lineno = 0;
    fa_status st = FA_OK;
    while (st == FA_OK && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = trim(line);
        if (*s == '\0' || *s == '#') continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:%d: expected key = value", path,
                          lineno);
            break;
        }
        *eq = '\0';
        char *k = trim(s), *v = trim(eq + 1);
        int idx = -1;
        for (int i = 0; i < NKEYS; i++)
            if (strcmp(k, keys[i]) == 0) idx = i;
        if (idx < 0) continue; /* unknown keys are allowed (comments for humans) */
        seen[idx] = 1;
        double x = 0;
        switch (idx) {
        case 0: snprintf(hw->name, sizeof hw->name, "%s", v); break;
        case 1: snprintf(hw->key, sizeof hw->key, "%s", v); break;
        case 9: snprintf(hw->source, sizeof hw->source, "%s", v); break;
        default:
            st = parse_num(path, k, v, &x);
            if (st) break;
            if (idx == 2) hw->hbm_bandwidth = x;
            if (idx == 3) hw->sram_per_sm = (uint64_t)x;
            if (idx == 4) hw->sram_per_block = (uint64_t)x;
            if (idx == 5) hw->sms = (int)x;
            if (idx == 6) hw->l2_bytes = (uint64_t)x;
            if (idx == 7) hw->peak_fp16 = x;
            if (idx == 8) hw->peak_fp32 = x;
            if (idx == 10) hw->hbm_capacity = (uint64_t)x;
            if (idx == 11) {
                if (x != 1 && x != 2) {
                    st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s: key l2_partitions: '%s' is not 1 or 2", path, v);
                    break;
                }
                hw->l2_partitions = (int)x;
            }
        }
    }
    fclose(f);
    if (st) return st;
    for (int i = 0; i < NREQUIRED; i++)
        if (!seen[i]) FA_FAIL(FA_EINVAL, "%s: missing key %s", path, keys[i]);
    if (hw->l2_partitions == 0) hw->l2_partitions = 1;
    return FA_OK;
}

fa_status fa_hw_load(const char *key, const char *dir, fa_hw *hw)
{
    if (!dir) dir = getenv("FASIM_HW_DIR");
    if (!dir) dir = FASIM_HW_DIR;
    for (int i = 0; fa_hw_keys[i]; i++) {
        if (strcmp(key, fa_hw_keys[i]) == 0) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, hw_files[i]);
            return fa_hw_load_file(path, hw);
        }
    }
    FA_FAIL(FA_EINVAL, "unknown hardware profile '%s' (known: a100, h100, h200)", key);
}
