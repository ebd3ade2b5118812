/* cmd_compare.c -- `fasim compare --measured FILE`: fasim's predictions beside what a GPU
 * measured (Nsight Compute bytes, CUDA-event times), per kernel and shape. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char *const compare_help =
    "usage: fasim compare --measured FILE [--hw KEY] [--sram BYTES] [--no-l2] [--format ...]\n"
    "  Reads a CSV of measured kernels (one row per kernel and shape; a header names the\n"
    "  columns, in any order) and prints, per row, fasim's prediction for the same shape and\n"
    "  tile sizes beside the measurement:\n"
    "    SRAM<->L2 bytes (the two-level count) vs the measured L2<->SM bytes,\n"
    "    DRAM bytes with the L2 model (fasim io --l2) vs the measured DRAM bytes,\n"
    "    roofline time vs the measured time.\n"
    "  Columns: kernel, B, H, N_q (or N), d (required); H_kv, N_k, d_v, causal (0/1),\n"
    "  dtype (fp16/bf16/fp32), algo (standard/flash1/flash2; default from the kernel name:\n"
    "  v0 -> standard, v1 -> flash1, else flash2), block_r, block_c (default --blocks fit),\n"
    "  blocks_per_sm (the kernel's occupancy, 1..32, e.g. the smallest of Nsight Compute's\n"
    "  launch__occupancy_limit_*; default: estimated from fasim's SRAM need),\n"
    "  ms, dram_read_bytes, dram_write_bytes, l2_read_bytes, l2_write_bytes (optional; the\n"
    "  Nsight Compute names dram__bytes_read.sum, dram__bytes_write.sum,\n"
    "  l1tex__m_xbar2l1tex_read_bytes.sum, l1tex__m_l1tex2xbar_write_bytes.sum work too).\n"
    "  The L2 model is skipped (--no-l2) or refused for runs over 2^26 transfers.\n";

#define MAXCOL 64
#define MAXLINE 8192

typedef struct {
    char *name[MAXCOL];
    int n;
} header;

static int split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    line[strcspn(line, "\r\n")] = '\0';
    while (n < max) {
        char *start = p;
        if (*p == '"') { /* quoted field: no embedded quotes or commas expected */
            start = ++p;
            while (*p && *p != '"') p++;
            if (*p == '"') *p++ = '\0';
        }
        while (*p && *p != ',') p++;
        f[n++] = start;
        if (!*p) break;
        *p++ = '\0';
    }
    return n;
}

static int col(const header *h, const char *const *names)
{
    for (int k = 0; names[k]; k++)
        for (int i = 0; i < h->n; i++)
            if (strcmp(h->name[i], names[k]) == 0) return i;
    return -1;
}

