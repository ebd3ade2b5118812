# HBM bytes vs sequence length N (log-log) for standard, flash1, flash2, with the Theta lines.
# Input (written by `fasim report`): N,standard,flash1,flash2,theta_standard,theta_flash,theta_window
# Usage: gnuplot -e "infile='x.csv'; outfile='x.png'; ttl='...'; win=4096" plots/hbm_vs_n.gp
# win (optional, 0 = none): the model's sliding window w in keys; FlashAttention then visits only
# the key tiles inside the window, so its bytes follow Theta(N w d^2 / M) = theta_flash * w / N for
# N > w (the CSV's theta_window) -- below the full-attention line Theta(N^2 d^2 / M).  The standard row computes all of S
# (as PyTorch's math path does: the mask is applied to S, no tile is skipped), causal or not.
# The curves are the paper's model (profile paper, --blocks fit to M), defined at any d; the
# stdout table beside it counts each kernel's own tiles (fa1, fa2): at the model's N (nmod, marked)
# the two agree where both pick the same B_r (flash2) or B_c (flash1), on which the count depends,
# and differ where they do not.  The Theta lines have constant 1 and count full N x N attention;
# cstd, cf1, cf2 (optional): counted / Theta at nmod, the constant the Theta hides, in the key;
# cw1, cw2: flash1's and flash2's counts / the window bound at nmod (windowed models).
# thmout (optional, 1: nmod < M / (d e), outside Theorem 2's range, where counted / Theta is no
# constant of the algorithm): the key says so and gives kstd, kf1, kf2, counted / compulsory (Q, K,
# V, O once) at nmod, beside the ratios to Theta.
# ebytes, nheads (optional): e, the bytes of an element, and B x H: each Theta line is in bytes,
# the expression times e (e^2 for FlashAttention's, M in bytes) summed over the B H heads.
# ttl4 (optional): a second title line (which layer type a model of two types draws).
if (!exists("ttl")) ttl = 'HBM bytes vs N'
if (!exists("win")) win = 0
if (!exists("ttl2")) ttl2 = ''
if (!exists("ttl3")) ttl3 = ''
if (!exists("ttl4")) ttl4 = ''
if (!exists("nmod")) nmod = 0
if (!exists("cstd")) cstd = 0
if (!exists("cf1")) cf1 = 0
if (!exists("cf2")) cf2 = 0
if (!exists("cw1")) cw1 = 0
if (!exists("cw2")) cw2 = 0
if (!exists("thmout")) thmout = 0
if (!exists("kstd")) kstd = 0
if (!exists("kf1")) kf1 = 0
if (!exists("kf2")) kf2 = 0
# nthm (optional, 0 = none): N = M / (d e), M in bytes, where Theorem 2's range d <= M <= N d
# begins: below it M > N d e (all of K fits on chip) and Theta(N^2 d^2 / M) is no lower bound, so
# FlashAttention's line (and the window's, derived from it) is drawn from N >= nthm only
if (!exists("nthm")) nthm = 0
if (!exists("ebytes")) ebytes = 0
if (!exists("nheads")) nheads = 0
# nfirst (optional): the first sampled N >= nthm as the axis writes it (1k), where that line starts
if (!exists("nfirst")) nfirst = ''
# on1a, on1b, on1c / on2a, on2b, on2c (optional): the key's note, up to three lines, where
# FlashAttention-1's / -2's counted curve lies within 5 % of standard's Theta line over at least
# three sampled N, and why (fasim report computes them: analysis/cli/cmd_report.c, on_std_line)
do for [v in "on1a on1b on1c on2a on2b on2c"] { if (!exists(v)) { eval v." = ''" } }
set terminal pngcairo size 1300,960 enhanced font ",11"
set output outfile
set datafile separator ","
# the key below the plot: inside, its box hid curves (Mistral's and Phi-3's standard beyond 64k,
# Gemma-2-9b's between 128k and 256k) and DeepSeek's long lines ran off the right edge
set key below left Left reverse
set logscale xy 2
# bytes in IEC units (KiB = 2^10 B, the tables' unit), one label every 2^5
unit(k) = word("B KiB MiB GiB TiB PiB EiB", int(k / 10) + 1)
set ytics () ; do for [k=0:60:5] { set ytics add (sprintf("%d %s", 2**(k % 10), unit(k)) 2.0**k) }
# N as the field writes it: 512, 1k, 2k, ... 512k, 1M (k = 2^10, M = 2^20 tokens), one label a power of 2
nlab(k) = k < 10 ? sprintf("%d", 2**k) : k < 20 ? sprintf("%dk", 2**(k - 10)) : sprintf("%dM", 2**(k - 20))
set xtics () ; do for [k=0:30] { set xtics add (nlab(k) 2.0**k) }
stats infile using 1 skip 1 nooutput name "NX"
set xrange [NX_min / 1.001 : NX_max * 1.001]
set xlabel "sequence length N (tokens; 1k = 1024)"
set ylabel "HBM bytes (read + written)"
if (nmod > 0) { set arrow from nmod, graph 0 to nmod, graph 1 nohead dt 2 lc rgb "#808080"; \
    set label sprintf("the model's N = %d", nmod) at nmod, graph 0.04 offset 0.5, 0 left font ",9" }
