# HBM bytes (left axis) and roofline time (right axis) vs square tile size B_r = B_c.
# Input: block,flash1_bytes,flash2_bytes,standard_bytes,flash1_time_s,flash2_time_s,standard_time_s
if (!exists("ttl")) ttl = 'HBM bytes and time vs tile size'
set terminal pngcairo size 1000,650 enhanced font ",11"
set output outfile
set datafile separator ","
set key top right
set logscale y 2
set format y "2^{%L}"
set y2tics
set ytics nomirror
set xlabel "B_r = B_c"
set xrange [0:*]
set ylabel "HBM bytes"
set y2label "roofline time (ms)"
set title ttl noenhanced
set grid
plot infile using 1:2 skip 1 axes x1y1 with linespoints lw 2 pt 5 lc 2 title "FlashAttention-1 bytes", \
     ''     using 1:3 skip 1 axes x1y1 with linespoints lw 2 pt 9 lc 3 title "FlashAttention-2 bytes", \
     ''     using 1:4 skip 1 axes x1y1 with linespoints lw 2 pt 7 lc 1 title "standard bytes", \
     ''     using 1:($5*1e3) skip 1 axes x1y2 with lines dt 2 lw 2 lc 2 title "FlashAttention-1 time", \
     ''     using 1:($6*1e3) skip 1 axes x1y2 with lines dt 2 lw 2 lc 3 title "FlashAttention-2 time", \
     ''     using 1:($7*1e3) skip 1 axes x1y2 with lines dt 2 lw 2 lc 1 title "standard time"
