# HBM bytes vs SRAM size M (log-log): flash traffic falls like 1/M, standard's N^2 terms do not.
# Input: M,block,standard,flash1,flash2,theta_flash
if (!exists("ttl")) ttl = 'HBM bytes vs M'
set terminal pngcairo size 1000,650 enhanced font ",11"
set output outfile
set datafile separator ","
set key bottom left
set logscale xy 2
set format x "%.0b %BB"
set format y "2^{%L}"
set xlabel "SRAM size M (bytes)"
set ylabel "HBM bytes (read + written)"
set title ttl noenhanced
set grid
plot infile using 1:3 skip 1 with linespoints lw 2 pt 7 title "standard", \
     ''     using 1:4 skip 1 with linespoints lw 2 pt 5 title "FlashAttention-1", \
     ''     using 1:5 skip 1 with linespoints lw 2 pt 9 title "FlashAttention-2", \
     ''     using 1:6 skip 1 with lines dt 3 lw 1.5 title "Θ(N^2 d^2 / M), constant 1"