static int parse_num(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(compare_help, stdout);
            return 0;
        }
    cli_opts o;
    char *extra[8];
    int n_extra = 0;
    int rc = cli_parse(argc, argv, 2, OPT_HW | OPT_FORMAT, &o, extra, 8, &n_extra);
    if (rc) return rc;
    const char *path = NULL;
    int use_l2 = 1;
    for (int i = 0; i < n_extra; i += 2) {
        if (!strcmp(extra[i], "--measured") && extra[i + 1]) path = extra[i + 1];
        else if (!strncmp(extra[i], "--measured=", 11)) path = extra[i] + 11;
        else {
            fprintf(stderr, "fasim: unknown option '%s' (see fasim compare --help)\n", extra[i]);
            return EXIT_USAGE;
        }
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--no-l2")) use_l2 = 0;
    if (!path) {
        fprintf(stderr, "fasim: compare needs --measured FILE (see fasim compare --help)\n");
        return EXIT_USAGE;
    }
    fa_status st = fa_hw_load(o.hw_key, NULL, &o.hw);
    if (st) return cli_fail(st);
    if (o.sram == 0) o.sram = o.hw.sram_per_block;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "fasim: measured file %s is a directory\n", path);
        return EXIT_USAGE;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fasim: cannot open measured file %s: %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    static char hline[MAXLINE], line[MAXLINE];
    header h = {.n = 0};
    if (!fgets(hline, sizeof hline, f)) {
        fclose(f);
        fprintf(stderr, "fasim: measured file %s is empty\n", path);
        return EXIT_USAGE;
    }
    h.n = split(hline, h.name, MAXCOL);
    static const char *const c_kernel[] = {"kernel", NULL}, *const c_B[] = {"B", "batch", NULL},
                             *const c_H[] = {"H", "heads", NULL}, *const c_Hkv[] = {"H_kv", "kv_heads", NULL},
                             *const c_Nq[] = {"N_q", "N", "seqlen_q", "seqlen", NULL},
                             *const c_Nk[] = {"N_k", "seqlen_k", NULL}, *const c_d[] = {"d", "headdim", NULL},
                             *const c_dv[] = {"d_v", NULL}, *const c_causal[] = {"causal", NULL},
                             *const c_dtype[] = {"dtype", NULL}, *const c_algo[] = {"algo", NULL},
                             *const c_br[] = {"block_r", NULL}, *const c_bc[] = {"block_c", NULL},
                             *const c_occ[] = {"blocks_per_sm", NULL},
                             *const c_ms[] = {"ms", "time_ms", NULL},
                             *const c_dr[] = {"dram_read_bytes", "dram__bytes_read.sum", NULL},
                             *const c_dw[] = {"dram_write_bytes", "dram__bytes_write.sum", NULL},
                             *const c_lr[] = {"l2_read_bytes", "l1tex__m_xbar2l1tex_read_bytes.sum", NULL},
                             *const c_lw[] = {"l2_write_bytes", "l1tex__m_l1tex2xbar_write_bytes.sum", NULL};
    int ik = col(&h, c_kernel), iB = col(&h, c_B), iH = col(&h, c_H), iHkv = col(&h, c_Hkv),
        iNq = col(&h, c_Nq), iNk = col(&h, c_Nk), id = col(&h, c_d), idv = col(&h, c_dv),
        ic = col(&h, c_causal), idt = col(&h, c_dtype), ia = col(&h, c_algo), ibr = col(&h, c_br),
        ibc = col(&h, c_bc), iocc = col(&h, c_occ), ims = col(&h, c_ms), idr = col(&h, c_dr), idw = col(&h, c_dw),
        ilr = col(&h, c_lr), ilw = col(&h, c_lw);
    if (ik < 0 || iB < 0 || iH < 0 || iNq < 0 || id < 0) {
        fclose(f);
        fprintf(stderr, "fasim: %s: the header needs the columns kernel, B, H, N_q (or N) and d\n", path);
        return EXIT_USAGE;
    }
    json_t *arr = json_array();
    /* output is buffered: a bad row later in the file leaves stdout empty */
    char *obuf = NULL;
    size_t olen = 0;
    FILE *out = open_memstream(&obuf, &olen);
    if (!out) {
        fclose(f);
        json_decref(arr);
        return cli_fail(fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory"));
    }
    if (o.format == FMT_TABLE) {
        fprintf(out, "fasim compare: %s on %s (M = %" PRIu64 " B); bytes in MB (1e6), ratio = fasim / measured\n",
               path, o.hw.name, o.sram);
        fprintf(out, "%-12s %3s %3s %6s %4s %2s %8s %4s %4s %4s | %9s %9s %6s | %9s %9s %6s | %9s %9s %6s\n", "kernel", "B",
               "H", "N", "d", "c", "algo", "B_r", "B_c", "b/SM", "SRAM<->L2", "meas L2", "ratio", "DRAM(L2)",
               "meas DRAM", "ratio", "time ms", "meas ms", "ratio");
    } else if (o.format == FMT_CSV) {
        fprintf(out, "kernel,B,H,H_kv,N_q,N_k,d,d_v,causal,dtype,algo,block_r,block_c,pred_l2_bytes,meas_l2_bytes,"
               "pred_dram_bytes,meas_dram_bytes,pred_ms,meas_ms,blocks_per_sm\n");
    }
    int lineno = 1, rows_seen = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '#') continue;
        char *fld[MAXCOL];
        rows_seen++;
        int nf = split(line, fld, MAXCOL);
        if (nf < h.n) {
            fprintf(stderr, "fasim: %s:%d: %d fields, the header has %d\n", path, lineno, nf, h.n);
            rc = EXIT_USAGE;
            break;
        }
        double v;
        /* a field that is present must be a finite number >= 0 */
        int bad_col = -1;
        for (int c = 0; c < h.n && bad_col < 0; c++) {
            if (c == ik || c == idt || c == ia || !*fld[c]) continue;
            double x;
            if (parse_num(fld[c], &x) || x < 0) bad_col = c;
        }
        if (bad_col >= 0) {
            fprintf(stderr, "fasim: %s:%d: column %s = '%s' is not a finite number >= 0\n", path, lineno,
                    h.name[bad_col], fld[bad_col]);
            rc = EXIT_USAGE;
            break;
        }
        if (ic >= 0 && *fld[ic] && strcmp(fld[ic], "0") && strcmp(fld[ic], "1")) {
            fprintf(stderr, "fasim: %s:%d: causal = '%s' must be 0 or 1\n", path, lineno, fld[ic]);
            rc = EXIT_USAGE;
            break;
        }
