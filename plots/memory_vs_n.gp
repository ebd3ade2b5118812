# HBM peak of one training step (forward + backward) vs N, with each GPU's memory as a line.
# Input: N,standard,flash1,flash2,capacity_<hw>... (ncap capacity columns)
# The capacity lines are drawn widest first, each one thinner and dashed on top of the one
# before: two GPUs with (nearly) the same memory (A100 80 GiB, H100 79.6 GiB) stay both visible,
# and the key names each one's size and which line it lies on.
if (!exists("ttl")) ttl = 'HBM peak vs N'
if (!exists("ttl2")) ttl2 = ''
if (!exists("ncap")) ncap = 3
if (!exists("capnames")) capnames = 'A100 H100 H200'
set terminal pngcairo size 1000,650 enhanced font ",11"
set output outfile
set datafile separator ","
set key top left Left reverse
set logscale xy 2
# N as the field writes it: 512, 1k, 2k, ... 512k, 1M (k = 2^10, M = 2^20 tokens), one label a power of 2
nlab(k) = k < 10 ? sprintf("%d", 2**k) : k < 20 ? sprintf("%dk", 2**(k - 10)) : sprintf("%dM", 2**(k - 20))
set xtics () ; do for [k=0:30] { set xtics add (nlab(k) 2.0**k) }
stats infile using 1 skip 1 nooutput name "NX"
set xrange [NX_min / 1.001 : NX_max * 1.001]
unit(k) = word("B KiB MiB GiB TiB PiB EiB", int(k / 10) + 1)
set ytics () ; do for [k=0:60:2] { set ytics add (sprintf("%d %s", 2**(k % 10), unit(k)) 2.0**k) }
# the y range: a power of 2 below the smallest peak (FlashAttention-1's at the first N) and above
# the largest, so no point sits on the border; the N range (256 .. 256k) holds every GPU's OOM N
stats infile using 3 skip 1 nooutput name "YF"
stats infile using 2 skip 1 nooutput name "YS"
set yrange [2.0**floor(log(YF_min) / log(2) - 0.5) : 2.0**ceil(log(YS_max) / log(2) + 0.5)]
set xlabel "sequence length N (tokens; 1k = 1024)"
set ylabel "HBM bytes (peak of fwd + bwd)"
if (!exists("ttl3")) ttl3 = ''
set title ttl.(strlen(ttl3) > 0 ? "\n".ttl3 : "").(strlen(ttl2) > 0 ? "\n".ttl2 : "") noenhanced
set grid
array cap[ncap > 0 ? ncap : 1]   # ncap 0: no GPU's memory is known (no line)
do for [i=1:ncap] { stats infile using (column(4 + i)) skip 1 nooutput; cap[i] = STATS_max }
# the key of capacity i: its size, and the earlier line within 2 % it lies on
near(i, j) = j >= i ? "" : (abs(cap[i] / cap[j] - 1) < 0.02 ? sprintf(", on top of %s's line", word(capnames, j)) : near(i, j + 1))
capkey(i) = sprintf("%s memory (%.4g GiB%s)", word(capnames, i), cap[i] / 2.0**30, near(i, 1))
capcol = "#e69f00 #0072b2 #cc0000 #555555 #009e73 #56b4e9 #000000 #f0e442"
plot infile using 1:2 skip 1 with linespoints lw 2 pt 7 title "standard (P in HBM)", \
     ''     using 1:3 skip 1 with linespoints lw 2 pt 5 title "FlashAttention-1", \
     ''     using 1:4 skip 1 with linespoints lw 2 pt 9 title "FlashAttention-2 (above FlashAttention-1: its backward's fp32 dQ accumulator, 4 N d bytes a head)", \
     for [i=1:ncap] '' using 1:(column(4+i)) skip 1 with lines dt i lw (2.0 * (ncap - i) + 1.5) \
         lc rgb word(capcol, (i - 1) % 8 + 1) title capkey(i) noenhanced
