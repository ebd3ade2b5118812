/* cp_ring.cu -- context-parallel attention forward over P GPUs with NCCL (issue 19): cpbench.
 *
 *   cpbench --P p --shape B,H,H_kv,N,d,causal [--scheme ring|allgather|zigzag|ulysses] [--kernel v3|v5]
 *           [--reps R] [--no-validate]
 *
 * The sequence is split into P chunks of N / P rows; GPU r holds Q, K, V rows [r N/P, (r+1) N/P)
 * (bf16, layout (B, heads, N/P, d) as fa_kernels.h).  One host thread a GPU, one NCCL
 * communicator (ncclCommInitRank), NCCL_NVLS_ENABLE=0 (NVLink multicast off).
 *   ring (Ring Attention, Liu et al. 2023): P steps; at step s GPU r computes its queries against
 *     the K/V chunk of GPU (r - s) mod P with the local kernel, which returns O_s and LSE_s, while
 *     grouped ncclSend / ncclRecv pass the chunk on to GPU r + 1 (a second stream: the transfer
 *     overlaps the step's compute).  Causal: the chunk of GPU r itself is the causal diagonal, the
 *     chunks of lower ranks are seen in full, of higher ranks not at all (the step is skipped).
 *   allgather (Megatron-style): ncclAllGather of K and V, then one local call of N/P queries
 *     against all N keys (causal: bottom-right anchor, which is exactly row offset r N/P).  The
 *     chunks are contiguous, so under the causal mask the last GPU does the most work (fasim's
 *     allgather model assumes the zigzag assignment: docs/context-parallel.md);
 *   zigzag (load-balanced ring): 2P chunks of N/2P rows, GPU r holding chunks r and 2P - 1 - r;
 *     the ring as above with both K/V chunks of a GPU in one buffer, four local calls a step
 *     (query chunk x against key chunk y: in full below the diagonal, masked on it, skipped above);
 *   ulysses (DeepSpeed-Ulysses): all-to-all (grouped ncclSend / ncclRecv with every peer) from
 *     sequence to head sharding, one local call of H/P query heads (H_kv/P kv heads) on the whole
 *     sequence, the all-to-all back for O and LSE; needs P | H and P | H_kv.
 * Merge of partial results by their LSE (the online softmax across chunks, exact):
 *   L = log(e^L_acc + e^L_s),  O_acc = O_acc e^(L_acc - L) + O_s e^(L_s - L)   (fp32 accumulator)
 * Validation (shapes that fit one GPU): every GPU also runs the same local kernel on the whole
 * sequence and compares its rows of O and LSE: pass when max|O_cp - O_1gpu| <= 2^-6 max|O_1gpu|
 * (the ring rounds each partial O to bf16 once, 2^-9 relative, and the merge adds at most 2P of
 * them) and |LSE_cp - LSE_1gpu| <= 1e-3 on every row.
 * Timing: CUDA events on GPU 0 around the whole forward, all GPUs started together by a
 * ncclAllReduce of one int and the interval closed by another (so it ends with the slowest GPU);
 * median of R.  The fasim model of the same run: `fasim io --cp P
 * --cp-scheme ...` (docs/context-parallel.md).  Exit status: 0 pass, 1 a check or CUDA/NCCL
 * failed, 2 bad usage. */
#include <cuda_bf16.h>
#include <math.h>
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

#include "fa_kernels.h"
#include "fa_rng.cuh"

