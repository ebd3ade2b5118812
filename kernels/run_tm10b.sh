#!/bin/bash
# run_tm10b.sh -- the tenth session's second time-model call: ubench_pipes' ldsm_mma rows (ldmatrix
# feeding mma.sync at 4, 8, 16 warps a block: does fasim's overlap law max + min / w hold for the GEMM
# phase?) with the SASS counts of its kernels, and Nsight Compute's per-kernel times of kernels/ v0
# in bf16 (cuBLAS S = QK^T, the softmax kernel, cuBLAS O = PV) at N = 512 and 4096.
#   UB=path/ubench_pipes FAB=path/fabench bash kernels/run_tm10b.sh      (writes under $OUT)
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
UB=${UB:-./build/gpu/ubench_pipes}; FAB=${FAB:-./build/gpu/fabench}
timeout 200 $UB --only mma_sync_bf16,smem_ldmatrix,ldsm_mma --csv "$OUT/ldsm_mma.csv" > "$OUT/ldsm_log.txt" 2>&1; echo "ubench rc $?"
for m in 0 1 2; do
  cuobjdump -sass -fun "_Z10k_ldsm_mmaILi8ELi${m}EEvijiPfP6ClkRec" $UB 2>&1 | grep -oE 'HMMA[.A-Z0-9]*|LDSM[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' '
  echo " (k_ldsm_mma<8, $m>)"
done > "$OUT/ldsm_sass.txt"
for sh in 32,32,32,512,512,64,0 4,32,32,4096,4096,64,0; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv \
    $FAB --shape $sh --kernels v0_low --dtype bf16 --no-validate --reps 1 --warmup 0 > "$OUT/v0_ncu_${sh//,/_}.csv" 2>&1
  echo "ncu $sh rc $?"
done
