/* sweep.c -- `fasim sweep`'s ranges: a --vary NAME=RANGE read and checked, the sweep's ranges
 * combined, and the points of their cartesian product (fa_sweep.h).  Nothing is printed here:
 * analysis/cli/cmd_sweep.c prints. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fa_sweep.h"

const char *const fa_sweep_names[] = {"seqlen", "seqlen-k", "headdim", "headdim-v", "batch",
                                      "heads", "kv-heads", "sram", "block-r", "block-c",
                                      "kv-len", "splits", "page-size", NULL};

#define RANGE_CHARS 1024 /* RANGE is read up to its first RANGE_CHARS - 1 characters */

/* An integer option value in [lo, hi]: digits only (no sign, no blank), as the command line's
 * integers.  opt names it in the message ("--vary seqlen = 'x' must be an integer in [1, ...]"). */
static fa_status parse_int(const char *opt, const char *val, int64_t lo, int64_t hi, int64_t *out)
{
    int blank = 0;
    for (const char *p = val; *p; p++) blank |= isspace((unsigned char)*p) != 0;
    errno = 0;
    char *end = (char *)val;
    long long v = blank || !(*val >= '0' && *val <= '9') ? 0 : strtoll(val, &end, 10);
    if (end == val || errno == ERANGE || *end != '\0' || v < lo || v > hi)
        FA_FAIL(FA_EINVAL, "%s = '%s' must be an integer in [%" PRId64 ", %" PRId64 "]%s", opt, val, lo, hi,
                blank ? " (digits only: no blanks)" : "");
    *out = v;
    return FA_OK;
}

fa_status fa_sweep_value(const char *name, const char *text, uint64_t *out)
{
    char opt[32];
    snprintf(opt, sizeof opt, "--vary %s", name);
    int64_t hi = !strcmp(name, "block-r") || !strcmp(name, "block-c") ? (int64_t)1 << 20
                 : !strcmp(name, "sram")                            ? INT64_MAX
                                                                    : INT32_MAX;
    int64_t v;
    FA_TRY(parse_int(opt, text, 1, hi, &v));
    *out = (uint64_t)v;
    return FA_OK;
}

static fa_status value(fa_sweep_value_fn parse, void *ctx, const char *name, const char *text, uint64_t *out)
{
    return parse ? parse(ctx, name, text, out) : fa_sweep_value(name, text, out);
}

fa_status fa_sweep_parse(const char *spec, fa_sweep_value_fn parse, void *ctx, fa_sweep_range *vy)
{
    const char *eq = spec ? strchr(spec, '=') : NULL;
    if (!eq) FA_FAIL(FA_EINVAL, "--vary '%s' must read NAME=RANGE (see fasim sweep --help)", spec ? spec : "");
    snprintf(vy->name, sizeof vy->name, "%.*s", (int)(eq - spec), spec);
    int known = 0;
    for (int i = 0; fa_sweep_names[i]; i++) known |= !strcmp(fa_sweep_names[i], vy->name);
    if (!known)
        FA_FAIL(FA_EINVAL, "--vary: unknown parameter '%.*s' (seqlen, seqlen-k, headdim, headdim-v, "
                           "batch, heads, kv-heads, sram, block-r, block-c, kv-len, splits, page-size)",
                (int)(eq - spec), spec);
    char buf[RANGE_CHARS];
    snprintf(buf, sizeof buf, "%s", eq + 1);
    vy->n = 0;
    char *c1 = strchr(buf, ':');
    if (!c1) { /* a list */
        size_t bl = strlen(buf);
        if (bl == 0 || buf[0] == ',' || buf[bl - 1] == ',' || strstr(buf, ",,"))
            FA_FAIL(FA_EINVAL, "--vary %s=%s: an empty item in the list", vy->name, eq + 1);
        /* at most RANGE_CHARS / 2 items: always fewer than FA_SWEEP_MAX_VALUES */
        for (char *save, *t = strtok_r(buf, ",", &save); t && vy->n < FA_SWEEP_MAX_VALUES;
             t = strtok_r(NULL, ",", &save)) {
            FA_TRY(value(parse, ctx, vy->name, t, &vy->v[vy->n]));
            for (int q = 0; q < vy->n; q++) /* a repeated point, as --algo refuses a repeated algorithm */
                if (vy->v[q] == vy->v[vy->n])
                    FA_FAIL(FA_EINVAL, "--vary %s=%s: '%s' repeats the value %" PRIu64 " (list each value once)",
                            vy->name, eq + 1, t, vy->v[q]);
            vy->n++;
        }
        return FA_OK;
    }
    *c1 = '\0';
    char *c2 = strchr(c1 + 1, ':');
    if (!c2 || (c2[1] != 'x' && c2[1] != '+'))
        FA_FAIL(FA_EINVAL, "--vary %s=%s: a range reads START:STOP:xFACTOR or START:STOP:+STEP", vy->name, eq + 1);
    *c2 = '\0';
    const int geometric = c2[1] == 'x';
    uint64_t lo, hi;
    FA_TRY(value(parse, ctx, vy->name, buf, &lo));
    FA_TRY(value(parse, ctx, vy->name, c1 + 1, &hi));
    int64_t st;
    FA_TRY(parse_int(geometric ? "--vary factor" : "--vary step", c2 + 2, geometric ? 2 : 1, INT32_MAX, &st));
    const uint64_t step = (uint64_t)st;
    if (hi < lo) FA_FAIL(FA_EINVAL, "--vary %s: STOP %" PRIu64 " is below START %" PRIu64, vy->name, hi, lo);
    for (uint64_t v = lo; v <= hi; v = geometric ? v * step : v + step) {
        /* only an arithmetic range gets this far: a geometric one (factor >= 2, 64-bit values) has at most 64 */
        if (vy->n >= FA_SWEEP_MAX_VALUES)
            FA_FAIL(FA_EINVAL, "--vary %s: %" PRIu64 ":%" PRIu64 ":+%" PRIu64 " is %" PRIu64 " values, more than %d",
                    vy->name, lo, hi, step, (hi - lo) / step + 1, FA_SWEEP_MAX_VALUES);
        vy->v[vy->n++] = v;
        if ((geometric && v > UINT64_MAX / step) || (!geometric && v > UINT64_MAX - step)) break;
    }
    return FA_OK;
}

