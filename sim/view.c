/* view.c -- row views of HBM tensors (packed variable-length batches). */
#include <inttypes.h>

#include "fa_sim.h"

fa_status fa_tensor_view_rows(const fa_tensor *t, int64_t row0, int64_t rows, fa_tensor *view)
{
    if (rows < 1 || row0 < 0 || row0 > t->shape[2] - rows)
        FA_FAIL(FA_EINVAL,
                "view rows [%" PRId64 ", +%" PRId64 ") leave tensor %s with %" PRId64 " rows",
                row0, rows, t->name, t->shape[2]);
    fa_tensor v = *t; /* same name, counter id, strides and data */
    v.shape[2] = rows;
    v.row_base = t->row_base + row0;
    *view = v;
    return FA_OK;
}