#define CK(x)                                                                                                     \
    do {                                                                                                          \
        cudaError_t e_ = (x);                                                                                     \
        if (e_ != cudaSuccess) {                                                                                  \
            fprintf(stderr, "cpbench: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                 \
            exit(1);                                                                                              \
        }                                                                                                         \
    } while (0)
#define NK(x)                                                                                                     \
    do {                                                                                                          \
        ncclResult_t r_ = (x);                                                                                    \
        if (r_ != ncclSuccess) {                                                                                  \
            fprintf(stderr, "cpbench: %s:%d: NCCL: %s\n", __FILE__, __LINE__, ncclGetErrorString(r_));           \
            exit(1);                                                                                              \
        }                                                                                                         \
    } while (0)

enum { CP_RING = 0, CP_ALLGATHER = 1, CP_ZIGZAG = 2, CP_ULYSSES = 3 };
static const char *const CP_NAMES[] = {"ring", "allgather", "zigzag", "ulysses"};
struct Opts {
    int P, B, H, Hkv, N, d, causal, reps, validate;
    int scheme; /* CP_* */
    fa_kernel_id k;
};


/* element (b, h, row, c) of a (B, heads, N, d) tensor, drawn from its global index: every GPU can
 * make its own chunk (rows r0 ..) and the whole tensor alike */
__global__ void fill_rows(__nv_bfloat16 *x, int B, int heads, int N, int rows, int r0, int d, uint64_t seed)
{
    const long long n = (long long)B * heads * rows * d;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const long long c = i % d, row = (i / d) % rows, bh = i / ((long long)d * rows);
        const uint64_t g = ((uint64_t)bh * N + (uint64_t)(r0 + row)) * d + c;
        x[i] = __float2bfloat16(fa_normal_of(fa_splitmix64(seed ^ fa_splitmix64(g))));
    }
}

/* O_acc, L_acc (fp32, rows of d) <- the LSE merge with (O_s bf16, L_s); first: take O_s as is */
__global__ void lse_merge(float *Oacc, float *Lacc, const __nv_bfloat16 *Os, const float *Ls, long long rows, int d, int first)
{
    const long long n = rows * d;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / d;
        const float ls = Ls[r], o = __bfloat162float(Os[i]);
        if (first) {
            Oacc[i] = o;
            continue;
        }
        const float la = Lacc[r], m = fmaxf(la, ls);
        if (m == -INFINITY) continue; /* neither has a key yet */
        const float wa = expf(la - m), ws = expf(ls - m);
        Oacc[i] = (Oacc[i] * wa + o * ws) / (wa + ws);
    }
}
__global__ void lse_merge_rows(float *Lacc, const float *Ls, long long rows, int first)
{
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows; r += (long long)gridDim.x * blockDim.x) {
        const float ls = Ls[r], la = first ? -INFINITY : Lacc[r], m = fmaxf(la, ls);
        Lacc[r] = m == -INFINITY ? -INFINITY : m + logf(expf(la - m) + expf(ls - m));
    }
}
__global__ void to_bf16(__nv_bfloat16 *y, const float *x, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] = __float2bfloat16(x[i]);
}

struct Rank {
    int r;
    double ms;  /* rank 0: median forward time */
    double err, ref_max, err_lse;
    int ok;
};

/* This GPU's rows of O and LSE that validation compares with the whole-sequence run: rows
 * [row0, row0 + nrows) of every (batch, head), O (B, H, nrows, d) bf16, L (B, H, nrows) fp32. */
struct Seg {
    const __nv_bfloat16 *O;
    const float *L;
    int nrows, row0;
};

/* (P, X, w) packed <-> strided: for peer p, `height` rows of w elements at src + p * off with pitch
 * spitch go to dst + p * height * w (pack), or the reverse (unpack); element size es bytes */
static void pack_peers(void *dst, const void *src, int P, long long off, long long spitch, long long w, long long height,
                       int es, cudaStream_t st)
{
    for (int p = 0; p < P; p++)
        CK(cudaMemcpy2DAsync((char *)dst + (size_t)p * height * w * es, (size_t)w * es, (const char *)src + (size_t)p * off * es,
                             (size_t)spitch * es, (size_t)w * es, (size_t)height, cudaMemcpyDeviceToDevice, st));
}
static void unpack_peers(void *dst, const void *src, int P, long long off, long long dpitch, long long w, long long height,
                         int es, cudaStream_t st)
{
    for (int p = 0; p < P; p++)
        CK(cudaMemcpy2DAsync((char *)dst + (size_t)p * off * es, (size_t)dpitch * es, (const char *)src + (size_t)p * height * w * es,
                             (size_t)w * es, (size_t)w * es, (size_t)height, cudaMemcpyDeviceToDevice, st));
}
/* grouped send/recv of `count` elements with every peer (the all-to-all as NCCL's point-to-point
 * calls provide it; to itself a device copy) */
static void all_to_all(const void *send, void *recv, size_t count, ncclDataType_t t, int es, int r, int P, ncclComm_t comm,
                       cudaStream_t st)
{
    NK(ncclGroupStart());
    for (int p = 0; p < P; p++) {
        if (p == r) continue;
        NK(ncclSend((const char *)send + (size_t)p * count * es, count, t, p, comm, st));
        NK(ncclRecv((char *)recv + (size_t)p * count * es, count, t, p, comm, st));
    }
    NK(ncclGroupEnd());
    CK(cudaMemcpyAsync((char *)recv + (size_t)r * count * es, (const char *)send + (size_t)r * count * es, count * es,
                       cudaMemcpyDeviceToDevice, st));
}

