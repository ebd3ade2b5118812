# Draws frame f of `fasim animate` (loaded by anim_frames.gp once per frame).
# Top: tiles of Q, K, V, O, statistics (columns) and the T_r x T_c score tiles (grid).
# Colours (drawn as a legend under the tiles): light grey idle, light blue in SRAM (the tile last
# read into the column's buffer: it stays marked until the read of the column's next tile replaces
# it -- from that read's frame on -- or its kernel ends, so a tile the loop is done with still
# shows there), blue read now, red written now, pink written before,
# light green score tile computed in SRAM (flash1, flash2), amber S written (standard), green P
# written (standard), dark grey skipped by the mask.  Bottom: cumulative bytes per tensor in KiB
# (MiB past 4 MiB), the unit of the tables; a bar under 3 % of the axis (the 256 B LSE or l, m
# writes of a row block) has its bytes printed above it.
set multiplot
reset
set origin 0, 0.34
set size 1, 0.66
# the colour legend of the tiles, one row under them (the colours of analysis/fa_animate.h)
set key outside below center horizontal Left reverse samplen 1.2 width 1 noenhanced font ",9"
unset border
unset xtics
unset ytics
set title ttl noenhanced
set xrange [-0.5:8.5 + tc]
set yrange [-(tr > tc ? tr : tc) - 0.5:1.3]
set label 1 "Q" at 0.5, 0.35 center
set label 2 "K" at 2.1, 0.35 center
set label 3 "V" at 3.7, 0.35 center
set label 4 "O" at 5.3, 0.35 center
set label 5 "l, m / LSE" at 6.9, 0.35 center
set label 6 "score tiles S_{ij} (rows i, keys j)" at 8 + tc / 2.0, 0.35 center
plot fdat index f using 1:2:3:4:5 with boxxyerror fs solid 1.0 border lc rgb "white" lc rgb variable notitle, \
     ldat index f using 1:2:3 with labels left noenhanced notitle, \
     keyentry with boxes fs solid 1.0 lc rgb "#dddddd" title "in HBM, idle / not computed", \
     keyentry with boxes fs solid 1.0 lc rgb "#9ecae1" title "in SRAM (last read; until the next read or its kernel's end)", \
     keyentry with boxes fs solid 1.0 lc rgb "#2171b5" title "read now", \
     keyentry with boxes fs solid 1.0 lc rgb "#de2d26" title "written now", \
     keyentry with boxes fs solid 1.0 lc rgb "#fcbba1" title "written before", \
     keyentry with boxes fs solid 1.0 lc rgb "#a1d99b" title "score tile computed in SRAM (flash)", \
     keyentry with boxes fs solid 1.0 lc rgb "#fec44f" title "S written (standard)", \
     keyentry with boxes fs solid 1.0 lc rgb "#31a354" title "P written (standard)", \
     keyentry with boxes fs solid 1.0 lc rgb "#636363" title "skipped by the mask"
unset label
reset
set origin 0, 0
set size 1, 0.30
set key outside top center horizontal Left reverse samplen 1.5
set style fill solid 0.8
set boxwidth 0.38
# KiB (2^10 B) as the tables, MiB past 4 MiB
ub = ymax >= 4 * 2**20 ? 2.0**20 : 2.0**10
set yrange [0:ymax * 1.1 / ub]
set format y "%g"
set ylabel sprintf("cumulative HBM %s", ub > 2.0**10 ? "MiB" : "KiB")
set xtics ("Q" 0, "K" 1, "V" 2, "O" 3, "S" 4, "P" 5, "l" 6, "m" 7, "LSE" 8)
set xrange [-0.6:8.6]
set grid ytics
# the bytes of a bar too small to see (under 3 % of the axis), printed above it
small(v) = v > 0 && v < 0.03 * ymax ? (v < 1024 ? sprintf("%d B", v) : sprintf("%.3g KiB", v / 1024.0)) : ""
plot bdat index f using ($1 - 0.2):($3 / ub) with boxes lc rgb "#2171b5" title "read (HBM -> SRAM)", \
     ''                index f using ($1 + 0.2):($4 / ub) with boxes lc rgb "#de2d26" title "written (SRAM -> HBM)", \
     ''                index f using ($1 - 0.2):($3 / ub + 0.07 * ymax / ub):(small($3)) with labels font ",9" tc rgb "#2171b5" notitle, \
     ''                index f using ($1 + 0.2):($4 / ub + 0.07 * ymax / ub):(small($4)) with labels font ",9" tc rgb "#de2d26" notitle
unset multiplot
