/* main.c -- the `fasim` command: io, report, sweep, check. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef FASIM_VERSION
#define FASIM_VERSION "0.1.0"
#endif

static const char *const help =
    "fasim -- educational simulator and IO-cost analyzer for FlashAttention\n"
    "usage: fasim <command> [options]      (fasim <command> --help for its options)\n"
    "commands:\n"
    "  io       count HBM traffic, FLOPs and SRAM of standard / flash1 / flash2 on one shape\n"
    "  report   real model shapes on A100/H100/H200: tables, CSV and plots (build/report/)\n"
    "  sweep    CSV over ranges of parameters (--vary seqlen=512:1048576:x2)\n"
    "  check    numeric validation against the fp64 reference; low precision (--dtype), error\n"
    "           studies (--study DIR), validate kernels' .npy outputs (--q --k --v --out)\n"
    "  compare  fasim's predicted bytes and time beside a GPU's measured ones (--measured CSV)\n"
    "  explain  the derivation of the counts of one configuration, numbers filled in\n"
    "  animate  PNG frames and an animated GIF of the tiles moving (--heatmap: reads/writes per tile)\n"
    "exit status: 0 ok, 1 failure while running or a failed check, 2 bad usage or input\n";

static int dispatch(int argc, char **argv);

/* Every command's output goes through stdout; a full disk or a closed pipe must not pass
 * silently as success.  SIGPIPE is ignored: a closed pipe (fasim report | head -1) is a failed
 * write, exit 1 with a message, and a command writing files through temporaries (cli_outset.h)
 * removes them instead of being killed with them left behind.  Help text (--help, fasim help
 * CMD, --version) is not data: a closed pipe ends it quietly, exit 0 (cli_stdout_is_help). */
int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    int rc = dispatch(argc, argv);
    if (cli_stdout_failed("")) return rc ? rc : EXIT_RUN;
    return rc;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "fasim: no command given (io, report, sweep, check, compare, explain, animate; see fasim --help)\n");
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        if (argc > 2) { /* fasim --version extra: refused, as fasim help io extra is */
            fprintf(stderr, "fasim: unexpected argument '%s': %s takes none (see fasim --help)\n", argv[2], argv[1]);
            return EXIT_USAGE;
        }
        cli_stdout_is_help();
        puts("fasim " FASIM_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc > 2 && strncmp(argv[2], "-", 1) != 0) { /* fasim help io: io's help */
            if (argc > 3) { /* fasim help io extra: refused as fasim io --help extra is */
                fprintf(stderr, "fasim: unexpected argument '%s': fasim help takes one command (see fasim --help)\n", argv[3]);
                return EXIT_USAGE;
            }
            char *av[] = {argv[0], argv[2], "--help", NULL};
            return dispatch(3, av);
        }
        cli_stdout_is_help();
        fputs(help, stdout);
        return 0;
    }
    const char *c = argv[1];
    if (!strcmp(c, "io")) return cmd_io(argc, argv);
    if (!strcmp(c, "report")) return cmd_report(argc, argv);
    if (!strcmp(c, "sweep")) return cmd_sweep(argc, argv);
    if (!strcmp(c, "check")) return cmd_check(argc, argv);
    if (!strcmp(c, "compare")) return cmd_compare(argc, argv);
    if (!strcmp(c, "explain")) return cmd_explain(argc, argv);
    if (!strcmp(c, "animate")) return cmd_animate(argc, argv);
    fprintf(stderr, "fasim: unknown command '%s' (io, report, sweep, check, compare, explain, animate; see fasim --help)\n", c);
    return EXIT_USAGE;
}
