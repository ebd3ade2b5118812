/* fa_npy.h -- NumPy .npy files: a strict reader for validating external kernels' tensors, and a
 * writer (for fasim's own sample tensors and tests).
 *
 * Format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor version byte, the header
 * length (version 1: 2 bytes, versions 2 and 3: 4 bytes, little-endian), an ASCII (v3: UTF-8)
 * Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces and a newline, then the raw data in C order.
 * Element types read: '<f8' (fp64), '<f4' (fp32), '<f2' (fp16), and 2-byte unsigned or void data
 * ('<u2', '|V2') as bfloat16 when the caller says so (NumPy has no bfloat16: a PyTorch bf16
 * tensor is saved as t.view(torch.int16) or .view(np.uint16)); big-endian '>' is byte-swapped.
 * Fortran order is refused (save with np.ascontiguousarray).
 */
#ifndef FA_NPY_H
#define FA_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "fa_precision.h"

#define FA_NPY_MAXDIM 8
#define FA_NPY_MAX_ELEMS ((int64_t)1 << 34) /* 16 G elements: beyond that, refuse */

typedef struct {
    int ndim;                      /* 0 .. FA_NPY_MAXDIM */
    int64_t shape[FA_NPY_MAXDIM];  /* C order */
    int64_t n;                     /* product of the shape (1 for a 0-d array) */
    fa_format format;              /* element type as stored: fp64, fp32, fp16 or bf16 */
    double *data;                  /* n values, converted exactly to fp64 (malloc'd) */
} fa_npy;

/* Parses an .npy image of len bytes.  `name` (a file name) starts every error message;
 * u16_is_bf16: read 2-byte unsigned/void data as bfloat16.
 * Errors: FA_EINVAL with a message naming the problem (bad magic, unsupported version, malformed
 * header, unsupported dtype, Fortran order, bad shape, truncated or surplus data);
 * FA_ENOMEM.  On error *a is zeroed and owns nothing. */
fa_status fa_npy_parse(const unsigned char *buf, size_t len, const char *name, int u16_is_bf16,
                       fa_npy *a);

/* Reads a file and parses it.  Errors: as fa_npy_parse, FA_EIO if the file cannot be read. */
fa_status fa_npy_read(const char *path, int u16_is_bf16, fa_npy *a);

/* Frees the data (a may be zeroed). */
void fa_npy_free(fa_npy *a);

/* Writes n = prod(shape) values as an .npy version 1.0 file of format f (fp64, fp32, fp16, or
 * bf16 written as '<u2'), rounding to f.  Errors: FA_EINVAL (format, shape), FA_EIO ("cannot
 * write PATH: No space left on device"). */
fa_status fa_npy_write(const char *path, fa_format f, int ndim, const int64_t *shape,
                       const double *data);
/* fa_npy_write to path, its messages naming `name` instead (the file a user asked for, when path
 * is its temporary: fa_outset_target). */
fa_status fa_npy_write_as(const char *path, const char *name, fa_format f, int ndim, const int64_t *shape,
                          const double *data);

#endif
