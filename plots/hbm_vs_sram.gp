# HBM bytes vs SRAM size M (log-log).  FlashAttention's re-read term (K, V once per row block for
# flash2, Q, O once per key block for flash1) falls like 1/B; the tiles here are --blocks fit's,
# the largest B with 4 B^2 + B (2 d e + d_v e + 4 d_v + 8) <= M: while the B d terms dominate
# (B below about 2.5 d) B grows about like M, so the curves follow the Theta(N^2 d^2 / M) line;
# only at multi-MiB M does the fp32 S tile's 4 B^2 make B grow like sqrt(M), the bytes like
# 1/sqrt(M): flatter than that line, whose proof lets the tile grow like M (Alg. 1 line 1).
# Standard attention's S and P terms (N^2 e each, written and read) do not depend on M, but its
# GEMM tiles re-read K and V once per row block, 2 N^2 d e / B_r -- N^2 terms too, and they fall
# as M lets B_r grow; its curve flattens towards Theta(Nd + N^2), which no M changes.
# Input: M,block,standard,flash1,flash2,theta_flash
# Variables: infile, outfile, ttl; thstd (optional): standard's bound B H (N d + N^2) e in bytes;
# gpum, gpun (optional): the GPUs' shared memory per block M in bytes and their names (GPUs with
# the same M joined by '+'), one word each, drawn as vertical lines.
# mthm (optional, 0 = none): N d e in bytes (N = min(N_q, N_k)), where Theorem 2's range
# d <= M <= N d ends: FlashAttention's Θ line is drawn up to it (hbm_vs_n.gp draws it from
# N = M / (d e) on, the same boundary), and the key says so.
if (!exists("ttl")) ttl = 'HBM bytes vs M'
if (!exists("thstd")) thstd = 0
if (!exists("mthm")) mthm = 0
if (!exists("gpum")) gpum = ''
if (!exists("gpun")) gpun = ''
if (!exists("ttl2")) ttl2 = ''
if (!exists("ttl3")) ttl3 = ''
if (!exists("ebytes")) ebytes = 0
if (!exists("nheads")) nheads = 0
units = ebytes > 0 ? sprintf("Θ lines in bytes: N, d in elements, M in bytes, times e = %d bytes an element (e^2 in FlashAttention's), summed over B·H = %d heads", ebytes, nheads) : ""
set terminal pngcairo size 1100,780 enhanced font ",11"
set output outfile
set datafile separator ","
set key below left Left reverse maxrows 6
set logscale xy 2
# bytes in IEC units (KiB = 2^10 B, the tables' unit)
unit(k) = word("B KiB MiB GiB TiB PiB EiB", int(k / 10) + 1)
set xtics () ; do for [k=10:30] { set xtics add (sprintf("%d %s", 2**(k % 10), unit(k)) 2.0**k) }
set ytics () ; do for [k=0:60] { set ytics add (sprintf("%d %s", 2**(k % 10), unit(k)) 2.0**k) }
set xlabel "SRAM size M (bytes; points: M = 48 KiB x 1.25^k and M = N d e; tiles: the largest multiples of 16 that fit M)"
set ylabel "HBM bytes (read + written)"
# ttl3 (the shape) second, ttl2 (the model) third
set title ttl.(strlen(ttl3) > 0 ? "\n".ttl3 : "").(strlen(ttl2) > 0 ? "\n".ttl2 : "").(strlen(units) > 0 ? "\n".units : "") noenhanced
set grid
# the y range from one power of 2 below the smallest line to one above the largest curve, so
# the top curve (standard's) has a tick above it
stats infile using 3 skip 1 nooutput; ymax = STATS_max
stats infile using 6 skip 1 nooutput; ymin = STATS_min
set yrange [2.0**floor(log(ymin) / log(2)) / 1.01 : 2.0**ceil(log(ymax) / log(2) + 0.01) * 1.01]
set style textbox opaque noborder
# the GPUs' own M (shared memory per thread block), where the report's tables sit
do for [i=1:words(gpum)] {
    gmi = real(word(gpum, i))
    set arrow from gmi, graph 0 to gmi, graph 1 nohead dt 4 lw 1.5 lc rgb "#cc0000"
    gname = word(gpun, i); gname = strstrt(gname, "+") ? gname[1:strstrt(gname, "+") - 1]." and ".gname[strstrt(gname, "+") + 1:] : gname
    set label sprintf("%s: M = %.0f KiB", gname, gmi / 1024) at gmi, graph 0.03 rotate by 90 left font ",9" tc rgb "#cc0000" boxed front noenhanced
}
plot infile using 1:3 skip 1 with linespoints lw 2 pt 7 title "standard (S, P terms fixed; its GEMMs' K, V re-reads 2N^2 d e / B_r fall with M)", \
     ''     using 1:4 skip 1 with linespoints lw 2 pt 5 title "FlashAttention-1", \
     ''     using 1:5 skip 1 with linespoints lw 2 pt 9 title "FlashAttention-2", \
     ''     using 1:(thstd > 0 ? thstd : 1/0) skip 1 with lines dt 2 lw 1.5 lc rgb "#9400d3" \
            title (thstd > 0 ? "standard's bound Θ(Nd + N^2) · e B H, constant 1: no M in it" : ""), \
     ''     using 1:(mthm <= 0 || $1 <= mthm ? $6 : 1/0) skip 1 with lines dt 3 lw 2 lc rgb "#404040" title "FlashAttention's bound Θ(N^2 d^2 / M) · e^2 B H, constant 1, full attention (the counts are causal;", \
     keyentry with lines lc rgb "white" title "    its tile grows ∝ M; these tiles too while the B d terms dominate, ∝ √M only at multi-MiB M".(mthm > 0 ? ";" : ")"), \
     keyentry with lines lc rgb "white" title (mthm > 0 ? sprintf("    drawn up to M = N d e = %s: beyond it M > N d e, outside Theorem 2's range d <= M <= N d)", \
            mthm >= 1048576 ? sprintf("%.4g MiB", mthm / 1048576) : sprintf("%.4g KiB", mthm / 1024)) : "")