fa_status fa_sweep_add(fa_sweep *sw, const char *spec, fa_sweep_value_fn parse, void *ctx)
{
    if (sw->n >= FA_SWEEP_MAX_VARY) FA_FAIL(FA_EINVAL, "at most %d --vary options", FA_SWEEP_MAX_VARY);
    fa_sweep_range *r = &sw->r[sw->n];
    FA_TRY(fa_sweep_parse(spec, parse, ctx, r));
    if (fa_sweep_varies(sw, r->name)) FA_FAIL(FA_EINVAL, "--vary %s given twice", r->name);
    sw->n++;
    return FA_OK;
}

int fa_sweep_varies(const fa_sweep *sw, const char *name)
{
    for (int k = 0; k < sw->n; k++)
        if (!strcmp(sw->r[k].name, name)) return 1;
    return 0;
}

fa_status fa_sweep_count(const fa_sweep *sw, long *total)
{
    long t = 1;
    for (int k = 0; k < sw->n; k++) t *= sw->r[k].n; /* each range at most 4096 values, at most 4 ranges: no overflow */
    if (t > FA_SWEEP_MAX_POINTS) {
        char prod[96] = "";
        for (int k = 0; k < sw->n; k++)
            snprintf(prod + strlen(prod), sizeof prod - strlen(prod), "%s%d", k ? " x " : "", sw->r[k].n);
        FA_FAIL(FA_EINVAL, "the sweep has %ld points (%s), more than %d", t, prod, FA_SWEEP_MAX_POINTS);
    }
    *total = t;
    return FA_OK;
}

void fa_sweep_point(const fa_sweep *sw, long p, uint64_t values[FA_SWEEP_MAX_VARY])
{
    for (int k = sw->n - 1; k >= 0; k--) {
        values[k] = sw->r[k].v[p % sw->r[k].n];
        p /= sw->r[k].n;
    }
}

fa_status fa_sweep_check_tiles(const fa_sweep *sw, int block_r_given, int block_c_given)
{
    const int br = fa_sweep_varies(sw, "block-r"), bc = fa_sweep_varies(sw, "block-c");
    if ((br && !bc && !block_c_given) || (bc && !br && !block_r_given))
        FA_FAIL(FA_EINVAL, "varying block-r or block-c needs the other one (--block-c / --block-r or --vary)");
    if ((block_r_given && !block_c_given && !bc) || (block_c_given && !block_r_given && !br))
        FA_FAIL(FA_EINVAL, "give both --block-r and --block-c (or --vary the other one)");
    return FA_OK;
}
