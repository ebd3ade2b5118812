# kernels/kernels.mk -- GPU kernels and the fabench harness (included by the top Makefile).
#   make gpu         builds $(BUILD)/gpu/fabench with nvcc for sm_80 and sm_90, and v4, v5 for sm_90a
#                    (Hopper's arch-specific target with wgmma), no GPU needed
#   make bench-gpu   on a GPU machine: fabench --check (forward and backward), then the
#                    FlashAttention-2 sweep to $(BENCH_CSV) (default $(BUILD)/gpu/fabench_sweep.csv)
#                    and the backward sweep to $(BENCH_BWD_CSV)
#   kernels/run_h200.sh does all of it plus sanitizers, PyTorch SDPA and Nsight Compute.
#   make cpbench     builds $(BUILD)/gpu/cpbench (kernels/cp_ring.cu: context-parallel attention over P GPUs,
#                    NCCL), no GPU needed
#   make ubench      builds $(BUILD)/gpu/ubench_pipes (kernels/ubench_pipes.cu: the pipe-ceiling
#                    microbenchmarks for the time model), sm_90a only, no GPU needed
# Neither `all` nor `test` depends on these targets: a machine without nvcc never builds them.
# fabench links cpu_ref/ and sim/ (for the fp64 oracle) as an archive compiled here
# without jansson or GSL, so the GPU machine needs no extra packages.

NVCC        ?= nvcc
GPU_DIR     := $(BUILD)/gpu
GPU_ARCH    ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
# v4 and v5 use wgmma (v5 also setmaxnreg), which exist only in the arch-specific sm_90a; its object gets sm_80 (a stub
# that traps; the launcher refuses other devices first) and sm_90a, and no plain sm_90 cubin,
# so an H100/H200 can only load the sm_90a one
GPU_ARCH_V4 ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a
NVCCWARN    := -Xcompiler -Wall,-Wextra,-Wno-unused-parameter -Werror all-warnings
NVCCFLAGS   ?= -O3 -std=c++17 -lineinfo $(NVCCWARN)
GPU_CU      := kernels/attn_v0_naive.cu kernels/attn_v1_flash1.cu kernels/attn_v2_flash2.cu \
               kernels/attn_v3_flash2_tc.cu kernels/attn_v3_bwd_tc.cu kernels/attn_v4_wgmma.cu kernels/attn_v5_fa3.cu kernels/attn_v5_bwd.cu kernels/attn_v5_fp8.cu \
               kernels/fa_dispatch.cu kernels/fabench_fp8.cu \
               kernels/fabench.cu
GPU_REF_C   := $(wildcard sim/*.c) $(wildcard cpu_ref/*.c)
GPU_OBJ     := $(patsubst kernels/%.cu,$(GPU_DIR)/%.o,$(GPU_CU))
GPU_REF_OBJ := $(patsubst %.c,$(GPU_DIR)/ref/%.o,$(GPU_REF_C))
BENCH_CSV   ?= $(GPU_DIR)/fabench_sweep.csv
BENCH_BWD_CSV ?= $(GPU_DIR)/fabench_bwd.csv

gpu: $(GPU_DIR)/fabench

$(GPU_DIR)/%.o: kernels/%.cu kernels/fa_kernels.h kernels/simt_tile.cuh kernels/tc_common.cuh \
                kernels/wgmma.cuh kernels/hopper.cuh kernels/fabench_fp8.h kernels/fa_rng.cuh
	@mkdir -p $(dir $@)
	@echo "  NVCC  $@"
	@$(NVCC) $(NVCCFLAGS) $(if $(findstring attn_v4,$<)$(findstring attn_v5,$<),$(GPU_ARCH_V4),$(GPU_ARCH)) \
	    -Ikernels -Isim -Icpu_ref -c $< -o $@

$(GPU_DIR)/ref/%.o: %.c
	@mkdir -p $(dir $@)
	@$(CC) -O2 -std=c11 -Wall -Wextra -Isim -Icpu_ref -D_POSIX_C_SOURCE=200809L \
	    -DFASIM_HW_DIR='"$(CURDIR)/sim/hw"' -c $< -o $@

$(GPU_DIR)/libfaref.a: $(GPU_REF_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(GPU_DIR)/fabench: $(GPU_OBJ) $(GPU_DIR)/libfaref.a
	$(NVCC) $(GPU_ARCH) $(GPU_OBJ) $(GPU_DIR)/libfaref.a -lcublas -lm -o $@

bench-gpu: $(GPU_DIR)/fabench
	./$(GPU_DIR)/fabench --check --no-time
	./$(GPU_DIR)/fabench --check --no-time --bwd
	./$(GPU_DIR)/fabench --sweep --csv $(BENCH_CSV)
	./$(GPU_DIR)/fabench --sweep --bwd --csv $(BENCH_BWD_CSV)

# the pipe-ceiling microbenchmarks: standalone, sm_90a only (wgmma)
UBENCH_ARCH ?= -gencode arch=compute_90a,code=sm_90a

ubench: $(GPU_DIR)/ubench_pipes

$(GPU_DIR)/ubench_pipes: kernels/ubench_pipes.cu kernels/wgmma.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -lineinfo $(NVCCWARN) $(UBENCH_ARCH) $< -lcublas -o $@

# cpbench (kernels/cp_ring.cu): the context-parallel forward over P GPUs with NCCL (issue 19);
# the local calls are the kernels above
CP_OBJ := $(filter-out $(GPU_DIR)/fabench.o $(GPU_DIR)/fabench_fp8.o,$(GPU_OBJ)) $(GPU_DIR)/cp_ring.o

cpbench: $(GPU_DIR)/cpbench

$(GPU_DIR)/cpbench: $(CP_OBJ)
	$(NVCC) $(GPU_ARCH) $(CP_OBJ) -lnccl -lcublas -lm -o $@

.PHONY: gpu bench-gpu ubench cpbench