#define NUM(idx, dflt) ((idx) >= 0 && parse_num(fld[idx], &v) == 0 ? v : (dflt))
        fa_shape s = fa_shape_default(1, 1);
        s.batch = (int64_t)NUM(iB, -1);
        s.heads = (int64_t)NUM(iH, -1);
        s.kv_heads = (int64_t)NUM(iHkv, (double)s.heads);
        s.seqlen_q = (int64_t)NUM(iNq, -1);
        s.seqlen_k = (int64_t)NUM(iNk, (double)s.seqlen_q);
        s.d = (int64_t)NUM(id, -1);
        s.d_v = (int64_t)NUM(idv, (double)s.d);
        s.causal = NUM(ic, 0) != 0 ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        s.dtype = FA_DTYPE_BF16;
        if (idt >= 0 && *fld[idt] && fa_dtype_parse(fld[idt], &s.dtype)) {
            fprintf(stderr, "fasim: %s:%d: dtype '%s' is not one of fp32, fp16, bf16, fp8_e4m3, fp8_e5m2\n", path,
                    lineno, fld[idt]);
            rc = EXIT_USAGE;
            break;
        }
        if ((st = fa_shape_check(&s))) {
            fprintf(stderr, "fasim: %s:%d: %s\n", path, lineno, fa_last_error());
            rc = EXIT_USAGE;
            break;
        }
        const char *kname = fld[ik];
        fa_algo a = FA_ALGO_FLASH2;
        if (ia >= 0 && *fld[ia]) {
            if ((st = fa_algo_parse(fld[ia], &a))) {
                fprintf(stderr, "fasim: %s:%d: algo '%s' is not one of standard, flash1, flash2\n", path, lineno, fld[ia]);
                rc = EXIT_USAGE;
                break;
            }
        } else if (!strncmp(kname, "v0", 2)) {
            a = FA_ALGO_STANDARD;
        } else if (!strncmp(kname, "v1", 2)) {
            a = FA_ALGO_FLASH1;
        }
        fa_blocks bk;
        int64_t br = (int64_t)NUM(ibr, 0), bc = (int64_t)NUM(ibc, 0);
        if ((ibr >= 0 && *fld[ibr] && br < 1) || (ibc >= 0 && *fld[ibc] && bc < 1)) {
            fprintf(stderr, "fasim: %s:%d: block_r and block_c must be >= 1 when given\n", path, lineno);
            rc = EXIT_USAGE;
            break;
        }
        if (br > 0 && bc > 0) {
            bk.block_r = br;
            bk.block_c = bc;
        } else if ((st = fa_blocks_fit(&s, o.sram, &bk))) {
            rc = cli_fail(st);
            break;
        }
        int64_t occ = (int64_t)NUM(iocc, 0);
        if (iocc >= 0 && *fld[iocc] && (occ < 1 || occ > 32 || NUM(iocc, 0) != (double)occ)) {
            fprintf(stderr, "fasim: %s:%d: blocks_per_sm = '%s' must be a whole number from 1 to 32\n", path, lineno,
                    fld[iocc]);
            rc = EXIT_USAGE;
            break;
        }
        uint64_t M = o.sram;
        uint64_t need = fa_sram_need(a, &s, bk);
        if (need > M) M = need; /* the kernel's own tiles: count them even if fasim's buffers are larger */
        fa_io_result r;
        if ((st = fa_io_run(FA_PASS_FWD, a, &s, bk, M, &o.hw, NULL, &r))) {
            rc = cli_fail(st);
            break;
        }
        int l2ok = 0;
        if (use_l2) {
            st = fa_io_l2(FA_PASS_FWD, a, &s, bk, M, &o.hw, (int)occ, &r);
            if (st == FA_OK) l2ok = 1;
            else if (st != FA_EINVAL) {
                rc = cli_fail(st);
                break;
            }
        }
        double pred_l2 = (double)fa_counts_hbm_bytes(&r.counts);
        double pred_dram = l2ok ? (double)(r.dram_read_bytes + r.dram_write_bytes) : NAN;
        double meas_l2 = (ilr >= 0 && ilw >= 0) ? NUM(ilr, NAN) + NUM(ilw, NAN) : NAN;
        double meas_dram = (idr >= 0 && idw >= 0) ? NUM(idr, NAN) + NUM(idw, NAN) : NAN;
        double meas_ms = NUM(ims, NAN);
        /* predicted time: the roofline with the DRAM bytes of the L2 model when there is one */
        double tmem = (l2ok ? pred_dram : pred_l2) / o.hw.hbm_bandwidth;
        double pred_ms = 1e3 * (r.time_compute_s > tmem ? r.time_compute_s : tmem);
