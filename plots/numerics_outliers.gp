# Error with outliers in the inputs: 8 entries of K set to +-magnitude (LLM activations have a few
# very large values).  Solid: against the reference on the rounded inputs (the arithmetic);
# dotted: end to end, against fp64 on the unrounded inputs (fp8's per-tensor scale, set by the
# outlier, pushes the ordinary values into fp8's few bits: the rounding of the inputs dominates).
# All five dtypes of the CSV, coloured as in numerics_vs_n.gp and numerics_vs_d.gp.  fp32's inputs
# are not rounded, so its end-to-end error is its arithmetic's: that dotted line lies under the solid
# one, and its key entry says so.
# Input: outlier,dtype,algo,seqlen,d,max_abs_err,rel_err,naive_abs_err,ratio_to_naive,end_to_end_rel_err
set terminal pngcairo size 1100,680 enhanced font ",11"
set output outfile
set datafile separator ","
set logscale xy
# x from the first to the last magnitude (1 .. 1024), not to the next decade
stats infile using 1 skip 1 nooutput name "MX"
set xrange [MX_min / 1.05 : MX_max * 1.05]
set xtics () ; do for [k=0:10] { set xtics add (sprintf("%d", 4**k) 4.0**k) } # the magnitudes run 1, 4, 16 ..
set format y "10^{%L}"
set xlabel "outlier magnitude in K (1: none; N = 256, d = 64)"
set ylabel "max |O - O_{ref}| / max |O_{ref}|"
set title "Error with outliers: FlashAttention-2 vs naive, arithmetic (solid) and end to end (dotted)" noenhanced
set key outside right
set grid
rows(dt, al) = sprintf("< awk -F, '$2 == \"%s\" && $3 == \"%s\"' '%s'", dt, al, infile)
# every dtype of the CSV, fp32 too, in the order and colours (lc i) of err_vs_n and err_vs_d
dts = "fp32 fp16 bf16 fp8_e4m3 fp8_e5m2"
plot for [i=1:5] rows(word(dts,i), "flash2") using 1:7 \
         with linespoints lw 2 lc i pt 7 title word(dts,i)." flash2" noenhanced, \
     for [i=1:5] rows(word(dts,i), "standard") using 1:7 \
         with linespoints lw 1.5 dt 2 lc i pt 4 title word(dts,i)." naive" noenhanced, \
     for [i=1:5] rows(word(dts,i), "flash2") using 1:10 \
         with linespoints lw 1 dt 3 lc i pt 1 title word(dts,i)." flash2 end to end".(i == 1 ? " (= fp32 flash2: hidden under it)" : "") noenhanced
