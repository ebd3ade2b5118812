# Predicted beside measured TFLOP/s vs N, one pass, head dim and mask per plot: solid line + points =
# measured on the H200, dashed line of the same colour = fasim's time model (fasim compare --hw h200,
# docs/time-model.md).  Input (plots/model_csv.sh tflops): kernel,pass,d,causal,N,meas_tflops,pred_tflops
# Usage: gnuplot -e "infile='model_tflops.csv'; pass='fwd'; hd=128; causal=0; outfile='x.png'" plots/tflops_model.gp
set terminal pngcairo size 1000,760 enhanced font ",11"
set output outfile
set datafile separator ","
set datafile missing "nan"
set logscale x 2
set xrange [512 / 1.12 : 16384 * 1.12]
set xtics ("512" 512, "1k" 1024, "2k" 2048, "4k" 4096, "8k" 8192, "16k" 16384)
set yrange [0:*]
set xlabel "sequence length N (tokens; 1k = 1024; batch x N = 16k tokens, H = 2048 / d)"
set ylabel sprintf("TFLOP/s (FlashAttention-2 FLOP convention%s)", pass eq "bwd" ? ", backward = 2.5 x forward" : "")
set title sprintf("%s, d = %d, %s, H200: measured (solid, points) and fasim-predicted (dashed) TFLOP/s\nmeasured: analysis/measured/h200/s15_timemodel_input.csv (SDPA under CUDA graphs);  predicted: fasim's time model (fasim compare / docs/time-model.md)", \
                  pass eq "bwd" ? "Backward" : "Forward", hd, causal ? "causal" : "non-causal") noenhanced
set grid
# the curves fill the whole graph (fp32 near 25 TFLOP/s, bf16 up to 700): the key goes below it
set key outside bottom center horizontal maxcols 2 Left reverse box noenhanced spacing 1.1 samplen 2.5 width -1

# every kernel keeps its colour and point type in all eight plots
all = "v1 v2 v3 v3_mt2 v3_br256 v4 v4_bc64 sdpa_flash sdpa_cudnn v3_bwd v3_bwd_bc64 v3_bwd_occ2 sdpa_flash_bwd sdpa_cudnn_bwd"
colours = "#9400d3 #009e73 #56b4e9 #0050c8 #8b4513 #e69f00 #d00000 #606060 #ff1493 #0050c8 #56b4e9 #009e73 #606060 #ff1493"
ptypes = "5 7 9 11 13 3 15 6 4 9 13 7 6 4"
desc = "v1|FlashAttention-1 order, fp32;v2|FlashAttention-2 order, fp32;v3|tensor cores, bf16;v3_mt2|tensor cores, 2 m-tiles a warp, bf16;v3_br256|tensor cores, B_r 256, bf16;v4|Hopper wgmma, B_c 128, bf16;v4_bc64|Hopper wgmma, B_c 64, bf16;sdpa_flash|PyTorch SDPA, FlashAttention-2;sdpa_cudnn|PyTorch SDPA, cuDNN;v3_bwd|tensor cores, B_c 128, bf16;v3_bwd_bc64|tensor cores, B_c 64, bf16;v3_bwd_occ2|2 blocks per SM, bf16;sdpa_flash_bwd|PyTorch SDPA, FlashAttention-2;sdpa_cudnn_bwd|PyTorch SDPA, cuDNN"
idx(k, i) = i > words(all) ? 1 : (word(all, i) eq k ? i : idx(k, i + 1))
colour(k) = word(colours, idx(k, 1))
ptype(k) = int(word(ptypes, idx(k, 1)))
label(k) = (s = strstrt(desc, k . "|"), s == 0 ? k : (t = desc[s + strlen(k) + 1 :], \
            e = strstrt(t, ";"), k . " (" . (e ? t[1 : e - 1] : t) . ")"))
# the kernels that have rows at this pass, head dim and mask, in the order of `all`
sel = sprintf("awk -F, '$2 == \"%s\" && $3 == %d && $4 == %d' %s", pass, hd, causal, infile)
have = system(sel . " | cut -d, -f1 | sort -u | tr '\\n' ' '")
kernels = ""
do for [i = 1 : words(all)] { if (strstrt(" " . have, " " . word(all, i) . " ") > 0) { kernels = kernels . " " . word(all, i) } }
if (words(kernels) == 0) { print sprintf("tflops_model.gp: no rows for %s d = %d causal = %d in %s", pass, hd, causal, infile); exit status 1 }
# room below the graph for the key: two columns of the kernels plus the dashed-line entry
set bmargin 4.5 + 1.1 * ceil((words(kernels) + 1) / 2.0)
src(k) = sprintf("< awk -F, '$1 == \"%s\" && $2 == \"%s\" && $3 == %d && $4 == %d' %s", k, pass, hd, causal, infile)

plot for [k in kernels] src(k) using 5:6 with linespoints lw 2 pt ptype(k) ps 1.1 lc rgb colour(k) title label(k), \
     for [k in kernels] src(k) using 5:7 with lines lw 2 dt (8, 6) lc rgb colour(k) notitle, \
     NaN with lines lw 2 dt (8, 6) lc rgb "black" title "dashed: fasim's prediction, same colour"
