# HBM bytes vs SRAM size M (log-log).  FlashAttention's re-read term (K, V once per row block for
# flash2, Q, O once per key block for flash1) falls like 1/B; the tiles here are --blocks fit's,
# which grow like sqrt(M) (the fp32 S tile is B_r x B_c), so about 1/sqrt(M): flatter than the
# Theta(N^2 d^2 / M) line, whose proof lets the tile grow like M (Alg. 1 line 1).
# Standard attention's S and P terms (N^2 e each, written and read) do not depend on M, but its
# GEMM tiles re-read K and V once per row block, 2 N^2 d e / B_r -- N^2 terms too, and they fall
# as M lets B_r grow; its curve flattens towards Theta(Nd + N^2), which no M changes.
# Input: M,block,standard,flash1,flash2,theta_flash
# Variables: infile, outfile, ttl; thstd (optional): standard's bound B H (N d + N^2) e in bytes.
if (!exists("ttl")) ttl = 'HBM bytes vs M'
if (!exists("thstd")) thstd = 0
set terminal pngcairo size 1000,650 enhanced font ",11"
set output outfile
set datafile separator ","
set key bottom left Left reverse
set logscale xy 2
# bytes in IEC units (KiB = 2^10 B, the tables' unit)
unit(k) = word("B KiB MiB GiB TiB PiB EiB", int(k / 10) + 1)
set xtics () ; do for [k=10:30] { set xtics add (sprintf("%d %s", 2**(k % 10), unit(k)) 2.0**k) }
set ytics () ; do for [k=0:60:2] { set ytics add (sprintf("%d %s", 2**(k % 10), unit(k)) 2.0**k) }
set xlabel "SRAM size M (bytes; tiles: the largest multiples of 16 that fit M)"
set ylabel "HBM bytes (read + written)"
set title ttl noenhanced
set grid
plot infile using 1:3 skip 1 with linespoints lw 2 pt 7 title "standard (S, P terms fixed; its GEMMs' K, V re-reads 2N^2 d e / B_r fall with M)", \
     ''     using 1:4 skip 1 with linespoints lw 2 pt 5 title "FlashAttention-1", \
     ''     using 1:5 skip 1 with linespoints lw 2 pt 9 title "FlashAttention-2", \
     ''     using 1:(thstd > 0 ? thstd : 1/0) skip 1 with lines dt 2 lw 1.5 lc rgb "#9400d3" \
            title (thstd > 0 ? "standard's bound Θ(Nd + N^2), constant 1: no M in it" : ""), \
     ''     using 1:6 skip 1 with lines dt 3 lw 2 lc rgb "#404040" title "FlashAttention's bound Θ(N^2 d^2 / M), constant 1 (tile ~ M; these tiles grow like √M)"
