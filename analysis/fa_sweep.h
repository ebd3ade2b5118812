/* fa_sweep.h -- the ranges of `fasim sweep`, without the printing: a --vary NAME=RANGE read into
 * its values and checked, several of them combined into a sweep, and the enumeration of their
 * cartesian product.  analysis/sweep.c; the command line (analysis/cli/cmd_sweep.c) applies the
 * values of each point to its options, runs the points and prints.
 *
 * RANGE (`fasim sweep --help` says the same):
 *   START:STOP:xF   geometric: START, START F, START F^2, ... while <= STOP; F in [2, 2^31 - 1]
 *   START:STOP:+S   arithmetic: START, START + S, ... while <= STOP; S in [1, 2^31 - 1]
 *   V1,V2,...       a list, in the order given (repeats kept)
 * START, STOP and every Vi are one value of the parameter (fa_sweep_value_fn).  A range stops
 * early, after the value it reached, when the next one would exceed 64 bits.  Only the first
 * 1023 characters of RANGE are read (a longer list or range is cut there: the limit of the
 * command line before this module).
 *
 * Errors follow fa_status.h: FA_EINVAL with the message the command line prints after
 * "fasim: ", e.g. "--vary seqlen: STOP 100 is below START 512" (a message quoting a RANGE longer
 * than about 1000 characters is cut at fa_status.h's 1023). */
#ifndef FA_SWEEP_H
#define FA_SWEEP_H

#include <stdint.h>

#include "fa_status.h"

#define FA_SWEEP_MAX_VALUES 4096   /* values of one range, at most */
#define FA_SWEEP_MAX_VARY 4        /* ranges of one sweep, at most */
#define FA_SWEEP_MAX_POINTS 100000 /* points of the product, at most */
#define FA_SWEEP_NAME_LEN 16

/* The parameters a range may vary, NULL-terminated: seqlen seqlen-k headdim headdim-v batch
 * heads kv-heads sram block-r block-c kv-len splits page-size (the names of their options). */
extern const char *const fa_sweep_names[];

/* One --vary: the parameter's name and its values in order. */
typedef struct {
    char name[FA_SWEEP_NAME_LEN]; /* one of fa_sweep_names */
    uint64_t v[FA_SWEEP_MAX_VALUES];
    int n;                        /* 1..FA_SWEEP_MAX_VALUES */
} fa_sweep_range;

/* The ranges of one sweep, in the order given (the last one varies fastest). */
typedef struct {
    fa_sweep_range r[FA_SWEEP_MAX_VARY];
    int n; /* 0..FA_SWEEP_MAX_VARY */
} fa_sweep;

/* Reads text, one value of parameter name, into *out.  Returns FA_OK, or FA_EINVAL with its
 * message.  ctx is the caller's (fa_sweep_parse passes it through). */
typedef fa_status (*fa_sweep_value_fn)(void *ctx, const char *name, const char *text, uint64_t *out);

/* The default value reader: a decimal integer (digits only) in [1, hi], hi = 2^20 for block-r and
 * block-c (the limit of --block-r / --block-c), 2^63 - 1 for sram (bytes; the command line reads
 * sram as a byte size with suffixes instead, through its own fa_sweep_value_fn), 2^31 - 1 for
 * the others (the limit of --seqlen, --headdim ...).  Errors: FA_EINVAL
 * "--vary NAME = 'TEXT' must be an integer in [1, HI]", with " (digits only: no blanks)" when
 * TEXT has a blank. */
fa_status fa_sweep_value(const char *name, const char *text, uint64_t *out);

/* Reads spec, "NAME=RANGE", into *out, reading each value through parse(ctx, ...) (NULL:
 * fa_sweep_value).  Errors, FA_EINVAL, checked in this order:
 *   no '=' ("--vary 'SPEC' must read NAME=RANGE (see fasim sweep --help)"; spec NULL reads "");
 *   NAME not in fa_sweep_names ("--vary: unknown parameter 'NAME' (seqlen, ..., page-size)");
 *   a list with an empty item, or empty ("--vary NAME=RANGE: an empty item in the list");
 *   a list item parse refuses (its message);
 *   a range without a second ':' followed by 'x' or '+'
 *     ("--vary NAME=RANGE: a range reads START:STOP:xFACTOR or START:STOP:+STEP");
 *   START, then STOP, refused by parse (its message);
 *   F not an integer in [2, 2^31 - 1] ("--vary factor = 'F' must be an integer in [2, 2147483647]"),
 *     S not in [1, 2^31 - 1] ("--vary step = ..."), each with the blank note of fa_sweep_value;
 *   STOP < START ("--vary NAME: STOP 100 is below START 512");
 *   more than FA_SWEEP_MAX_VALUES values ("--vary NAME: more than 4096 values"). */
fa_status fa_sweep_parse(const char *spec, fa_sweep_value_fn parse, void *ctx, fa_sweep_range *out);

/* Reads spec as fa_sweep_parse into sw->r[sw->n] and counts it in.  Errors: FA_EINVAL when sw
 * holds FA_SWEEP_MAX_VARY ranges already ("at most 4 --vary options"), those of fa_sweep_parse,
 * and when an earlier range varies the same parameter ("--vary NAME given twice"); sw->n is
 * then unchanged. */
fa_status fa_sweep_add(fa_sweep *sw, const char *spec, fa_sweep_value_fn parse, void *ctx);

/* 1 when one of sw's ranges varies parameter name, else 0. */
int fa_sweep_varies(const fa_sweep *sw, const char *name);

/* FA_OK when every point of sw has both tiles: B_r and B_c each fixed (block_r_given,
 * block_c_given) or varied.  Errors: FA_EINVAL "varying block-r or block-c needs the other one
 * (--block-c / --block-r or --vary)" when one is varied and the other neither fixed nor varied;
 * "give both --block-r and --block-c (or --vary the other one)" when one is fixed alone. */
fa_status fa_sweep_check_tiles(const fa_sweep *sw, int block_r_given, int block_c_given);

/* The number of points of sw's cartesian product, the product of the ranges' counts (1 for no
 * range) into *total.  Errors: FA_EINVAL beyond FA_SWEEP_MAX_POINTS ("the sweep has more than
 * 100000 points"). */
fa_status fa_sweep_count(const fa_sweep *sw, long *total);

/* The values of point p (0 <= p < fa_sweep_count's total) of the product: values[k] the value of
 * range k.  The points run in row-major order: the last range fastest, so that ranges a = {1, 2}
 * and b = {10, 20} give (1, 10), (1, 20), (2, 10), (2, 20).  p is taken modulo the total. */
void fa_sweep_point(const fa_sweep *sw, long p, uint64_t values[FA_SWEEP_MAX_VARY]);

#endif