#undef NUM
        const int bps = l2ok ? r.l2_slots / o.hw.sms : 0; /* blocks per SM the L2 model replayed */
        if (o.format == FMT_TABLE) {
            fprintf(out, "%-12s %3" PRId64 " %3" PRId64 " %6" PRId64 " %4" PRId64 " %2d %8s %4" PRId64 " %4" PRId64
                   " %4d | %9.1f %9.1f %6.2f | %9.1f %9.1f %6.2f | %9.3f %9.3f %6.2f\n",
                   kname, s.batch, s.heads, s.seqlen_q, s.d, s.causal != FA_CAUSAL_NONE, fa_algo_name(a),
                   bk.block_r, bk.block_c, bps, pred_l2 / 1e6, meas_l2 / 1e6, pred_l2 / meas_l2, pred_dram / 1e6,
                   meas_dram / 1e6, pred_dram / meas_dram, pred_ms, meas_ms, pred_ms / meas_ms);
        } else if (o.format == FMT_CSV) {
            fprintf(out, "%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                   ",%d,%s,%s,%" PRId64 ",%" PRId64 ",%.0f,%.0f,%.0f,%.0f,%.6g,%.6g,%d\n",
                   kname, s.batch, s.heads, s.kv_heads, s.seqlen_q, s.seqlen_k, s.d, s.d_v,
                   s.causal != FA_CAUSAL_NONE, fa_dtype_name(s.dtype), fa_algo_name(a), bk.block_r,
                   bk.block_c, pred_l2, meas_l2, pred_dram, meas_dram, pred_ms, meas_ms, bps);
        } else {
            json_t *j = json_object();
            json_object_set_new(j, "kernel", json_string(kname));
            json_object_set_new(j, "algo", json_string(fa_algo_name(a)));
            json_object_set_new(j, "batch", json_integer(s.batch));
            json_object_set_new(j, "heads", json_integer(s.heads));
            json_object_set_new(j, "seqlen_q", json_integer(s.seqlen_q));
            json_object_set_new(j, "seqlen_k", json_integer(s.seqlen_k));
            json_object_set_new(j, "d", json_integer(s.d));
            json_object_set_new(j, "causal", json_boolean(s.causal != FA_CAUSAL_NONE));
            json_object_set_new(j, "block_r", json_integer(bk.block_r));
            json_object_set_new(j, "block_c", json_integer(bk.block_c));
            json_object_set_new(j, "pred_l2_bytes", json_real(pred_l2));
            json_object_set_new(j, "meas_l2_bytes", isnan(meas_l2) ? json_null() : json_real(meas_l2));
            json_object_set_new(j, "pred_dram_bytes", isnan(pred_dram) ? json_null() : json_real(pred_dram));
            json_object_set_new(j, "meas_dram_bytes", isnan(meas_dram) ? json_null() : json_real(meas_dram));
            json_object_set_new(j, "pred_ms", json_real(pred_ms));
            json_object_set_new(j, "meas_ms", isnan(meas_ms) ? json_null() : json_real(meas_ms));
            json_object_set_new(j, "blocks_per_sm", l2ok ? json_integer(bps) : json_null());
            json_array_append_new(arr, j);
        }
    }
    fclose(f);
    if (rc == 0 && rows_seen == 0) {
        fprintf(stderr, "fasim: measured file %s has a header but no rows\n", path);
        rc = EXIT_USAGE;
    }
    if (rc == 0 && o.format == FMT_JSON) {
        json_dumpf(arr, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fputc('\n', out);
    }
    fclose(out);
    if (rc == 0) fwrite(obuf, 1, olen, stdout);
    free(obuf);
    json_decref(arr);
    return rc;
}
