#!/usr/bin/env python3
"""gen_wgmma.py -- writes the wgmma.mma_async wrappers of kernels/wgmma.cuh (the operand lists are
long: one "+f" per accumulator register, N / 2 of them for m64nN).

    python3 kernels/gen_wgmma.py ss 192 176     # SS wrappers (A and B from shared memory)
    python3 kernels/gen_wgmma.py rs 64 128      # RS wrappers (A from registers, B transposed)
    python3 kernels/gen_wgmma.py sstt 64        # SS wrappers with A and B transposed (MN-major)
    python3 kernels/gen_wgmma.py ss8 128        # e4m3 SS wrappers (m64nNk32, both K-major)
    python3 kernels/gen_wgmma.py rs8 128        # e4m3 RS wrappers (A from registers, B K-major)

prints the specializations for bf16 and fp16 of the given N to stdout (PTX ISA 8.x,
"wgmma.mma_async": m64nNk16, f32 accumulators, scale-d predicate, imm-scale-a/b 1, tnspA 0,
tnspB 0 for SS and 1 for RS; tnspA = tnspB = 1 for SSTT: the v5 backward's dQ = dS K reads dS^T
and K as stored, both contiguous along M / N).  SS8 and RS8: e4m3 x e4m3 -> f32, m64nNk32; fp8
wgmma has no transpose immediates (both operands K-major), so the PTX form has none.)"""
import sys

TYPES = [("__nv_bfloat16", "bf16"), ("__half", "f16")]


def ss(n, ctype, ptx, tt=False):
    """SS wrapper; tt: A and B transposed (MN-major), wg_mma_ss_tt"""
    r = n // 2
    regs = ",".join("%%%d" % i for i in range(r))
    outs = ", ".join('"+f"(d[%d])' % i for i in range(r))
    head = "/* SS with A and B transposed (MN-major): A = (K x M) and B = (K x N) as stored */\n" if tt else ""
    name, trans = ("wg_mma_ss_tt", "1, 1") if tt else ("wg_mma_ss", "0, 0")
    return (head + f"template <> __device__ __forceinline__ void {name}<{n}, {ctype}>(float *d, uint64_t da, uint64_t db, int scale_d)\n"
            "{\n#if FA_HAVE_WGMMA\n"
            f'    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"\n'
            f'                 "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx}.{ptx} {{{regs}}}, %{r}, %{r + 1}, p, 1, 1, {trans};\\n}}\\n"\n'
            f"                 : {outs}\n"
            '                 : "l"(da), "l"(db), "r"(scale_d));\n#endif\n}\n')


def rs(n, ctype, ptx):
    r = n // 2
    regs = ",".join("%%%d" % i for i in range(r))
    outs = ", ".join('"+f"(d[%d])' % i for i in range(r))
    return ("/* RS: A (4 registers a warp-fragment) from registers, B from shared memory, transposed (MN-major) */\n"
            f"template <> __device__ __forceinline__ void wg_mma_rs_tb<{n}, {ctype}>(float *d, const uint32_t *a, uint64_t db)\n"
            "{\n#if FA_HAVE_WGMMA\n"
            f'    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 5}, 0;\\n"\n'
            f'                 "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx}.{ptx} {{{regs}}}, {{%{r},%{r + 1},%{r + 2},%{r + 3}}}, %{r + 4}, p, 1, 1, 1;\\n}}\\n"\n'
            f"                 : {outs}\n"
            '                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));\n#endif\n}\n')


def fp8(n, rs):
    """e4m3 wrapper (wg_mma_ss_e4m3 / wg_mma_rs_e4m3): m64nNk32, K-major A and B, no transpose"""
    r = n // 2
    regs = ",".join("%%%d" % i for i in range(r))
    outs = ", ".join('"+f"(d[%d])' % i for i in range(r))
    if rs:
        sig, a, ins = "const uint32_t *a, uint64_t db, int scale_d", "{%%%d,%%%d,%%%d,%%%d}, %%%d" % (r, r + 1, r + 2, r + 3, r + 4), \
            '"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d)'
        p = r + 5
    else:
        sig, a, ins = "uint64_t da, uint64_t db, int scale_d", "%%%d, %%%d" % (r, r + 1), '"l"(da), "l"(db), "r"(scale_d)'
        p = r + 2
    name = "wg_mma_rs_e4m3" if rs else "wg_mma_ss_e4m3"
    return (f"template <> __device__ __forceinline__ void {name}<{n}>(float *d, {sig})\n"
            "{\n#if FA_HAVE_WGMMA\n"
            f'    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{p}, 0;\\n"\n'
            f'                 "wgmma.mma_async.sync.aligned.m64n{n}k32.f32.e4m3.e4m3 {{{regs}}}, {a}, p, 1, 1;\\n}}\\n"\n'
            f"                 : {outs}\n"
            f"                 : {ins});\n#endif\n}}\n")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("ss", "rs", "sstt", "ss8", "rs8"):
        sys.exit("usage: gen_wgmma.py ss|rs|sstt|ss8|rs8 N [N ...]")
    f = {"ss": ss, "rs": rs, "sstt": lambda n, c, p: ss(n, c, p, tt=True)}.get(sys.argv[1])
    for n in sys.argv[2:]:
        n = int(n)
        if n % 8 or not 8 <= n <= 256:
            sys.exit("N must be a multiple of 8 in [8, 256]")
        if f is None:
            sys.stdout.write(fp8(n, sys.argv[1] == "rs8"))
            continue
        for ctype, ptx in TYPES:
            sys.stdout.write(f(n, ctype, ptx))
