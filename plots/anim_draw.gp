# Draws frame f of `fasim animate` (loaded by anim_frames.gp once per frame).
# Top: tiles of Q, K, V, O, statistics (columns) and the T_r x T_c score tiles (grid).
# Colours: light grey idle, light blue in SRAM, blue read now, red written now, pink written
# before, green score tile computed, dark grey skipped by the causal mask.
set multiplot
reset
set origin 0, 0.34
set size 1, 0.66
unset key
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
plot fdat index f using 1:2:3:4:5 with boxxyerror fs solid 1.0 border lc rgb "white" lc rgb variable, \
     ldat index f using 1:2:3 with labels left noenhanced
unset label
reset
set origin 0, 0
set size 1, 0.34
unset key
set style fill solid 0.8
set boxwidth 0.38
set yrange [0:ymax * 1.1]
set format y "%.0s %cB"
set ylabel "cumulative HBM bytes"
set xtics ("Q" 0, "K" 1, "V" 2, "O" 3, "S" 4, "P" 5, "l" 6, "m" 7, "LSE" 8)
set xrange [-0.6:8.6]
set grid ytics
plot bdat index f using ($1 - 0.2):3 with boxes lc rgb "#2171b5" title "read", \
     ''                index f using ($1 + 0.2):4 with boxes lc rgb "#de2d26" title "written"
unset multiplot