static void run_rank(const Opts &o, ncclUniqueId id, Rank *out)
{
    const int r = out->r, P = o.P, n = o.N / P;
    CK(cudaSetDevice(r));
    ncclComm_t comm;
    NK(ncclCommInitRank(&comm, P, id, r));
    cudaStream_t cs, xs; /* compute, transfer */
    CK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&xs, cudaStreamNonBlocking));
    const float scale = (float)(1.0 / sqrt((double)o.d));
    cudaEvent_t e0, e1, done;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    std::vector<void *> bufs; /* freed at the end */
    auto dmalloc = [&](size_t bytes) {
        void *p = NULL;
        CK(cudaMalloc(&p, bytes));
        bufs.push_back(p);
        return p;
    };
    std::function<void()> forward, reset;
    std::vector<Seg> segs;

    /* the LSE merge of one partial (Os, Ls: rows of d) into (Oacc, Lacc) */
    auto merge = [&](float *Oacc, float *Lacc, const __nv_bfloat16 *Os, const float *Ls, long long rows, int first) {
        lse_merge<<<2048, 256, 0, cs>>>(Oacc, Lacc, Os, Ls, rows, o.d, first);
        lse_merge_rows<<<256, 256, 0, cs>>>(Lacc, Ls, rows, first);
    };

    if (o.scheme == CP_RING || o.scheme == CP_ALLGATHER) {
        const long long q_el = (long long)o.B * o.H * n * o.d, kv_el = (long long)o.B * o.Hkv * n * o.d;
        const long long rows = (long long)o.B * o.H * n;
        __nv_bfloat16 *Q = (__nv_bfloat16 *)dmalloc(q_el * 2), *Os = (__nv_bfloat16 *)dmalloc(q_el * 2);
        __nv_bfloat16 *O = (__nv_bfloat16 *)dmalloc(q_el * 2);
        __nv_bfloat16 *KV[2];
        for (int i = 0; i < 2; i++) KV[i] = (__nv_bfloat16 *)dmalloc(2 * kv_el * 2); /* K then V */
        float *Ls = (float *)dmalloc(rows * 4), *Oacc = (float *)dmalloc(q_el * 4), *Lacc = (float *)dmalloc(rows * 4);
        fill_rows<<<1024, 256, 0, cs>>>(Q, o.B, o.H, o.N, n, r * n, o.d, 11);
        CK(cudaGetLastError());
        const fa_gpu_shape loc = {o.B, o.H, o.Hkv, n, n, o.d, 0, scale};
        __nv_bfloat16 *KVall = NULL, *Kall = NULL, *Vall = NULL;
        if (o.scheme == CP_ALLGATHER) { /* (P, B, H_kv, n, d) gathered, then rows reordered to (B, H_kv, N, d) */
            KVall = (__nv_bfloat16 *)dmalloc(2 * kv_el * P * 2);
            Kall = (__nv_bfloat16 *)dmalloc(kv_el * P * 2);
            Vall = (__nv_bfloat16 *)dmalloc(kv_el * P * 2);
        }
        forward = [=, &o]() {
            if (o.scheme == CP_ALLGATHER) {
                NK(ncclGroupStart());
                NK(ncclAllGather(KV[0], KVall, kv_el, ncclBfloat16, comm, cs));
                NK(ncclAllGather(KV[0] + kv_el, KVall + kv_el * P, kv_el, ncclBfloat16, comm, cs));
                NK(ncclGroupEnd());
                /* KVall holds (rank, B H_kv, n, d) for K, then for V; the rows of rank p go to rows
                 * p n .. of every head: one strided 2-D copy per rank and tensor */
                for (int t = 0; t < 2; t++)
                    unpack_peers(t ? Vall : Kall, KVall + (long long)t * kv_el * P, P, (long long)n * o.d, (long long)P * n * o.d,
                                 (long long)n * o.d, (long long)o.B * o.Hkv, 2, cs);
                fa_gpu_shape g = loc;
                g.N_k = o.N;
                g.causal = o.causal;
                if (o.causal && r != P - 1) {
                    /* causal: query row i of chunk r sees keys <= r n + i, which is the bottom-right anchor
                     * of a call with N_k = (r + 1) n: the first (r + 1) n keys of every head, compacted */
                    g.N_k = (r + 1) * n;
                    for (int t = 0; t < 2; t++)
                        CK(cudaMemcpy2DAsync(KVall + (long long)t * kv_el * P, (size_t)g.N_k * o.d * 2, t ? Vall : Kall,
                                             (size_t)P * n * o.d * 2, (size_t)g.N_k * o.d * 2, (size_t)o.B * o.Hkv,
                                             cudaMemcpyDeviceToDevice, cs));
                    CK(fa_gpu_forward(o.k, &g, FA_GPU_BF16, Q, KVall, KVall + kv_el * P, O, Ls, NULL, cs));
                } else {
                    CK(fa_gpu_forward(o.k, &g, FA_GPU_BF16, Q, Kall, Vall, O, Ls, NULL, cs));
                }
                return;
            }
            int cur = 0, first = 1;
            for (int s = 0; s < P; s++) {
                const int src = ((r - s) % P + P) % P;
                if (s + 1 < P) { /* pass the chunk on while this step computes */
                    CK(cudaEventRecord(done, cs)); /* the buffer cur + 1 was read by step s - 1 */
                    CK(cudaStreamWaitEvent(xs, done, 0));
                    NK(ncclGroupStart());
                    NK(ncclSend(KV[cur], 2 * kv_el, ncclBfloat16, (r + 1) % P, comm, xs));
                    NK(ncclRecv(KV[cur ^ 1], 2 * kv_el, ncclBfloat16, (r - 1 + P) % P, comm, xs));
                    NK(ncclGroupEnd());
                }
                if (!(o.causal && src > r)) {
                    fa_gpu_shape st = loc;
                    st.causal = o.causal && src == r;
                    CK(fa_gpu_forward(o.k, &st, FA_GPU_BF16, Q, KV[cur], KV[cur] + kv_el, Os, Ls, NULL, cs));
                    merge(Oacc, Lacc, Os, Ls, rows, first);
                    first = 0;
                }
                if (s + 1 < P) { /* the next step reads the received chunk */
                    CK(cudaEventRecord(done, xs));
                    CK(cudaStreamWaitEvent(cs, done, 0));
                    cur ^= 1;
                }
            }
            to_bf16<<<2048, 256, 0, cs>>>(O, Oacc, q_el);
        };
        /* the ring passes the K/V chunks around: restore this GPU's own before each run */
        reset = [=, &o]() {
            fill_rows<<<1024, 256, 0, cs>>>(KV[0], o.B, o.Hkv, o.N, n, r * n, o.d, 22);
            fill_rows<<<1024, 256, 0, cs>>>(KV[0] + kv_el, o.B, o.Hkv, o.N, n, r * n, o.d, 33);
        };
        segs.push_back({O, o.scheme == CP_ALLGATHER ? Ls : Lacc, n, r * n});
    } else if (o.scheme == CP_ZIGZAG) {
        /* zigzag (load-balanced ring, as Megatron-LM's context parallelism and zigzag Ring Attention
         * assign it): the sequence in 2P chunks of c = N / 2P rows; GPU r holds chunks r and 2P - 1 - r
         * of Q, K, V, so under the causal mask every GPU does the same work.  The ring passes both
         * K/V chunks of a GPU (one buffer: K_a, K_b, V_a, V_b, each (B, H_kv, c, d)); query chunk x
         * against key chunk y: y < x in full, y = x the causal diagonal, y > x skipped. */
        const int c = o.N / (2 * P), cq[2] = {r, 2 * P - 1 - r};
        const long long qh = (long long)o.B * o.H * c * o.d, kvh = (long long)o.B * o.Hkv * c * o.d, rows = (long long)o.B * o.H * c;
        __nv_bfloat16 *Qz[2], *Oz[2], *KV[2];
        float *Oacc[2], *Lacc[2];
        for (int h = 0; h < 2; h++) {
            Qz[h] = (__nv_bfloat16 *)dmalloc(qh * 2);
            Oz[h] = (__nv_bfloat16 *)dmalloc(qh * 2);
            Oacc[h] = (float *)dmalloc(qh * 4);
            Lacc[h] = (float *)dmalloc(rows * 4);
            KV[h] = (__nv_bfloat16 *)dmalloc(4 * kvh * 2);
            fill_rows<<<1024, 256, 0, cs>>>(Qz[h], o.B, o.H, o.N, c, cq[h] * c, o.d, 11);
        }
        __nv_bfloat16 *Os = (__nv_bfloat16 *)dmalloc(qh * 2);
        float *Ls = (float *)dmalloc(rows * 4);
        CK(cudaGetLastError());
        const fa_gpu_shape loc = {o.B, o.H, o.Hkv, c, c, o.d, 0, scale};
        forward = [=, &o]() {
            int cur = 0, first[2] = {1, 1};
            for (int s = 0; s < P; s++) {
                const int src = ((r - s) % P + P) % P, ck[2] = {src, 2 * P - 1 - src};
                if (s + 1 < P) {
                    CK(cudaEventRecord(done, cs));
                    CK(cudaStreamWaitEvent(xs, done, 0));
                    NK(ncclGroupStart());
                    NK(ncclSend(KV[cur], 4 * kvh, ncclBfloat16, (r + 1) % P, comm, xs));
                    NK(ncclRecv(KV[cur ^ 1], 4 * kvh, ncclBfloat16, (r - 1 + P) % P, comm, xs));
                    NK(ncclGroupEnd());
                }
                for (int qx = 0; qx < 2; qx++)
                    for (int ky = 0; ky < 2; ky++) {
                        if (o.causal && ck[ky] > cq[qx]) continue;
                        fa_gpu_shape st = loc;
                        st.causal = o.causal && ck[ky] == cq[qx];
                        const __nv_bfloat16 *K = KV[cur] + (long long)ky * kvh, *V = KV[cur] + (long long)(2 + ky) * kvh;
                        CK(fa_gpu_forward(o.k, &st, FA_GPU_BF16, Qz[qx], K, V, Os, Ls, NULL, cs));
                        merge(Oacc[qx], Lacc[qx], Os, Ls, rows, first[qx]);
                        first[qx] = 0;
                    }
                if (s + 1 < P) {
                    CK(cudaEventRecord(done, xs));
                    CK(cudaStreamWaitEvent(cs, done, 0));
                    cur ^= 1;
                }
            }
            for (int h = 0; h < 2; h++) to_bf16<<<2048, 256, 0, cs>>>(Oz[h], Oacc[h], qh);
        };
        reset = [=, &o]() {
            for (int h = 0; h < 2; h++) {
                fill_rows<<<1024, 256, 0, cs>>>(KV[0] + (long long)h * kvh, o.B, o.Hkv, o.N, c, cq[h] * c, o.d, 22);
                fill_rows<<<1024, 256, 0, cs>>>(KV[0] + (long long)(2 + h) * kvh, o.B, o.Hkv, o.N, c, cq[h] * c, o.d, 33);
            }
        };
        for (int h = 0; h < 2; h++) segs.push_back({Oz[h], Lacc[h], c, cq[h] * c});
    } else { /* CP_ULYSSES */
        /* DeepSpeed-Ulysses: all-to-all from sequence sharding (GPU r: rows r n .., every head) to head
         * sharding (GPU r: query heads r H/P .., kv heads r H_kv/P .., every row), one local call on
         * the whole sequence, and the all-to-all back for O and LSE.  Needs P | H and P | H_kv (the
         * query-to-kv head ratio is kept on every GPU). */
        const int hq = o.H / P, hk = o.Hkv / P;
        const long long q_el = (long long)o.B * o.H * n * o.d, kv_el = (long long)o.B * o.Hkv * n * o.d, rows = (long long)o.B * o.H * n;
        __nv_bfloat16 *Q = (__nv_bfloat16 *)dmalloc(q_el * 2), *K = (__nv_bfloat16 *)dmalloc(kv_el * 2);
        __nv_bfloat16 *V = (__nv_bfloat16 *)dmalloc(kv_el * 2), *O = (__nv_bfloat16 *)dmalloc(q_el * 2);
        __nv_bfloat16 *sendb = (__nv_bfloat16 *)dmalloc(q_el * 2), *recvb = (__nv_bfloat16 *)dmalloc(q_el * 2);
        __nv_bfloat16 *Qh = (__nv_bfloat16 *)dmalloc(q_el * 2), *Kh = (__nv_bfloat16 *)dmalloc(kv_el * 2);
        __nv_bfloat16 *Vh = (__nv_bfloat16 *)dmalloc(kv_el * 2), *Oh = (__nv_bfloat16 *)dmalloc(q_el * 2);
        float *Lh = (float *)dmalloc(rows * 4), *L = (float *)dmalloc(rows * 4);
        float *lsend = (float *)dmalloc(rows * 4), *lrecv = (float *)dmalloc(rows * 4);
        fill_rows<<<1024, 256, 0, cs>>>(Q, o.B, o.H, o.N, n, r * n, o.d, 11);
        fill_rows<<<1024, 256, 0, cs>>>(K, o.B, o.Hkv, o.N, n, r * n, o.d, 22);
        fill_rows<<<1024, 256, 0, cs>>>(V, o.B, o.Hkv, o.N, n, r * n, o.d, 33);
        CK(cudaGetLastError());
        const fa_gpu_shape g = {o.B, hq, hk, o.N, o.N, o.d, o.causal, scale};
        /* X (B, heads, n, d) of this GPU's rows -> Y (B, heads / P, N, d) of its heads */
        auto to_heads = [=](const __nv_bfloat16 *X, __nv_bfloat16 *Y, int heads) {
            const int h = heads / P;
            const long long blk = (long long)h * n * o.d; /* one batch's heads of one peer */
            /* peer p gets heads p h .. of every batch: B rows of blk elements, pitch heads n d */
            pack_peers(sendb, X, P, blk, (long long)heads * n * o.d, blk, o.B, 2, cs);
            all_to_all(sendb, recvb, (size_t)o.B * blk, ncclBfloat16, 2, r, P, comm, cs);
            /* from peer p: (B, h, n, d) of rows p n ..: B h blocks of n d at pitch N d in Y */
            unpack_peers(Y, recvb, P, (long long)n * o.d, (long long)o.N * o.d, (long long)n * o.d, (long long)o.B * h, 2, cs);
        };
        forward = [=, &o]() {
            to_heads(Q, Qh, o.H);
            to_heads(K, Kh, o.Hkv);
            to_heads(V, Vh, o.Hkv);
            CK(fa_gpu_forward(o.k, &g, FA_GPU_BF16, Qh, Kh, Vh, Oh, Lh, NULL, cs));
            /* back: Oh (B, hq, N, d) -> O (B, H, n, d); Lh (B, hq, N) -> L (B, H, n) */
            pack_peers(sendb, Oh, P, (long long)n * o.d, (long long)o.N * o.d, (long long)n * o.d, (long long)o.B * hq, 2, cs);
            all_to_all(sendb, recvb, (size_t)o.B * hq * n * o.d, ncclBfloat16, 2, r, P, comm, cs);
            unpack_peers(O, recvb, P, (long long)hq * n * o.d, (long long)o.H * n * o.d, (long long)hq * n * o.d, o.B, 2, cs);
            pack_peers(lsend, Lh, P, n, o.N, n, (long long)o.B * hq, 4, cs);
            all_to_all(lsend, lrecv, (size_t)o.B * hq * n, ncclFloat, 4, r, P, comm, cs);
            unpack_peers(L, lrecv, P, (long long)hq * n, (long long)o.H * n, (long long)hq * n, o.B, 4, cs);
        };
        reset = []() {};
        segs.push_back({O, L, n, r * n});
    }

    int *sync_i = (int *)dmalloc(sizeof(int));
    CK(cudaMemset(sync_i, 0, sizeof(int)));
    std::vector<float> t(o.reps);
    for (int i = -1; i < o.reps; i++) { /* i = -1: warm-up */
        reset();
        NK(ncclAllReduce(sync_i, sync_i, 1, ncclInt, ncclSum, comm, cs)); /* start together */
        CK(cudaEventRecord(e0, cs));
        forward();
        NK(ncclAllReduce(sync_i, sync_i, 1, ncclInt, ncclSum, comm, cs)); /* e1 after the slowest GPU */
        CK(cudaEventRecord(e1, cs));
        CK(cudaStreamSynchronize(cs));
        CK(cudaGetLastError());
        if (i >= 0) CK(cudaEventElapsedTime(&t[i], e0, e1));
    }
    std::sort(t.begin(), t.end());
    out->ms = o.reps ? (o.reps % 2 ? t[o.reps / 2] : 0.5 * (t[o.reps / 2 - 1] + t[o.reps / 2])) : NAN;
    out->ok = 1, out->err = 0, out->ref_max = 0, out->err_lse = 0;
    if (o.validate) { /* the whole sequence on this GPU with the same kernel */
        const long long fq = (long long)o.B * o.H * o.N * o.d, fkv = (long long)o.B * o.Hkv * o.N * o.d;
        const long long frows = (long long)o.B * o.H * o.N;
        __nv_bfloat16 *Qf, *Kf, *Vf, *Of;
        float *Lf;
        CK(cudaMalloc(&Qf, fq * 2));
        CK(cudaMalloc(&Kf, fkv * 2));
        CK(cudaMalloc(&Vf, fkv * 2));
        CK(cudaMalloc(&Of, fq * 2));
        CK(cudaMalloc(&Lf, frows * 4));
        fill_rows<<<1024, 256, 0, cs>>>(Qf, o.B, o.H, o.N, o.N, 0, o.d, 11);
        fill_rows<<<1024, 256, 0, cs>>>(Kf, o.B, o.Hkv, o.N, o.N, 0, o.d, 22);
        fill_rows<<<1024, 256, 0, cs>>>(Vf, o.B, o.Hkv, o.N, o.N, 0, o.d, 33);
        const fa_gpu_shape full = {o.B, o.H, o.Hkv, o.N, o.N, o.d, o.causal, scale};
        CK(fa_gpu_forward(o.k, &full, FA_GPU_BF16, Qf, Kf, Vf, Of, Lf, NULL, cs));
        CK(cudaStreamSynchronize(cs));
        std::vector<__nv_bfloat16> b(fq);
        std::vector<float> lb(frows);
        CK(cudaMemcpy(b.data(), Of, fq * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(lb.data(), Lf, frows * 4, cudaMemcpyDeviceToHost));
        double e = 0, mx = 0, el = 0;
        int bad = 0;
        const long long BH = (long long)o.B * o.H;
        for (const Seg &sg : segs) {
            /* LSE beside O: it separates a wrong mask or merge far better than O does (a review's
             * emulation at P = 2, N = 4096: 7e-15 when right, 0.74 with an unmasked diagonal) */
            std::vector<__nv_bfloat16> a(BH * sg.nrows * o.d);
            std::vector<float> la(BH * sg.nrows);
            CK(cudaMemcpy(a.data(), sg.O, a.size() * 2, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(la.data(), sg.L, la.size() * 4, cudaMemcpyDeviceToHost));
            for (long long bh = 0; bh < BH; bh++) {
                for (long long i = 0; i < (long long)sg.nrows * o.d; i++) {
                    const double x = __bfloat162float(a[bh * sg.nrows * o.d + i]);
                    const double y = __bfloat162float(b[bh * o.N * o.d + (long long)sg.row0 * o.d + i]);
                    if (!isfinite(x)) bad++;
                    e = fmax(e, fabs(x - y));
                    mx = fmax(mx, fabs(y));
                }
                for (long long i = 0; i < sg.nrows; i++) {
                    const double x = la[bh * sg.nrows + i], y = lb[bh * o.N + sg.row0 + i];
                    if (isinf(x) && isinf(y) && (x < 0) == (y < 0)) continue;
                    if (!isfinite(x) || !isfinite(y)) bad++;
                    else el = fmax(el, fabs(x - y));
                }
            }
        }
        out->err = e, out->ref_max = mx, out->err_lse = el;
        out->ok = !bad && e <= ldexp(mx, -6) && el <= 1e-3;
        for (void *p : {(void *)Qf, (void *)Kf, (void *)Vf, (void *)Of, (void *)Lf}) CK(cudaFree(p));
    }
    for (void *p : bufs) CK(cudaFree(p));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaEventDestroy(done));
    CK(cudaStreamDestroy(cs));
    CK(cudaStreamDestroy(xs));
    NK(ncclCommDestroy(comm));
}

