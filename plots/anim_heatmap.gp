# `fasim animate --heatmap`: how many times each tile of Q, K, V, O and of the statistics (l, m;
# LSE) was read and written, FlashAttention-1 (left) vs FlashAttention-2 (right).
# Input: algo,row,tile,count,transfer (rows 1-5: Q read, K read, V read, O read, O write; 6-10:
# l read, l write, m read, m write, LSE write -- fa_anim_heat_row + 1; transfer names the row).  Variables: infile, outfile, tmax,
# sizes (optional: the bytes of one tile of each tensor, for the key).  Both panels share one
# colour scale (0 .. the largest count of either), each with its colour legend; the x ticks are the
# tile numbers 1 .. tmax (from 1, as Algorithm 1's Q_i, K_j); the statistics' rows sit under a line of their own.
if (!exists("sizes")) sizes = ''
set terminal pngcairo size 1200,640 font ",10"
set output outfile
set datafile separator ","
stats infile using 4 skip 1 nooutput name "C"
cmax = C_max > 0 ? C_max : 1
set multiplot layout 1,2 title "HBM transfers of each tile (batch 0, head 0); one colour scale for both panels\n" . \
    "below the line: the statistics, fp32 per query row -- FlashAttention-1's running max m and sum l, FlashAttention-2's logsumexp LSE" . \
    (strlen(sizes) > 0 ? "\n" . sizes : "") noenhanced
set palette defined (0 "#f7fbff", 1 "#6baed6", 2 "#08306b")
set cbrange [0:cmax]
if (cmax <= 12) { set cbtics 1 } else { set cbtics format "%.0f" }
# offset: moved right of the tick numbers (at the default place it ran over them)
set cblabel "transfers of the tile (reads or writes)" offset 1.5, 0
unset key
set xrange [0.5:tmax + 0.5]
set xtics 1, (tmax > 16 ? ceil(tmax / 16.0) : 1) format "%.0f"
set yrange [10.5:0.5]
set ytics ("Q read" 1, "K read" 2, "V read" 3, "O read" 4, "O write" 5, \
           "l read" 6, "l write" 7, "m read" 8, "m write" 9, "LSE write" 10)
set xlabel "tile number, from 1 (row block i for Q, O, l, m, LSE; key block j for K, V)"
# the line between the tiles of Q, K, V, O and those of the statistics
set arrow 1 from graph 0, first 5.5 to graph 1, first 5.5 nohead lw 3 lc rgb "#d55e00" front
# a count's label in white on the dark half of the scale, black on the light half
lc(c) = c > cmax / 2.0 ? 0xffffff : 0x000000
do for [a in "flash1 flash2"] {
    set title (a eq "flash1" ? "FlashAttention-1: Q, O, l, m re-read and O, l, m re-written on every visit\n(O, l, m also written once first: zeros, zeros, -inf, Alg. 1 line 2; no LSE)" \
                             : "FlashAttention-2: K, V re-read; Q read and O, LSE written once\n(l and m stay on chip: 0 transfers)") noenhanced
    plot infile using (strcol(1) eq a ? $3 : 1/0):2:(0.48):(0.48):4 skip 1 with boxxyerror fs solid 1.0 lc palette, \
         ''     using (strcol(1) eq a ? $3 : 1/0):2:(sprintf("%d", $4)):(lc($4)) skip 1 with labels tc rgb variable
}
unset multiplot