cstr = cstd > 0 ? (thmout ? sprintf("   (at the model's N, outside Theorem 2's range: counted / Θ = %#.3g, counted / compulsory = %#.3g)", cstd, kstd) \
    : sprintf("   (hidden constant at the model's N: counted / Θ = %#.3g)", cstd)) : ""
# the key's lines at most about 125 characters: a longer one does not fit the key below the plot
# (gnuplot: "difficulty fitting plot titles into key"), so the long notes take two or three lines
cfla = cf1 > 0 ? (thmout ? sprintf("   (the model's N = %d is outside Theorem 2's range, N < M / (d e) = %.0f: counted / Θ is no constant there;", nmod, nthm) \
    : sprintf("   (counted / Θ at the model's N: %#.3g FlashAttention-1, %#.3g FlashAttention-2%s)", cf1, cf2, \
    win > 0 ? "; windowed counts over the full-attention Θ" : "")) : ""
cfl2 = cf1 > 0 && thmout ? sprintf("    counted / compulsory (Q, K, V, O once) there: %#.3g FlashAttention-1, %#.3g FlashAttention-2;", kf1, kf2) : ""
cfl3 = cf1 > 0 && thmout ? sprintf("    counted / Θ, the line not drawn there: %#.3g FlashAttention-1, %#.3g FlashAttention-2)", cf1, cf2) : ""
cwin = win > 0 && cw1 > 0 ? sprintf("   (counted / the window bound at the model's N: %#.3g FlashAttention-1, %#.3g FlashAttention-2%s)", cw1, cw2, \
    thmout ? "; outside Theorem 2's range" : "") : ""
if (!exists("dword")) dword = ''
# dkey: dword in the key's enhanced text (d_{qk}: subscripts in braces)
if (!exists("dkey")) dkey = dword
# a d note longer than "d = 1024" (DeepSeek's d_qk, d_v) on a line of its own under FlashAttention's bound
dlong = strlen(dkey) > 8
# two lines: with DeepSeek's d_qk, d_v note one line was wider than the image
units = ebytes > 0 ? sprintf("Θ lines in bytes: N, d in elements%s, M in bytes,\ntimes e = %d bytes an element (e^2 in FlashAttention's), summed over B·H = %d heads", (strlen(dword) > 0 ? " (".dword.")" : ""), ebytes, nheads) : ""
set title ttl.(strlen(ttl4) > 0 ? "\n".ttl4 : "").(strlen(ttl2) > 0 ? "\n".ttl2 : "").(strlen(ttl3) > 0 ? "\n".ttl3 : "").(strlen(units) > 0 ? "\n".units : "") noenhanced
set grid
thmkey = nthm > 0 ? (strlen(nfirst) > 0 ? \
    sprintf("   (drawn from N = %s, the first sampled N >= M / (d e) = %.0f: below it M > N d e, outside Theorem 2's range d <= M <= N d)", nfirst, nthm) : \
    sprintf("   (not drawn: no sampled N reaches M / (d e) = %.0f, where Theorem 2's range d <= M <= N d begins)", nthm)) : ""
wlabel = sprintf("FlashAttention's bound with a window of w = %d keys: Θ(N w d^2 / M) (Θ(N^2 d^2 / M) up to N = w), constant 1", win)
plot infile using 1:2 skip 1 with linespoints lw 2 pt 7 title "standard (counted; computes all of S, masks do not skip tiles)", \
     ''     using 1:3 skip 1 with linespoints lw 2 pt 5 title "FlashAttention-1 (counted)", \
     ''     using 1:4 skip 1 with linespoints lw 2 pt 9 title "FlashAttention-2 (counted)", \
     ''     using 1:5 skip 1 with lines dt 2 lw 1.5 lc rgb "#9400d3" title "standard's bound Θ(Nd + N^2) · e B H (Theorem 2), constant 1".(strlen(dkey) > 0 ? ", ".dkey : ""), \
     keyentry with lines lc rgb "white" title cstr, \
     keyentry with lines lc rgb "white" title on1a, \
     keyentry with lines lc rgb "white" title on1b, \
     keyentry with lines lc rgb "white" title on1c, \
     keyentry with lines lc rgb "white" title on2a, \
     keyentry with lines lc rgb "white" title on2b, \
     keyentry with lines lc rgb "white" title on2c, \
     ''     using 1:($1 >= nthm ? $6 : 1/0) skip 1 with lines dt 3 lw 2 lc rgb "#404040" title "FlashAttention's bound Θ(N^2 d^2 / M) · e^2 B H, constant 1, full attention (the counts are causal)".(strlen(dkey) > 0 && !dlong ? ", ".dkey : ""), \
     keyentry with lines lc rgb "white" title (dlong ? "   (".dkey.")" : ""), \
     keyentry with lines lc rgb "white" title thmkey, \
     keyentry with lines lc rgb "white" title cfla, \
     keyentry with lines lc rgb "white" title cfl2, \
     keyentry with lines lc rgb "white" title cfl3, \
     ''     using 1:(win > 0 && $1 >= nthm ? $7 : 1/0) skip 1 with lines dt 4 lw 2 lc rgb "#d55e00" \
            title (win > 0 ? wlabel : ""), \
     keyentry with lines lc rgb "white" title cwin