static void usage(const char *why, const char *val)
{
    fprintf(stderr, "cpbench: %s%s%s\nusage: cpbench --P p --shape B,H,H_kv,N,d,causal [--scheme ring|allgather|zigzag|ulysses] "
                    "[--kernel v3|v5] [--reps R] [--no-validate]\n",
            why, val ? ": " : "", val ? val : "");
    exit(2);
}

int main(int argc, char **argv)
{
    Opts o = {1, 0, 0, 0, 0, 0, 0, 10, 1, 0, FA_K_V3_MT2};
    int have_shape = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--P") && v) o.P = atoi(v), i++;
        else if (!strcmp(a, "--shape") && v) {
            if (sscanf(v, "%d,%d,%d,%d,%d,%d", &o.B, &o.H, &o.Hkv, &o.N, &o.d, &o.causal) != 6)
                usage("--shape wants B,H,H_kv,N,d,causal", v);
            have_shape = 1, i++;
        } else if (!strcmp(a, "--scheme") && v) {
            o.scheme = -1;
            for (int k = 0; k < 4; k++)
                if (!strcmp(v, CP_NAMES[k])) o.scheme = k;
            if (o.scheme < 0) usage("--scheme wants ring, allgather, zigzag or ulysses", v);
            i++;
        } else if (!strcmp(a, "--kernel") && v) {
            if (!strcmp(v, "v3")) o.k = FA_K_V3_MT2;
            else if (!strcmp(v, "v5")) o.k = FA_K_V5;
            else usage("--kernel wants v3 or v5", v);
            i++;
        } else if (!strcmp(a, "--reps") && v) o.reps = atoi(v), i++;
        else if (!strcmp(a, "--no-validate")) o.validate = 0;
        else usage("unknown option or missing value", a);
    }
    if (!have_shape) usage("--shape is required", NULL);
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess) ndev = 0;
    if (o.P < 1 || o.P > 1024) usage("--P must be in [1, 1024]", NULL);
    if (o.reps < 0 || o.reps > 10000) usage("--reps must be in [0, 10000]", NULL);
    const int parts = o.scheme == CP_ZIGZAG ? 2 * o.P : o.P; /* zigzag: 2P chunks */
    if (o.N % parts) {
        fprintf(stderr, "cpbench: N = %d is not a multiple of %s = %d\n", o.N, o.scheme == CP_ZIGZAG ? "2P" : "P", parts);
        return 2;
    }
    if (o.scheme == CP_ULYSSES && (o.H % o.P || o.Hkv % o.P)) {
        fprintf(stderr, "cpbench: ulysses needs P = %d to divide H = %d and H_kv = %d\n", o.P, o.H, o.Hkv);
        return 2;
    }
    fa_gpu_shape loc = {o.B, o.H, o.Hkv, o.N / parts, o.N / parts, o.d, o.causal, 1.f};
    if (o.scheme == CP_ULYSSES) loc = {o.B, o.H / o.P, o.Hkv / o.P, o.N, o.N, o.d, o.causal, 1.f};
    const char *why = fa_gpu_check_shape(o.k, &loc);
    if (why) {
        fprintf(stderr, "cpbench: %s: %s\n", fa_kernel_name(o.k), why);
        return 2;
    }
    if (o.P > ndev) {
        fprintf(stderr, "cpbench: --P %d needs %d GPUs, this machine has %d\n", o.P, o.P, ndev);
        return 2;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 1); /* NVLink multicast off in every run */
    ncclUniqueId id;
    NK(ncclGetUniqueId(&id));
    std::vector<Rank> ranks(o.P);
    std::vector<std::thread> th;
    for (int r = 0; r < o.P; r++) {
        ranks[r].r = r;
        th.emplace_back(run_rank, std::cref(o), id, &ranks[r]);
    }
    for (auto &x : th) x.join();
    int ok = 1;
    for (const Rank &x : ranks) {
        if (o.validate)
            printf("  GPU %d: max|O_cp - O_1gpu| %.3e (tol 2^-6 x %.3e), max|LSE_cp - LSE_1gpu| %.3e (tol 1e-3) %s\n", x.r, x.err,
                   x.ref_max, x.err_lse, x.ok ? "PASS" : "FAIL");
        ok = ok && x.ok;
    }
    const double flops = 4.0 * o.B * o.H * (double)o.N * o.N * o.d * (o.causal ? 0.5 : 1);
    printf("cp %s P %d B %d H %d H_kv %d N %d d %d causal %d %s: %.3f ms  %.1f TFLOP/s (all GPUs)  %s\n",
           CP_NAMES[o.scheme], o.P, o.B, o.H, o.Hkv, o.N, o.d, o.causal, fa_kernel_name(o.k), ranks[0].ms,
           flops / (ranks[0].ms * 1e-3) / 1e12, o.validate ? (ok ? "PASS" : "FAIL") : "unchecked");
    return ok ? 0 : 1;
}
