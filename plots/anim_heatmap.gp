# `fasim animate --heatmap`: how many times each tile of Q, K, V, O was read and written,
# FlashAttention-1 (left) vs FlashAttention-2 (right).  Input: algo,row,tile,count.
# Variables: infile, outfile, tmax.
set terminal pngcairo size 1200,420 font ",10"
set output outfile
set datafile separator ","
set multiplot layout 1,2
set palette defined (0 "#f7fbff", 1 "#6baed6", 2 "#08306b")
set cbrange [0:*]
unset key
set xrange [-0.5:tmax - 0.5]
set yrange [4.5:-0.5]
set ytics ("Q read" 0, "K read" 1, "V read" 2, "O read" 3, "O write" 4)
set xlabel "tile index (row block for Q, O; key block for K, V)"
do for [a in "flash1 flash2"] {
    set title (a eq "flash1" ? "FlashAttention-1: O re-read and re-written" : "FlashAttention-2: K, V re-read")
    plot infile using (strcol(1) eq a ? $3 : 1/0):2:(0.48):(0.48):4 skip 1 with boxxyerror fs solid 1.0 lc palette, \
         ''     using (strcol(1) eq a ? $3 : 1/0):2:(sprintf("%d", $4)) skip 1 with labels
}
unset multiplot
