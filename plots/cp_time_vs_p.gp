# Context parallelism: predicted time of one attention layer's forward vs the number of GPUs P,
# one panel per sequence length N, one line per scheme (fasim report's cp.csv;
# docs/context-parallel.md).  Input columns: scheme (1), P (2), time_s (17), speedup (18), seqlen (25),
# fits (31: 0 when the 80 layers' K,V of a GPU's share exceed its memory, as the table's
# "out of memory"; empty when the memory is unknown).
if (!exists("ttl")) ttl = 'context parallelism: predicted time vs P'
if (!exists("ttl2")) ttl2 = ''
set terminal pngcairo size 1200,960 enhanced font ",11"
set output outfile
set datafile separator ","
nlab(n) = n >= 1048576 ? sprintf("%dM", n / 1048576) : sprintf("%dk", n / 1024)
schemes = "ring allgather zigzag ulysses"
what = "'ring (contiguous chunks; causal: the last GPU works every step)' 'allgather (all-gather K, V, then compute; not overlapped; widest)' 'zigzag (load-balanced ring: chunks r and 2P-1-r)' 'ulysses (all-to-all to H/P heads and back; dashed)'"
# allgather, zigzag and ulysses often predict the same time: drawn in that order, each narrower
# than the one below (ulysses dashed), so every line shows
lws = "2 9 4 2"
dts = "1 1 1 2"
# the four panels above a band at the bottom that holds one key for all of them (a key in each
# panel overflowed it onto the neighbour's tick labels and past the image's right edge)
set multiplot layout 2,2 title ttl.(strlen(ttl2) > 0 ? "\n".ttl2 : "") noenhanced \
    margins 0.09, 0.98, 0.15, 0.90 spacing 0.09, 0.10
set logscale x 2
set logscale y 10
set xrange [0.9:9]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8)
# decimal time ticks, as the other plots (the data are in ms)
set ytics ("1 ms" 1, "2 ms" 2, "5 ms" 5, "10 ms" 10, "20 ms" 20, "50 ms" 50, "100 ms" 100, "200 ms" 200, \
           "500 ms" 500, "1 s" 1000, "2 s" 2000, "5 s" 5000, "10 s" 10000, "20 s" 20000, "50 s" 50000, "100 s" 100000)
set xlabel "GPUs P (log scale)"
set ylabel "predicted time of one layer (log scale)"
set grid
do for [nn in "131072 262144 524288 1048576"] {
    N = int(nn)
    # the y range from the panel's data (every scheme and the ideal line, which lies below them
    # all), 15 % beyond each end on the log axis: not down to a tick far below the data
    set xrange [*:*]; set yrange [*:*] # stats keeps only the points inside the ranges set: none
    unset logscale x
    stats infile using (column(25) == N ? column(17) * 1e3 : 1/0) skip 1 nooutput name "TY"
    stats infile using (strcol(1) eq "ring" && column(25) == N ? column(17) * 1e3 * column(18) / column(2) : 1/0) \
        skip 1 nooutput name "TI"
    set xrange [0.9:9]
    set logscale x 2
    ylo = (TI_min < TY_min ? TI_min : TY_min) / 1.15
    set yrange [ylo : TY_max * 1.15]
    # the key once, drawn by the first panel at the bottom of the image
    if (N == 131072) { set key at screen 0.5, 0.01 center bottom maxrows 3 Left reverse font ",10" noenhanced box width 1 } \
    else { unset key }
    set title sprintf("N = %s tokens (1k = 1024)", nlab(N)) noenhanced
    # the ideal line last, so that it lies on top where a scheme meets it, and dotted, black and
    # wider: no scheme's style (solid, or ulysses' dashes) hides it
    plot for [i=1:4] infile using (strcol(1) eq word(schemes, i) && column(25) == N ? column(2) : 1/0):(column(17) * 1e3) \
         skip 1 with linespoints lw int(word(lws, i)) dt int(word(dts, i)) pt (4 + 2 * i) title word(what, i), \
         infile using (column(25) == N && strcol(31) eq "0" ? column(2) : 1/0):(column(17) * 1e3) \
         skip 1 with points pt 2 ps 3 lw 2 lc rgb "#d00000" title "out of memory (cp.csv fits = 0: 80 layers' K,V)", \
         infile using (strcol(1) eq "ring" && column(25) == N ? column(2) : 1/0):(column(17) * 1e3 * column(18) / column(2)) \
         skip 1 with lines dt 3 lw 3 lc rgb "#000000" title "ideal: one GPU's time / P (dotted, drawn last: on top)"
}
unset multiplot
