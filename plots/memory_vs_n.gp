# HBM peak of one training step (forward + backward) vs N, with each GPU's memory as a line.
# Input: N,standard,flash1,flash2,capacity_<hw>... (ncap capacity columns)
if (!exists("ttl")) ttl = 'HBM peak vs N'
if (!exists("ncap")) ncap = 3
if (!exists("capnames")) capnames = 'A100 H100 H200'
set terminal pngcairo size 1000,650 enhanced font ",11"
set output outfile
set datafile separator ","
set key top left
set logscale xy 2
set format x "2^{%L}"
set format y "2^{%L}"
set xlabel "sequence length N"
set ylabel "HBM bytes (peak of fwd + bwd)"
set title ttl noenhanced
set grid
plot infile using 1:2 skip 1 with linespoints lw 2 pt 7 title "standard (P in HBM)", \
     ''     using 1:3 skip 1 with linespoints lw 2 pt 5 title "FlashAttention-1", \
     ''     using 1:4 skip 1 with linespoints lw 2 pt 9 title "FlashAttention-2", \
     for [i=1:ncap] '' using 1:(column(4+i)) skip 1 with lines dt 2 lw 1.5 title word(capnames, i).' memory'
