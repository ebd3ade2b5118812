# Busy time of each pipe (tensor, shared memory, exp, fp32, L2, DRAM) per kernel profile, stacked,
# with fasim's predicted kernel time as a marker; one forward shape per plot.  All of it is fasim's
# time model (fasim io --profile KEY, docs/time-model.md); nothing is measured.  A busy time is
# the pipe's work over the whole GPU / the SMs; the prediction is at least the busiest pipe's and
# is set by what the bound column says (the tile's phases in series, the grid, the tail), so it
# may lie anywhere above the busiest segment, above the stack's sum too (a grid of fewer blocks
# than SMs).
# Input (plots/model_csv.sh pipes): profile,pred_ms,tensor_ms,smem_ms,exp_ms,fp32_ms,l2_ms,dram_ms,busy_sum_ms,busiest,bound,dtype
# Usage: gnuplot -e "infile='pipes_d64.csv'; hd=64; outfile='x.png'" plots/pipes_stack.gp
# A bar far above the others (v2's shared-memory pipe) gets the graph split in two: the lower
# part at the others' scale, the upper one compressed up to the tallest bar (break marks on the axes).
set terminal pngcairo size 1000,690 enhanced font ",11"
set output outfile
set datafile separator ","

stats infile using 9 skip 1 nooutput name "T"            # stacks' sums; T_records bars
top(s, p) = p > s ? p : s                               # a bar's top: its stack or its marker
stats infile using (top($9, $2)) skip 1 nooutput name "A"
stats infile using ($9 <= 2.5 * T_median ? top($9, $2) : NaN) skip 1 nooutput name "L"
ylo = 1.16 * L_max
broken = A_max > ylo
yhi = 1.14 * A_max

set style data histogram
set style histogram rowstacked
set style fill solid 0.85 border rgb "#303030"
set boxwidth 0.68
set xtics noenhanced
set xrange [-0.6 : T_records - 0.4]
set grid ytics
set lmargin at screen 0.085
set rmargin at screen 0.79
heads = 2048 / hd
set label 99 "busy time of the pipe (ms)" at screen 0.018, screen 0.45 center rotate by 90
# pipes: colours after their use in docs (tensor green, shared memory blue, exp orange, ...)
ct = "#2ca02c"; cs = "#1f77b4"; ce = "#ff7f0e"; cf = "#9467bd"; cl = "#8c8c8c"; cd = "#d62728"
ttl = sprintf("Forward, d = %d, N = 4096 (B = 4, H = %d, bf16; v2 fp32, the dtype it is built for; non-causal), H200: busy time of each pipe per kernel profile (stacked)\nand the predicted kernel time (diamond), both predicted by fasim's time model: fasim io --profile KEY (docs/time-model.md); nothing measured.\nThe time is at least the busiest pipe's; what sets it is the bound under each name (phases in series: softmax, tensor ...; grid: too few blocks for the SMs)", hd, heads)

set multiplot title ttl noenhanced font ",10"
# ---- lower part (all bars at the scale of the ordinary ones; the key at its right)
set bmargin at screen 0.19
set tmargin at screen (broken ? 0.60 : 0.86)
set yrange [0 : broken ? ylo : yhi]
set key at screen 0.805, screen (broken ? 0.60 : 0.86) left top Left reverse box opaque noenhanced samplen 2 spacing 1.15 title "pipe (stacked)"
set xlabel "kernel profile (fasim io --profile KEY); under it: its busiest pipe (tallest segment) / its bound (fasim io)" offset 0, -1.2
if (broken) {
  set arrow 1 from graph -0.012, graph 0.985 to graph 0.012, graph 1.015 nohead lw 1.5 front
  set arrow 2 from graph 0.988, graph 0.985 to graph 1.012, graph 1.015 nohead lw 1.5 front
}
# the bars: column 3..8 stacked; markers at the prediction, value above each bar
plot infile skip 1 using 3:xtic(sprintf("%s\n%s /\n%s", strcol(1), strcol(10), strcol(11))) lc rgb ct title "tensor", \
     '' skip 1 using 4 lc rgb cs title "smem", \
     '' skip 1 using 5 lc rgb ce title "exp", \
     '' skip 1 using 6 lc rgb cf title "fp32", \
     '' skip 1 using 7 lc rgb cl title "L2", \
     '' skip 1 using 8 lc rgb cd title "DRAM", \
     '' skip 1 using 0:2 with points pt 13 ps 2.6 lc rgb "white" notitle, \
     '' skip 1 using 0:2 with points pt 13 ps 1.8 lc rgb "black" title "predicted time", \
     '' skip 1 using 0:(top($9, $2)):(sprintf("%.2f", $2)) with labels offset 0, 0.75 font ",10" notitle

if (broken) {
  # ---- upper part: from the lower part's top to the tallest bar, compressed
  unset arrow
  unset key
  unset xlabel
  set xtics format "" scale 0
  set bmargin at screen 0.63
  set tmargin at screen 0.86
  set yrange [ylo : yhi]
  set ytics autofreq
  set arrow 1 from graph -0.012, graph -0.085 to graph 0.012, graph 0.085 nohead lw 1.5 front
  set arrow 2 from graph 0.988, graph -0.085 to graph 1.012, graph 0.085 nohead lw 1.5 front
  plot infile skip 1 using 3 lc rgb ct notitle, \
       '' skip 1 using 4 lc rgb cs notitle, \
       '' skip 1 using 5 lc rgb ce notitle, \
       '' skip 1 using 6 lc rgb cf notitle, \
       '' skip 1 using 7 lc rgb cl notitle, \
       '' skip 1 using 8 lc rgb cd notitle, \
       '' skip 1 using 0:2 with points pt 13 ps 2.6 lc rgb "white" notitle, \
       '' skip 1 using 0:2 with points pt 13 ps 1.8 lc rgb "black" notitle, \
       '' skip 1 using 0:(top($9, $2)):(sprintf("%.2f", $2)) with labels offset 0, 0.75 font ",10" notitle
}
unset multiplot
