# HBM bytes vs sequence length N (log-log) for standard, flash1, flash2, with the Theta lines.
# Input (written by `fasim report`): N,standard,flash1,flash2,theta_standard,theta_flash
# Usage: gnuplot -e "infile='x.csv'; outfile='x.png'; ttl='...'" plots/hbm_vs_n.gp
if (!exists("ttl")) ttl = 'HBM bytes vs N'
set terminal pngcairo size 1000,650 enhanced font ",11"
set output outfile
set datafile separator ","
set key top left
set logscale xy 2
set format y "2^{%L}"
set format x "2^{%L}"
set xlabel "sequence length N"
set ylabel "HBM bytes (read + written)"
set title ttl noenhanced
set grid
plot infile using 1:2 skip 1 with linespoints lw 2 pt 7 title "standard (counted)", \
     ''     using 1:3 skip 1 with linespoints lw 2 pt 5 title "FlashAttention-1 (counted)", \
     ''     using 1:4 skip 1 with linespoints lw 2 pt 9 title "FlashAttention-2 (counted)", \
     ''     using 1:5 skip 1 with lines dt 2 lw 1.5 title "Θ(Nd + N^2), constant 1", \
     ''     using 1:6 skip 1 with lines dt 3 lw 1.5 title "Θ(N^2 d^2 / M), constant 1"
