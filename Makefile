# fasim -- educational simulator and IO-cost analyzer for FlashAttention.
#   make run     the main job: `fasim report` (tables, CSV under build/report/, PNG plots)
#   make test    cmocka suites + command-line tests, built with ASan/UBSan and -Werror
#   make bench   CPU benchmarks (count-only at N = 1M, numeric flash2 vs standard)
#   make gpu     build the CUDA kernels and fabench (nvcc);  make bench-gpu  on a GPU machine
# Every target first installs missing Debian packages (.ci/install-deps), quietly.

CC      ?= gcc
BUILD   ?= build
OPT     ?= -O2
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CPPFLAGS += -Isim -Icpu_ref -Ianalysis -D_POSIX_C_SOURCE=200809L \
            -DFASIM_HW_DIR='"$(CURDIR)/sim/hw"' -DFASIM_MODELS_DIR='"$(CURDIR)/analysis/models"' \
            -DFASIM_PLOTS_DIR='"$(CURDIR)/plots"'
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 $(WARN)
LDLIBS  := -ljansson -lgsl -lgslcblas -lm

LIB_SRC := $(wildcard sim/*.c) $(wildcard cpu_ref/*.c) $(wildcard analysis/*.c)
CLI_SRC := $(wildcard analysis/cli/*.c)
TEST_SRC := $(wildcard tests/test_*.c)

# Two build flavours share the rules: $(BUILD) (optimised) and $(BUILD)/asan (sanitizers).
define flavour
$(1)/obj/%.o: %.c $$(wildcard sim/*.h cpu_ref/*.h analysis/*.h analysis/cli/*.h) | deps
	@mkdir -p $$(dir $$@)
	@echo "  CC    $$@"
	@$$(CC) $$(CPPFLAGS) $$(CFLAGS) $(2) -c $$< -o $$@
$(1)/libfasim.a: $$(patsubst %.c,$(1)/obj/%.o,$$(LIB_SRC))
	@rm -f $$@
	@ar rcs $$@ $$^
$(1)/fasim: $$(patsubst %.c,$(1)/obj/%.o,$$(CLI_SRC)) $(1)/libfasim.a
	@echo "  LD    $$@"
	@$$(CC) $$(CFLAGS) $(2) $$^ $$(LDLIBS) -o $$@
$(1)/tests/%: $(1)/obj/tests/%.o $(1)/libfasim.a
	@mkdir -p $$(dir $$@)
	@echo "  LD    $$@"
	@$$(CC) $$(CFLAGS) $(2) $$^ -lcmocka $$(LDLIBS) -o $$@
# the command line's own suites (tests/test_cli_*.c) link its objects, all but main()
$(1)/tests/test_cli_%: $(1)/obj/tests/test_cli_%.o $$(patsubst %.c,$(1)/obj/%.o,$$(filter-out analysis/cli/main.c,$$(CLI_SRC))) $(1)/libfasim.a
	@mkdir -p $$(dir $$@)
	@echo "  LD    $$@"
	@$$(CC) $$(CFLAGS) $(2) $$^ -lcmocka $$(LDLIBS) -o $$@
endef

SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
$(eval $(call flavour,$(BUILD),))
$(eval $(call flavour,$(BUILD)/asan,$(SAN)))

TESTS      := $(patsubst tests/%.c,$(BUILD)/asan/tests/%,$(TEST_SRC))

.PHONY: seeds fuzz all deps run test unit-test cli-test valgrind-test bench plots gpu bench-gpu clean valgrind
.PHONY: exercise exercise-test tutorial tutorial-test citations-test cycles-test
.DEFAULT_GOAL := all

all: $(BUILD)/fasim $(BUILD)/libfasim.a

deps:
	@./.ci/install-deps

run: all
	./$(BUILD)/fasim report

test: unit-test cli-test valgrind-test exercise-test tutorial-test citations-test cycles-test

valgrind-test: $(BUILD)/fasim
	@FASIM=./$(BUILD)/fasim sh tests/valgrind.sh

# the suites are compiled in parallel (one job a CPU), then run one after another
unit-test:
	@$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) $(TESTS)
	@set -e; for t in $(TESTS); do echo "== $$t"; ASAN_OPTIONS=detect_leaks=1 ./$$t; done

cli-test: $(BUILD)/asan/fasim
	@FASIM=./$(BUILD)/asan/fasim sh tests/cli_test.sh
	@FASIM=./$(BUILD)/asan/fasim sh tests/cli_golden.sh

# Course exercises (docs/exercises/): `make exercise EX=03` judges the student's file,
# `make exercise EX=03 FILE=my.c` another one; exercise-test proves every judge right.
exercise: $(BUILD)/libfasim.a
	@CC="$(CC)" LIB=$(BUILD)/libfasim.a EXOUT=$(BUILD)/exercises sh docs/exercises/judge.sh "$(EX)" $(FILE)

exercise-test: $(BUILD)/asan/libfasim.a
	@CC="$(CC)" LIB=$(BUILD)/asan/libfasim.a EXOUT=$(BUILD)/asan/exercises sh tests/exercises.sh

# docs/tutorial.md: `make tutorial` reruns its commands and rewrites their outputs;
# tutorial-test fails when the committed outputs differ from a fresh run.
tutorial: $(BUILD)/fasim
	@FASIM=./$(BUILD)/fasim sh tests/tutorial.sh --update

tutorial-test: $(BUILD)/fasim
	@FASIM=./$(BUILD)/fasim sh tests/tutorial.sh

# docs/citations.md lists every paper-line citation of cpu_ref/ and the IO docs (tests/citations.sh)
# no source file calls back into a file that calls it (the objects' symbols, nm)
cycles-test: $(BUILD)/fasim
	@sh tests/file_cycles.sh $(BUILD)

citations-test:
	@sh tests/citations.sh

valgrind: $(BUILD)/fasim
	FASIM=./$(BUILD)/fasim sh tests/valgrind.sh

bench: $(BUILD)/fasim $(BUILD)/bench
	@sh tests/bench.sh ./$(BUILD)/fasim ./$(BUILD)/bench

$(BUILD)/bench: $(BUILD)/obj/tests/bench.o $(BUILD)/libfasim.a
	$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

plots: all
	./$(BUILD)/fasim report --quiet
	@mkdir -p $(BUILD)/plots
	@sh plots/model_csv.sh tflops ./$(BUILD)/fasim analysis/measured/h200/s15_timemodel_input.csv $(BUILD)/plots/model_tflops.csv
	@set -e; for d in 64 128; do for c in 0 1; do for p in fwd bwd; do \
	  gnuplot -e "infile='$(BUILD)/plots/model_tflops.csv'; pass='$$p'; hd=$$d; causal=$$c; outfile='$(BUILD)/plots/model_tflops_d$${d}_causal$${c}_$${p}.png'" plots/tflops_model.gp; \
	done; done; done
	@set -e; for d in 64 128; do sh plots/model_csv.sh pipes ./$(BUILD)/fasim $$d $(BUILD)/plots/pipes_d$$d.csv; \
	  gnuplot -e "infile='$(BUILD)/plots/pipes_d$$d.csv'; hd=$$d; outfile='$(BUILD)/plots/pipes_d$$d.png'" plots/pipes_stack.gp; \
	done
	@set -e; for d in 64 128; do for c in 0 1; do \
	  gnuplot -e "ours='analysis/measured/h200/fabench_sweep.csv'; sdpa='analysis/measured/h200/sdpa_sweep.csv'; hd=$$d; causal=$$c; outfile='$(BUILD)/plots/tflops_d$${d}_causal$${c}.png'" plots/tflops_vs_n.gp; \
	done; done; echo "plots: build/report/*.png, $(BUILD)/plots/tflops_d*_causal*.png (measured H200 TFLOP/s),"; \
	  echo "  $(BUILD)/plots/model_tflops_d*_causal*_{fwd,bwd}.png (predicted beside measured TFLOP/s, data model_tflops.csv),"; \
	  echo "  $(BUILD)/plots/pipes_d{64,128}.png (predicted pipe busy times per kernel profile, data pipes_d*.csv)"
	./$(BUILD)/fasim check --study $(BUILD)/numerics --quiet

# The built-in check suites over seeds 1..SEEDS (default 100) for every dtype and pass (tests/seeds.sh;
# about 25 CPU-minutes, so not part of `make test`; results in docs/numerics.md "The verdict").
seeds: $(BUILD)/fasim
	@FASIM=./$(BUILD)/fasim sh tests/seeds.sh

# libFuzzer harnesses, one per file reader (tests/fuzz/fuzz_*.c: .npy, masks, --cu-seqlens, model
# configs, hardware profiles, measured CSVs), each run FUZZ_SECONDS (default 60) from its seeds in
# tests/fuzz/NAME/ with a 2 s limit per input (a slower input is a hang).  clang; not part of
# `make test`.  Results: docs/validate.md "Fuzzing".
FUZZ_SECONDS ?= 60
FUZZ_NAMES := npy masks cu_seqlens model hw measured
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
$(BUILD)/fuzz/obj/%.o: %.c $(wildcard sim/*.h cpu_ref/*.h analysis/*.h tests/fuzz/*.h) | deps
	@mkdir -p $(dir $@)
	@echo "  CLANG $@"
	@clang $(CPPFLAGS) -std=c11 -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -Itests/fuzz -c $< -o $@
$(BUILD)/fuzz/libfasim.a: $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRC))
	@rm -f $@
	@ar rcs $@ $^
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/obj/tests/fuzz/fuzz_%.o $(BUILD)/fuzz/libfasim.a
	@clang -g $(FUZZ_SAN) -fsanitize=fuzzer $^ $(LDLIBS) -o $@
fuzz: | deps
	@command -v clang >/dev/null || { echo "make fuzz needs clang (apt-get install clang)"; exit 2; }
	@$(MAKE) --no-print-directory $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_NAMES))
	@set -e; for f in $(FUZZ_NAMES); do \
	  rm -rf $(BUILD)/fuzz/corpus/$$f; mkdir -p $(BUILD)/fuzz/corpus/$$f; cp tests/fuzz/$$f/* $(BUILD)/fuzz/corpus/$$f/; \
	  echo "== fuzz_$$f, $(FUZZ_SECONDS) s"; \
	  ( cd $(BUILD)/fuzz && ./fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -timeout=2 -rss_limit_mb=4096 \
	      -print_final_stats=1 corpus/$$f > fuzz_$$f.log 2>&1 ) || { tail -40 $(BUILD)/fuzz/fuzz_$$f.log; exit 1; }; \
	  grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)" $(BUILD)/fuzz/fuzz_$$f.log; \
	done; rm -f /tmp/fasim_fuzz_*

clean:
	rm -rf $(BUILD)

-include kernels/kernels.mk
.SECONDARY:
