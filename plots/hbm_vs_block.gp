# HBM bytes (left axis) and roofline time (right axis) vs square tile size B_r = B_c, in the
# paper's model (profile paper: no kernel's tile table; the roofline max(FLOPs / peak, bytes /
# bandwidth), not the time model's pipes; fasim names the bandwidth in ttl3: the datasheet's).
# Input: block,flash1_bytes,flash2_bytes,standard_bytes,flash1_time_s,flash2_time_s,standard_time_s
if (!exists("ttl")) ttl = 'HBM bytes and time vs tile size'
if (!exists("ttl2")) ttl2 = ''
if (!exists("ttl3")) ttl3 = ''
if (!exists("ttl4")) ttl4 = ''
set terminal pngcairo size 1100,700 enhanced font ",11"
set output outfile
set datafile separator ","
set key top right
set logscale y 2
# bytes in IEC units (KiB = 2^10 B, the tables' unit), a label at every power of 2
unit(k) = word("B KiB MiB GiB TiB PiB EiB", int(k / 10) + 1)
set ytics () ; do for [k=0:60] { set ytics add (sprintf("%d %s", 2**(k % 10), unit(k)) 2.0**k) }
set y2tics
set ytics nomirror
set xlabel "B_r = B_c (square tiles, multiples of 16, up to the largest that fits M; standard: its GEMMs' tiles)"
# x from just below the first tile (16) to just past the last: no empty band at 0
stats infile using 1 skip 1 nooutput name "BX"
set xrange [BX_min - 8 : BX_max + 8]
set ylabel "HBM bytes (left axis, log scale: each tick doubles)"
# the formula is in the title: the label must fit the plot's height (it was cut at the bottom)
set y2label "roofline time in ms (right axis, linear scale)"
set title ttl.(strlen(ttl2) > 0 ? "\n".ttl2 : "").(strlen(ttl3) > 0 ? "\n".ttl3 : "").(strlen(ttl4) > 0 ? "\n".ttl4 : "") noenhanced
set grid
plot infile using 1:2 skip 1 axes x1y1 with linespoints lw 2 pt 5 lc 2 title "FlashAttention-1 bytes", \
     ''     using 1:3 skip 1 axes x1y1 with linespoints lw 2 pt 9 lc 3 title "FlashAttention-2 bytes", \
     ''     using 1:4 skip 1 axes x1y1 with linespoints lw 2 pt 7 lc 1 title "standard bytes", \
     ''     using 1:($5*1e3) skip 1 axes x1y2 with lines dt 2 lw 2 lc 2 title "FlashAttention-1 time", \
     ''     using 1:($6*1e3) skip 1 axes x1y2 with lines dt 2 lw 2 lc 3 title "FlashAttention-2 time", \
     ''     using 1:($7*1e3) skip 1 axes x1y2 with lines dt 2 lw 2 lc 1 title "standard time"
