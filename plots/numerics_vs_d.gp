# Error of the output vs head dimension d, per dtype: FlashAttention-2 (solid) and naive attention
# run in the same precision (dashed), both against the fp64 reference on the same rounded inputs.
# Input (fasim check --study): fixed_n,dtype,algo,seqlen,d,max_abs_err,rel_err,naive_abs_err,ratio_to_naive,end_to_end_rel_err
set terminal pngcairo size 1100,680 enhanced font ",11"
set output outfile
set datafile separator ","
set logscale xy
set logscale x 2
set format y "10^{%L}"
set xlabel "head dimension d (N = 256, one head, no mask)"
set ylabel "max |O - O_{ref}| / max |O_{ref}|"
set title "Error vs d: FlashAttention-2 (solid) vs naive attention in the same precision (dashed)" noenhanced
set key outside right
set grid
rows(dt, al) = sprintf("< awk -F, '$2 == \"%s\" && $3 == \"%s\"' '%s'", dt, al, infile)
dts = "fp32 fp16 bf16 fp8_e4m3 fp8_e5m2"
plot for [i=1:5] rows(word(dts,i), "flash2") using 5:7 \
         with linespoints lw 2 lc i pt 7 title word(dts,i)." flash2" noenhanced, \
     for [i=1:5] rows(word(dts,i), "standard") using 5:7 \
         with linespoints lw 1.5 dt 2 lc i pt 4 title word(dts,i)." naive" noenhanced, \
     for [i=1:5] rows(word(dts,i), "flash1") using 5:7 \
         with points lc i pt 2 title word(dts,i)." flash1 (Alg. 1)" noenhanced
