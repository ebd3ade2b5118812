/* test_cli_options.c -- the command line's option table (analysis/cli/options.c): for every
 * command and every option it takes, `--opt=value` and `--opt value` parse alike; every option
 * of the table that a command does not take is refused; exact names only; "--", a bare word and
 * a flag with a value are refused; byte sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/cli.h"

static const char *const CMDS[] = {"io", "sweep", "check", "compare", "explain", "animate", "report"};
enum { NCMD = (int)(sizeof CMDS / sizeof CMDS[0]) };

/* A value each option takes (parsed without reading a file: paths are only stored). */
static const char *value_for(const char *name)
{
    static const struct { const char *name, *value; } V[] = {
        {"algo", "flash2"},     {"dtype", "bf16"},        {"causal", "top-left"},  {"scale", "0.125"},
        {"hw", "a100"},         {"sram", "64KiB"},        {"blocks", "paper"},     {"profile", "paper"},
        {"pass", "bwd"},        {"format", "json"},       {"window", "63,0"},      {"softcap", "30"},
        {"doc-mask", "5,7"},    {"dropout", "0.1"},       {"splits", "auto"},      {"gqa", "packed"},
        {"cu-seqlens", "0,5,9"}, {"cu-seqlens-k", "0,6,9"}, {"vary", "seqlen=64,128"}, {"tol", "1e-3"},
        {"study", "dir"},       {"layout", "bnhd"},       {"delay", "7"},          {"cp-scheme", "zigzag"},
    };
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++)
        if (!strcmp(V[i].name, name)) return V[i].value;
    return "3"; /* numbers; for paths a file name "3" */
}

/* The command's own options: accepted as given (the commands' setters have their own tests). */
typedef struct {
    int id, n;
    char val[64];
} own_seen;
static int take_any(void *ctx, cli_opts *o, int id, const char *name, const char *val)
{
    (void)o, (void)name;
    own_seen *s = ctx;
    s->id = id, s->n++;
    snprintf(s->val, sizeof s->val, "%s", val ? val : "(none)");
    return 0;
}

static int parse(int argc, char **argv, cli_opts *o, own_seen *seen)
{
    memset(seen, 0, sizeof *seen);
    FILE *saved = stderr; /* the refusals print; keep the test's output readable */
    FILE *null = fopen("/dev/null", "w");
    if (null) stderr = null;
    int rc = cli_parse_cmd(argc, argv, o, take_any, seen);
    if (null) stderr = saved, fclose(null);
    return rc;
}

/* The parse of one option, both ways: the same status, the same options. */
typedef struct {
    const char *cmd;
    int checked;
} walk;
static void both_forms(const char *name, int arg, void *ctx)
{
    walk *w = ctx;
    if (!strcmp(name, "help")) return;
    char opt[96], eq[160];
    snprintf(opt, sizeof opt, "--%s", name);
    cli_opts a, b;
    own_seen sa, sb;
    if (arg == 0) { /* a flag: alone it parses, with a value it is refused */
        char *av[] = {"fasim", (char *)w->cmd, opt, NULL};
        assert_int_equal(parse(3, av, &a, &sa), 0);
        snprintf(eq, sizeof eq, "--%s=1", name);
        char *bv[] = {"fasim", (char *)w->cmd, eq, NULL};
        if (parse(3, bv, &b, &sb) != EXIT_USAGE) fail_msg("fasim %s %s was accepted", w->cmd, eq);
        w->checked++;
        return;
    }
    const char *v = value_for(name);
    snprintf(eq, sizeof eq, "--%s=%s", name, v);
    /* --block-r and --block-c come together (but in sweep); --seed with --dropout but in check,
     * the one command whose own inputs it seeds (the others refuse it alone) */
    char *partner = !strcmp(name, "block-r") ? "--block-c=16" : !strcmp(name, "block-c") ? "--block-r=16"
                  : !strcmp(name, "seed") && strcmp(w->cmd, "check") ? "--dropout=0.1" : NULL;
    char *av[] = {"fasim", (char *)w->cmd, eq, partner, NULL};
    char *bv[] = {"fasim", (char *)w->cmd, opt, (char *)v, partner, NULL};
    int ra = parse(partner ? 4 : 3, av, &a, &sa), rb = parse(partner ? 5 : 4, bv, &b, &sb);
    if (ra != 0 || rb != 0) fail_msg("fasim %s %s: %d, %s %s: %d", w->cmd, eq, ra, opt, v, rb);
    /* the same options: the shape and the scalars byte for byte, the paths by their text */
    assert_memory_equal(&a.shape, &b.shape, sizeof a.shape);
    assert_int_equal(a.sram, b.sram);
    assert_int_equal(a.blocks, b.blocks);
    assert_int_equal(a.format, b.format);
    assert_int_equal(a.pass, b.pass);
    assert_int_equal(a.n_algos, b.n_algos);
    assert_int_equal(a.splits_auto, b.splits_auto);
    assert_string_equal(a.hw_key, b.hw_key);
    assert_int_equal(sa.n, sb.n);
    assert_int_equal(sa.id, sb.id);
    assert_string_equal(sa.val, sb.val);
    w->checked++;
}

