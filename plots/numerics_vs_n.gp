# Error of the output vs sequence length N, per dtype: FlashAttention-2 (solid) and naive attention
# run in the same precision (dashed), both against the fp64 reference on the same rounded inputs.
# Input (fasim check --study): fixed_d,dtype,algo,seqlen,d,max_abs_err,rel_err,naive_abs_err,ratio_to_naive,end_to_end_rel_err
set terminal pngcairo size 1100,680 enhanced font ",11"
set output outfile
set datafile separator ","
set logscale xy
set logscale x 2
# N as the field writes it: 512, 1k, 2k, ... 512k, 1M (k = 2^10, M = 2^20 tokens), one label a power of 2
nlab(k) = k < 10 ? sprintf("%d", 2**k) : k < 20 ? sprintf("%dk", 2**(k - 10)) : sprintf("%dM", 2**(k - 20))
set xtics () ; do for [k=0:30] { set xtics add (nlab(k) 2.0**k) }
stats infile using 4 skip 1 nooutput name "NX"
set xrange [NX_min / 1.001 : NX_max * 1.001]
set format y "10^{%L}"
set xlabel "sequence length N (tokens; 1k = 1024; d = 64, one head, no mask)"
set ylabel "max |O - O_{ref}| / max |O_{ref}|"
set title "Error vs N: FlashAttention-2 (solid) vs naive attention in the same precision (dashed)" noenhanced
set key outside right
set grid
rows(dt, al) = sprintf("< awk -F, '$2 == \"%s\" && $3 == \"%s\"' '%s'", dt, al, infile)
dts = "fp32 fp16 bf16 fp8_e4m3 fp8_e5m2"
plot for [i=1:5] rows(word(dts,i), "flash2") using 4:7 \
         with linespoints lw 2 lc i pt 7 title word(dts,i)." flash2" noenhanced, \
     for [i=1:5] rows(word(dts,i), "standard") using 4:7 \
         with linespoints lw 1.5 dt 2 lc i pt 4 title word(dts,i)." naive" noenhanced, \
     for [i=1:5] rows(word(dts,i), "flash1") using 4:7 \
         with points lc i pt 2 title word(dts,i)." flash1 (Alg. 1)" noenhanced
