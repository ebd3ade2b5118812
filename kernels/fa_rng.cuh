/* fa_rng.cuh -- the device random numbers of fabench, fabench --fp8, cpbench and the FP8 pre-pass's
 * Hadamard signs: SplitMix64 (Steele, Lea and Flood 2014; the constants of Vigna's splitmix64.c) and
 * a Box-Muller N(0, 1) from one 64-bit draw.  The host's twin is cpu_ref/fa_fp8.h's
 * fa_fp8_splitmix64 (the same function, so the emulation draws the same Hadamard signs). */
#ifndef FA_RNG_CUH
#define FA_RNG_CUH
#include <stdint.h>

/* One SplitMix64 step from x (uint64 arithmetic).  fa_splitmix64(0) = 0xE220A8397B1DCDAF. */
__host__ __device__ __forceinline__ uint64_t fa_splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* N(0, 1) from the draw r by Box-Muller: u1 in (0, 1] from its top 24 bits, u2 in [0, 1) from bits
 * 16..39, z = sqrt(-2 ln u1) cos(2 pi u2) (fp32) */
__device__ __forceinline__ float fa_normal_of(uint64_t r)
{
    const float u1 = ((r >> 40) + 1) * (1.0f / 16777217.0f), u2 = ((r >> 16) & 0xFFFFFF) * (1.0f / 16777216.0f);
    return sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
}

#endif
