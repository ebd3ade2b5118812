# TFLOP/s vs N of fasim's kernels beside PyTorch SDPA (flash = FlashAttention-2, cuDNN), one
# head dim and mask per plot, from the measured CSVs (kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms,tflops,...).
# Usage: gnuplot -e "ours='fabench_sweep.csv'; sdpa='sdpa_sweep.csv'; hd=128; causal=0; outfile='x.png'" plots/tflops_vs_n.gp
set terminal pngcairo size 1000,650 enhanced font ",11"
set output outfile
set datafile separator ","
set key at graph 0.98, graph 0.36 right top box opaque   # the empty band between the fp32 and bf16 curves
set logscale x 2
# N as the field writes it: 512, 1k, 2k, ... 512k, 1M (k = 2^10, M = 2^20 tokens), one label a power of 2
nlab(k) = k < 10 ? sprintf("%d", 2**k) : k < 20 ? sprintf("%dk", 2**(k - 10)) : sprintf("%dM", 2**(k - 20))
set xtics () ; do for [k=0:30] { set xtics add (nlab(k) 2.0**k) }
stats ours using 5 skip 1 nooutput name "NX"
set xrange [NX_min / 1.001 : NX_max * 1.001]
set xlabel "sequence length N (tokens; 1k = 1024; batch x N = 16k tokens, H = 2048 / d)"
set ylabel "TFLOP/s (FlashAttention-2 FLOP convention)"
bn(f) = f[strstrt(f, "/h200/") > 0 ? strstrt(f, "/h200/") + 6 : 1 :]  # the file name, its folder said once
set title sprintf("Forward, d = %d, %s, H200: measured TFLOP/s\nanalysis/measured/h200/: kernels/ %s, PyTorch SDPA %s, all timed in one device call, so the curves' ratios hold", hd, causal ? "causal" : "non-causal", bn(ours), bn(sdpa)) noenhanced
set grid
# one series = the rows of kernel k at this head dim and mask (awk filters, so lines connect)
src(f, k) = sprintf("< awk -F, '$1 == \"%s\" && $7 == %d && $8 == %d' %s", k, hd, causal, f)
plot src(ours, "v1") using 5:11 with linespoints lw 2 pt 5 title "v1 (FlashAttention-1 order, fp32)" noenhanced, \
     src(ours, "v2") using 5:11 with linespoints lw 2 pt 7 title "v2 (FlashAttention-2 order, fp32)" noenhanced, \
     src(ours, "v3") using 5:11 with linespoints lw 2 pt 6 title "v3 (tensor cores, bf16)" noenhanced, \
     src(ours, "v3_mt2") using 5:11 with linespoints lw 2 pt 9 title "v3_mt2 (tensor cores, bf16)" noenhanced, \
     src(ours, "v3_br256") using 5:11 with linespoints lw 2 pt 11 title "v3_br256 (tensor cores, bf16)" noenhanced, \
     src(ours, "v4_bc64") using 5:11 with linespoints lw 2 pt 3 title "v4_bc64 (Hopper wgmma, bf16)" noenhanced, \
     src(sdpa, "sdpa_flash") using 5:11 with linespoints lw 2 dt 2 pt 13 title "PyTorch SDPA flash (FlashAttention-2)" noenhanced, \
     src(sdpa, "sdpa_cudnn") using 5:11 with linespoints lw 2 dt 2 pt 15 title "PyTorch SDPA cuDNN" noenhanced
