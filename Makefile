# The course module's one Makefile: builds every lesson and runs the checks.
# `make help` lists the targets. Lessons are discovered, not listed: every
# day*/ folder that holds a .cu is a lesson, and its program is named after
# that file.

SHELL := /bin/sh

# The GPU's own architecture when there is one (so `make` on a T4 builds
# sm_75), else the H200's sm_90, which is what the transcripts ran. Every
# lesson builds for sm_75, sm_80, sm_86, sm_89 and sm_90 (make check proves it).
ARCH ?= $(shell cap=$$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. '); \
                 if [ -n "$$cap" ]; then echo sm_$$cap; else echo sm_90; fi)
NVCC ?= nvcc
# Warnings are errors, in host code as well as device code.
NVCCFLAGS ?= -O3 -arch=$(ARCH) -Xcompiler -Wall,-Wextra -Werror all-warnings
CC ?= cc
CFLAGS ?= -O2 -std=c99 -Wall -Wextra -Werror

SOURCES  := $(sort $(wildcard day*/*.cu))
LESSONS  := $(patsubst %/,%,$(dir $(SOURCES)))
PROGRAMS := $(SOURCES:.cu=)
TODAY    := $(shell date -u +%Y-%m-%d)
TOOLS    := common/wordgraph common/mmbench
# common/setup installs what this machine lacks into .tools/ and writes
# .tools/env.sh; every target that needs a tool runs it first and sources it.
SETUP    := sh common/setup && . ./.tools/env.sh
SETUP_GPU := sh common/setup --gpu && . ./.tools/env.sh
# The GPU targets refuse at once, in one line, where no GPU answers (make's
# own error line, before any recipe runs or any file is touched).
NEED_GPU  = $(if $(shell sh common/need-gpu && echo yes),,$(error make $@: no usable GPU found \
            (nvidia-smi lists none); it runs the lessons on a GPU, so nothing was run or written))

.PHONY: all help check verify evidence sanitize plots snippets figures data clean pinned

all: $(PROGRAMS) $(TOOLS)

help:
	@echo "make            build every lesson ($(ARCH); override with make ARCH=sm_75) and the tools"
	@echo "make check      no GPU needed: installs what is missing (common/setup), builds, then checks"
	@echo "                layout, statements, budgets, the five architectures, macros, snippets, evidence,"
	@echo "                host parts, bad-input corpora (also under ASan+UBSan), data, plots, the checker"
	@echo "make verify     GPU: runs every lesson, compares with its README (measured values masked),"
	@echo "                keeps the log as evidence/verify-DATE.txt"
	@echo "make evidence   GPU: writes dayNN-*/evidence/run-DATE.txt and refreshes each README's expected output;"
	@echo "                a lesson that trains a model runs its training first (train-DATE.txt; TRAIN=no skips it),"
	@echo "                a lesson with a // Full: line records that run too (full-DATE.txt), one whose README"
	@echo "                quotes its peak GPU memory measures it (gpumem-DATE.txt); then refills README figures"
	@echo "make figures    refills every figure marked in README prose from the newest transcripts"
	@echo "make sanitize   GPU: compute-sanitizer memcheck, racecheck, synccheck, initcheck on every lesson's"
	@echo "                --small run, log in evidence/sanitize-DATE.txt"
	@echo "make plots      draws each lesson's figures from its newest transcript, beside it"
	@echo "make snippets   rewrites the code quoted in each README from its source"
	@echo "make data       regenerates the word-graph data files from the CUDA Toolkit's headers"
	@echo "make pinned     copies common/mmio.h and day 38's grid loop into the lessons that carry them"
	@echo "lessons: $(LESSONS)"

# Each lesson builds alone with the line its header gives; the libraries it
# links are read from what it includes.
$(PROGRAMS): %: %.cu
	cd $(@D) && $(NVCC) $(NVCCFLAGS) -o $(@F) $(<F) \
	    $$(grep -q '^#include <cusparse.h>' $(<F) && echo -lcusparse) \
	    $$(grep -q '^#include <cublas_v2.h>' $(<F) && echo -lcublas)

common/wordgraph: common/wordgraph.c
	$(CC) $(CFLAGS) -o $@ $<

common/mmbench: common/mmbench.c common/mmio.h
	$(CC) $(CFLAGS) -o $@ $< -lm

# Builds what it can and lets common/check count what did not build, so one
# broken lesson is one failure in the tally rather than the end of the run.
check:
	@$(SETUP) && { $(MAKE) -k -j2 --no-print-directory all || true; } && sh common/check $(LESSONS)

# A log is never overwritten: a second run on the same day writes -2, -3, ...
verify:
	@$(NEED_GPU)
	@$(SETUP_GPU) && $(MAKE) --no-print-directory all && mkdir -p evidence && \
	    log=$$(sh common/new-log evidence/verify-$(TODAY)) && \
	    sh common/verify $(LESSONS) 2>&1 | tee "$$log" && tail -n 1 "$$log" | grep -q ' 0 failed$$'

# A lesson whose header has a "// Train: ./PROG ARGS" line is trained first,
# since its default run reads what training writes; TRAIN=no keeps the
# committed model and records the default runs only.
TRAIN ?= yes
evidence:
	@$(NEED_GPU)
	@$(SETUP_GPU) && $(MAKE) --no-print-directory all && for d in $(LESSONS); do \
	    args=$$(sh common/lesson-info $$d train); \
	    if [ -n "$$args" ] && [ "$(TRAIN)" != no ]; then sh common/evidence --as train $$d $$args || exit 1; fi; \
	    sh common/evidence $$d || exit 1; \
	    full=$$(sh common/lesson-info $$d full); \
	    if [ -n "$$full" ]; then sh common/evidence --as full $$d $$full || exit 1; fi; \
	    if grep -q 'fig gpumem:' $$d/README.md; then sh common/gpumem $$d || exit 1; fi; \
	done
	@for d in . $(LESSONS); do sh common/figures fill $$d || exit 1; done

sanitize:
	@$(NEED_GPU)
	@$(SETUP_GPU) && $(MAKE) --no-print-directory all && mkdir -p evidence && \
	    log=$$(sh common/new-log evidence/sanitize-$(TODAY)) && \
	    sh common/sanitize $(LESSONS) 2>&1 | tee "$$log" && tail -n 1 "$$log" | grep -q ' 0 failed$$'

plots:
	@$(SETUP) && for d in $(LESSONS); do \
	    t=$$(sh common/lesson-info $$d transcript); \
	    if [ -n "$$t" ]; then python3 common/plot.py $$t || exit 1; else echo "plots: $$d has no transcript"; fi; \
	done

snippets:
	@for d in $(LESSONS); do sh common/snippets splice $$d/README.md $$d/*.cu || exit 1; done

figures:
	@for d in . $(LESSONS); do sh common/figures fill $$d || exit 1; done

data: common/wordgraph
	@for f in $$(grep -l '^[%#] regenerate: ' $(addsuffix /*.mtx,$(LESSONS)) $(addsuffix /*.txt,$(LESSONS)) 2>/dev/null); do \
	    cmd=$$(sed -n 's/^[%#] regenerate: //p' $$f | head -n 1); \
	    CUDA_ROOT=$${CUDA_ROOT:-$$(dirname $$(dirname $$(command -v $(NVCC))))} sh -c "$$cmd" > $$f.new && mv $$f.new $$f && echo "data: wrote $$f"; \
	done

clean:
	rm -f $(PROGRAMS) $(TOOLS)

# Maintainers: copies common/mmio.h into every lesson and day 38's grid loop
# into day 40, between their marker lines (make check compares the copies).
pinned:
	@sh common/pinned sync $(SOURCES)
