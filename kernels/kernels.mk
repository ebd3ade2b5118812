# kernels/kernels.mk -- GPU kernels and the fabench harness (included by the top Makefile).
#   make gpu         builds $(BUILD)/gpu/fabench with nvcc for sm_80 and sm_90a (no GPU needed;
#                    sm_90a = Hopper with wgmma, which v4 needs)
#   make bench-gpu   on a GPU machine: fabench --check (forward and backward), then the
#                    FlashAttention-2 sweep to $(BENCH_CSV) (default $(BUILD)/gpu/fabench_sweep.csv)
#                    and the backward sweep to $(BENCH_BWD_CSV)
#   kernels/run_h200.sh does all of it plus sanitizers, PyTorch SDPA and Nsight Compute.
# Neither `all` nor `test` depends on these targets: a machine without nvcc never builds them.
# fabench links cpu_ref/ and sim/ (for the fp64 oracle) as an archive compiled here
# without jansson or GSL, so the GPU machine needs no extra packages.

NVCC        ?= nvcc
GPU_DIR     := $(BUILD)/gpu
GPU_ARCH    ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a
NVCCFLAGS   ?= -O3 -std=c++17 -lineinfo $(GPU_ARCH) -Xcompiler -Wall,-Wextra,-Wno-unused-parameter \
               -Werror all-warnings
GPU_CU      := kernels/attn_v0_naive.cu kernels/attn_v1_flash1.cu kernels/attn_v2_flash2.cu \
               kernels/attn_v3_flash2_tc.cu kernels/attn_v3_bwd_tc.cu kernels/attn_v4_wgmma.cu \
               kernels/fa_dispatch.cu \
               kernels/fabench.cu
GPU_REF_C   := $(wildcard sim/*.c) $(wildcard cpu_ref/*.c)
GPU_OBJ     := $(patsubst kernels/%.cu,$(GPU_DIR)/%.o,$(GPU_CU))
GPU_REF_OBJ := $(patsubst %.c,$(GPU_DIR)/ref/%.o,$(GPU_REF_C))
BENCH_CSV   ?= $(GPU_DIR)/fabench_sweep.csv
BENCH_BWD_CSV ?= $(GPU_DIR)/fabench_bwd.csv

gpu: $(GPU_DIR)/fabench

$(GPU_DIR)/%.o: kernels/%.cu kernels/fa_kernels.h kernels/simt_tile.cuh kernels/tc_common.cuh \
                kernels/wgmma.cuh
	@mkdir -p $(dir $@)
	@echo "  NVCC  $@"
	@$(NVCC) $(NVCCFLAGS) -Ikernels -Isim -Icpu_ref -c $< -o $@

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

.PHONY: gpu bench-gpu