static void test_both_forms(void **st)
{
    (void)st;
    int total = 0;
    for (int c = 0; c < NCMD; c++) {
        walk w = {CMDS[c], 0};
        cli_option_names(CMDS[c], both_forms, &w);
        if (w.checked < 3) fail_msg("command %s takes only %d options", CMDS[c], w.checked);
        total += w.checked;
    }
    assert_true(total > 100);
}

/* Every option some command takes is refused by the commands that do not take it. */
typedef struct {
    char names[256][32];
    int arg[256];
    int n;
} all_names;
static void collect(const char *name, int arg, void *ctx)
{
    all_names *a = ctx;
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->names[i], name)) return;
    if (a->n < 256) snprintf(a->names[a->n], 32, "%s", name), a->arg[a->n++] = arg;
}

static void test_refusals(void **st)
{
    (void)st;
    all_names all = {.n = 0};
    for (int c = 0; c < NCMD; c++) cli_option_names(CMDS[c], collect, &all);
    if (all.n < 45) fail_msg("the table names %d options", all.n);
    int refused = 0;
    for (int c = 0; c < NCMD; c++)
        for (int i = 0; i < all.n; i++) {
            if (cli_takes(CMDS[c], all.names[i])) continue;
            char opt[64];
            snprintf(opt, sizeof opt, "--%s", all.names[i]);
            char *av[] = {"fasim", (char *)CMDS[c], opt, (char *)value_for(all.names[i]), NULL};
            cli_opts o;
            own_seen s;
            if (parse(all.arg[i] ? 4 : 3, av, &o, &s) != EXIT_USAGE)
                fail_msg("fasim %s accepted %s, which it does not take", CMDS[c], opt);
            refused++;
        }
    assert_true(refused > 40); /* report and compare take few of the shared options */
    /* --seed without --dropout: refused where it would change nothing (check takes it) */
    const char *const no_seed[] = {"io", "sweep", "explain", "animate"};
    for (int c = 0; c < 4; c++) {
        char *av[] = {"fasim", (char *)no_seed[c], "--seed", "5", NULL};
        cli_opts o;
        own_seen s;
        if (parse(4, av, &o, &s) != EXIT_USAGE) fail_msg("fasim %s accepted --seed without --dropout", no_seed[c]);
    }
    char *ck[] = {"fasim", "check", "--seed", "5", NULL};
    cli_opts o;
    own_seen s;
    assert_int_equal(parse(4, ck, &o, &s), 0);
    assert_int_equal(o.seed, 5);
}

/* The message of a refused parse of argv (argc words), read from stderr; the own options'
 * parser's calls in *seen. */
static int parse_msg(int argc, char **argv, own_seen *seen, char *msg, size_t n)
{
    cli_opts o;
    memset(seen, 0, sizeof *seen);
    char *buf = NULL;
    size_t len = 0;
    FILE *saved = stderr, *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    stderr = mem;
    int rc = cli_parse_cmd(argc, argv, &o, take_any, seen);
    stderr = saved;
    fclose(mem);
    snprintf(msg, n, "%s", buf);
    free(buf);
    return rc;
}

/* A value missing at the end of the words: one check before any option's parser, "--NAME needs
 * WHAT" (a file, a directory, a .npy file, a value ...), for every option of every command that
 * takes one; an empty value (--NAME=) is missing for the paths and lists only. */
