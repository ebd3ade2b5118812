#!/bin/bash
# run_v0lat.sh -- what makes kernels/ v0's softmax kernel latency bound (docs/time-model.md,
# "Latency-bound kernels"): the loaded-latency microbenchmarks of ubench_pipes (dependent streams
# from DRAM, L2 and L1 at 64 and 8 warps an SM, shared-memory latency, block turnaround, with the
# unloaded latencies beside them), the softmax kernel's SASS (its three loops: one load a
# warp outstanding, or unrolled?), and Nsight Compute's per-kernel times of v0_low (cuBLAS GEMM,
# softmax, GEMM) on the validation shapes (d 64: B H = 32 x 32 at N 512 ... 16384 with B N =
# 16384; d 128: H 16), causal 0/1.
#   bash kernels/run_v0lat.sh      needs build/gpu/ubench_pipes and build/gpu/fabench (carried)
# Writes under $OUT: s16_ubench_latency.csv, s16_v0_softmax_sass.txt, s16_v0_ncu.csv, log_v0lat.txt.
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
LOG="$OUT/log_v0lat.txt"
./build/gpu/ubench_pipes --only stream_dep,smem_latency,block_turnaround,dram_latency,l2_latency,syncthreads,shfl_xor_latency \
  --csv "$OUT/s16_ubench_latency.csv" >>"$LOG" 2>&1
cuobjdump -sass -fun '_Z20fa_v0_softmax_kernelI13__nv_bfloat16EvPT_Pfiii' build/gpu/fabench \
  >"$OUT/s16_v0_softmax_sass.txt" 2>>"$LOG"
echo "kernel,B,H,N,d,causal,ncu_kernel,time_ns,dram_read,dram_write" >"$OUT/s16_v0_ncu.csv"
for d in 64 128; do
  H=$((2048 / d))
  for c in 0 1; do
    for N in 512 1024 2048 4096 8192 16384; do
      B=$((16384 / N))
      ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        --csv ./build/gpu/fabench --shape $B,$H,$H,$N,$N,$d,$c --kernels v0_low --no-validate --reps 1 --warmup 0 \
        2>>"$LOG" | python3 -c "
import csv, sys
rows = [r for r in csv.reader(sys.stdin) if len(r) > 14 and r[0].isdigit()]
k = {}
for r in rows:
    if r[4].startswith('void gen_inputs'): continue
    k.setdefault(r[0], [r[4], {}])[1][r[12]] = r[14].replace(',', '')
for i in sorted(k, key=int):
    name, m = k[i]
    print('v0_low,$B,$H,$N,$d,$c,%s,%s,%s,%s' % (name.split('(')[0].replace(',', ';'), m.get('gpu__time_duration.sum', ''),
          m.get('dram__bytes_read.sum', ''), m.get('dram__bytes_write.sum', '')))
" >>"$OUT/s16_v0_ncu.csv"
    done
  done
done
wc -l "$OUT/s16_v0_ncu.csv" >>"$LOG"
