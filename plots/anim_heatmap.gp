# `fasim animate --heatmap`: how many times each tile of Q, K, V, O was read and written,
# FlashAttention-1 (left) vs FlashAttention-2 (right).  Input: algo,row,tile,count.
# Variables: infile, outfile, tmax.  Both panels share one colour scale (0 .. the largest count
# of either), each with its colour legend; the x ticks are the tile indices 0 .. tmax - 1.
set terminal pngcairo size 1200,440 font ",10"
set output outfile
set datafile separator ","
stats infile using 4 skip 1 nooutput name "C"
cmax = C_max > 0 ? C_max : 1
set multiplot layout 1,2 title "HBM transfers of each tile (batch 0, head 0); one colour scale for both panels\nnot shown: the statistics -- FlashAttention-1 reads and writes l and m of row block i on every visit, as O; FlashAttention-2 writes LSE once" noenhanced
set palette defined (0 "#f7fbff", 1 "#6baed6", 2 "#08306b")
set cbrange [0:cmax]
if (cmax <= 12) { set cbtics 1 } else { set cbtics format "%.0f" }
set cblabel "transfers of the tile (reads or writes)"
unset key
set xrange [-0.5:tmax - 0.5]
set xtics 0, (tmax > 16 ? ceil(tmax / 16.0) : 1) format "%.0f"
set yrange [4.5:-0.5]
set ytics ("Q read" 0, "K read" 1, "V read" 2, "O read" 3, "O write" 4)
set xlabel "tile index (row block for Q, O; key block for K, V)"
do for [a in "flash1 flash2"] {
    set title (a eq "flash1" ? "FlashAttention-1: Q, O re-read and O re-written on every visit\n(O is also written once with zeros first, Alg. 1 line 2)" \
                             : "FlashAttention-2: K, V re-read\n(Q read and O written once)") noenhanced
    plot infile using (strcol(1) eq a ? $3 : 1/0):2:(0.48):(0.48):4 skip 1 with boxxyerror fs solid 1.0 lc palette, \
         ''     using (strcol(1) eq a ? $3 : 1/0):2:(sprintf("%d", $4)) skip 1 with labels
}
unset multiplot