typedef struct {
    const char *cmd;
    int checked;
} missing_walk;
static void missing(const char *name, int arg, void *ctx)
{
    missing_walk *w = ctx;
    if (arg != 1) return; /* flags and --causal's optional value */
    char opt[96], msg[512], want[160];
    snprintf(opt, sizeof opt, "--%s", name);
    char *av[] = {"fasim", (char *)w->cmd, opt, NULL};
    own_seen seen;
    if (parse_msg(3, av, &seen, msg, sizeof msg) != EXIT_USAGE) fail_msg("fasim %s %s: not refused", w->cmd, opt);
    snprintf(want, sizeof want, "fasim: --%s needs ", name);
    if (strncmp(msg, want, strlen(want)) != 0) fail_msg("fasim %s %s: '%s'", w->cmd, opt, msg);
    if (seen.n) fail_msg("fasim %s %s: the command's parser ran without a value", w->cmd, opt);
    w->checked++;
}

static void test_missing_values(void **st)
{
    (void)st;
    int checked = 0;
    for (int c = 0; c < NCMD; c++) {
        missing_walk w = {CMDS[c], 0};
        cli_option_names(CMDS[c], missing, &w);
        assert_true(w.checked > 0);
        checked += w.checked;
    }
    assert_true(checked > 100);
    static const struct {
        const char *cmd, *word, *msg; /* msg NULL: parsed (the value's own check comes later) */
    } cases[] = {
        {"io", "--model", "fasim: --model needs a file\n"},
        {"io", "--model=", "fasim: --model needs a file\n"},
        {"io", "--doc-mask=", "fasim: --doc-mask needs document lengths L1,L2,...\n"},
        {"io", "--gqa", "fasim: --gqa needs a value: per-head, packed or both\n"},
        {"io", "--hw", "fasim: --hw needs a value\n"},
        {"io", "--hw=", NULL},
        {"io", "--cu-seqlens", "fasim: --cu-seqlens needs a value\n"},
        {"check", "--q=", "fasim: --q needs a .npy file\n"},
        {"check", "--study", "fasim: --study needs a directory\n"},
        {"check", "--layout", "fasim: --layout needs a value\n"},
        {"report", "--hw", "fasim: --hw needs a profile (a100, h100, h200, b200)\n"},
        {"report", "--hw=", NULL},
        {"report", "--pass", "fasim: --pass needs fwd, bwd or fwdbwd\n"},
        {"sweep", "--vary=", "fasim: --vary needs NAME=RANGE (see fasim sweep --help)\n"},
        {"animate", "--out-dir=", "fasim: --out-dir needs a directory\n"},
        {"compare", "--measured", "fasim: --measured needs a file\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *av[] = {"fasim", (char *)cases[i].cmd, (char *)cases[i].word, NULL};
        own_seen seen;
        char msg[512];
        int rc = parse_msg(3, av, &seen, msg, sizeof msg);
        if (!cases[i].msg) {
            assert_int_equal(rc, 0);
            continue;
        }
        assert_int_equal(rc, EXIT_USAGE);
        assert_string_equal(msg, cases[i].msg);
    }
    /* a path given as the next option's name is missing too: --out --quiet writes no file "--quiet" */
    char *av[] = {"fasim", "check", "--q", "--k", NULL};
    own_seen seen;
    char msg[512];
    assert_int_equal(parse_msg(4, av, &seen, msg, sizeof msg), EXIT_USAGE);
    assert_string_equal(msg, "fasim: --q needs a value (got the option '--k'; --q=--k names a path of that name)\n");
}

static void test_grammar(void **st)
{
    (void)st;
    cli_opts o;
    own_seen s;
    char *abbrev[] = {"fasim", "io", "--seq", "64", NULL}; /* getopt_long would take a prefix */
    assert_int_equal(parse(4, abbrev, &o, &s), EXIT_USAGE);
    char *dashes[] = {"fasim", "io", "--", "--seqlen", "64", NULL};
    assert_int_equal(parse(5, dashes, &o, &s), EXIT_USAGE);
    char *word[] = {"fasim", "io", "--seqlen", "64", "extra", NULL};
    assert_int_equal(parse(5, word, &o, &s), EXIT_USAGE);
    char *flagval[] = {"fasim", "io", "--alibi=yes", NULL};
    assert_int_equal(parse(3, flagval, &o, &s), EXIT_USAGE);
    char *missing[] = {"fasim", "io", "--seqlen", NULL};
    assert_int_equal(parse(3, missing, &o, &s), EXIT_USAGE);
    /* an optional value: alone, after '=', or as the next word */
    char *c1[] = {"fasim", "io", "--causal", "--seqlen", "64", NULL};
    assert_int_equal(parse(5, c1, &o, &s), 0);
    assert_int_equal(o.shape.causal, FA_CAUSAL_BOTTOM_RIGHT);
    assert_int_equal(o.shape.seqlen_q, 64);
    char *c2[] = {"fasim", "io", "--causal", "top-left", NULL};
    assert_int_equal(parse(4, c2, &o, &s), 0);
    assert_int_equal(o.shape.causal, FA_CAUSAL_TOP_LEFT);
    char *c3[] = {"fasim", "io", "--causal=sideways", NULL};
    assert_int_equal(parse(3, c3, &o, &s), EXIT_USAGE);
    /* a value that looks like an option is still the value (and then refused by its parser) */
    char *v1[] = {"fasim", "io", "--seqlen", "--batch", "2", NULL};
    assert_int_equal(parse(5, v1, &o, &s), EXIT_USAGE);
    /* later options win; the algorithms and tiles settle after the parse */
    char *w1[] = {"fasim", "io", "--seqlen=64", "--seqlen", "128", "--block-r", "32", "--block-c=16", NULL};
    assert_int_equal(parse(8, w1, &o, &s), 0);
    assert_int_equal(o.shape.seqlen_q, 128);
    assert_int_equal(o.blocks, BLOCKS_EXPLICIT);
    assert_int_equal(o.n_algos, FA_NALGO);
    char *half[] = {"fasim", "io", "--block-r", "32", NULL}; /* io needs both; sweep may vary one */
    assert_int_equal(parse(4, half, &o, &s), EXIT_USAGE);
    char *halfs[] = {"fasim", "sweep", "--block-r", "32", NULL};
    assert_int_equal(parse(4, halfs, &o, &s), 0);
}

static void test_bytes(void **st)
{
    (void)st;
    uint64_t v;
    static const struct { const char *text; uint64_t v; } ok[] = {
        {"232448", 232448}, {"227KiB", 232448}, {"64K", 65536}, {"2MiB", 2097152}, {"3GiB", 3221225472ull},
        {"100KB", 100000}, {"5MB", 5000000}, {"512B", 512}, {"1GB", 1000000000ull}, {"2M", 2097152}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(cli_parse_bytes(ok[i].text, &v), FA_OK);
        assert_int_equal(v, ok[i].v);
    }
    /* junk; blanks are refused wherever they are, like +, as the integers of the command line */
    static const char *const bad[] = {"", "KiB", "-1", "1.5KiB", "12 KiB", " 12", "1TiB", "99999999999999999999",
                                      "18446744073709551615KiB", "1kib", "abc", "0x100", "7 ", "\t96", "96\n", "+4",
                                      "18446744073709551616", "17179869184GiB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 42;
        if (cli_parse_bytes(bad[i], &v) != FA_EINVAL) fail_msg("'%s' was accepted", bad[i]);
        assert_int_equal(v, 42);
        assert_true(strlen(fa_last_error()) > 0);
        fa_clear_error();
    }
}

/* --help prints the help unless a word is neither an option nor an option's value: then the
 * parse runs and refuses that word (exit 2). */
static void test_help_words(void **st)
{
    (void)st;
    char *a1[] = {"fasim", "io", "--help", "extra", NULL};
    char *a2[] = {"fasim", "io", "--seqlen", "5", "--causal", "top-left", "--dtype=bf16", "-h", NULL};
    char *a3[] = {"fasim", "io", "--causal", "--help", NULL};
    char *a4[] = {"fasim", "check", "--help", "--q", "q.npy", NULL};
    char *a5[] = {"fasim", "io", "--seqlen", "5", "extra", "--help", NULL};
    assert_int_equal(cli_wants_help(4, a1), 0);
    assert_int_equal(cli_wants_help(8, a2), 1);
    assert_int_equal(cli_wants_help(4, a3), 1); /* --causal's optional value is not "--help" */
    assert_int_equal(cli_wants_help(5, a4), 1);
    assert_int_equal(cli_wants_help(6, a5), 0);
    cli_opts o;
    own_seen s;
    assert_int_equal(parse(4, a1, &o, &s), EXIT_USAGE); /* what the command then does */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_forms),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_grammar),
        cmocka_unit_test(test_missing_values),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_help_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
