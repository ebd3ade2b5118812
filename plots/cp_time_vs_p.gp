# Context parallelism: predicted time of one attention layer's forward vs the number of GPUs P,
# one panel per sequence length N, one line per scheme (fasim report's cp.csv;
# docs/context-parallel.md).  Input columns: scheme (1), P (2), time_s (17), seqlen (25).
if (!exists("ttl")) ttl = 'context parallelism: predicted time vs P'
if (!exists("ttl2")) ttl2 = ''
set terminal pngcairo size 1200,900 enhanced font ",11"
set output outfile
set datafile separator ","
nlab(n) = n >= 1048576 ? sprintf("%dM", n / 1048576) : sprintf("%dk", n / 1024)
schemes = "ring zigzag allgather ulysses"
what = "'ring (contiguous chunks; causal: the last GPU works every step)' 'zigzag (load-balanced ring: chunks r and 2P-1-r)' 'allgather (all-gather K, V, then compute; not overlapped)' 'ulysses (all-to-all to H/P heads and back)'"
set multiplot layout 2,2 title ttl.(strlen(ttl2) > 0 ? "\n".ttl2 : "") noenhanced
set logscale x 2
set logscale y 10
set xrange [0.9:9]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8)
# decimal time ticks, as the other plots (the data are in ms)
set ytics ("1 ms" 1, "2 ms" 2, "5 ms" 5, "10 ms" 10, "20 ms" 20, "50 ms" 50, "100 ms" 100, "200 ms" 200, \
           "500 ms" 500, "1 s" 1000, "2 s" 2000, "5 s" 5000, "10 s" 10000, "20 s" 20000, "50 s" 50000, "100 s" 100000)
set xlabel "GPUs P"
set ylabel "predicted time of one layer"
set grid
# the key below the curves: the y range extends down by half the plot (offsets) and the key sits
# in that empty band, boxed (at the top right it covered the N = 128k panel's curves)
set offsets 0, 0, 0, graph 0.6
set key bottom left Left reverse font ",9" noenhanced opaque box
do for [nn in "131072 262144 524288 1048576"] {
    N = int(nn)
    set title sprintf("N = %s tokens (1k = 1024)", nlab(N)) noenhanced
    plot for [i=1:4] infile using (strcol(1) eq word(schemes, i) && column(25) == N ? column(2) : 1/0):(column(17) * 1e3) \
         skip 1 with linespoints lw 2 pt (4 + 2 * i) title word(what, i), \
         infile using (strcol(1) eq "ring" && column(25) == N ? column(2) : 1/0):(column(17) * 1e3 * column(18) / column(2)) \
         skip 1 with lines dt 2 lc rgb "#777777" title "ideal: one GPU's time / P"
}
unset multiplot
