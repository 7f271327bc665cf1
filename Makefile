# pmlab build. GNU make + pkg-config: the dependency set is small and all of it
# ships .pc files in Debian, so nothing heavier is needed.
#
#   make            release binary ./pmlab
#   make test       unit + CLI tests, on the release build and the ASan+UBSan build
#   make bench      benchmarks (BENCH <name> <value> <unit> lines; a few minutes)
#   make bench-compare  mmc-sleep on pmlab, ns-3 and SimPy side by side
#   make browser-tests  report.html rendered by headless chromium, checked
#                   against the JSON (tests/browser/; part of make test)
#   make asan       sanitizer build only (build/asan/pmlab)
#   make check-invariants  the seed scenarios, quick, one replication, on the
#                   invariant-checking build (build/inv/pmlab)
#   make fuzz       every libFuzzer target for FUZZ_S seconds (default 60), see
#                   tests/fuzz/README.md; make test runs each briefly (fuzz-smoke)
#   make run-seeds  the main job: every scenario in scenarios/
#   make install    the binary, the man page, the shipped machines and
#                   scenarios under PREFIX (default /usr/local; DESTDIR too);
#                   the binary looks for machines in PREFIX/share/pmlab/machines
#   make validate   every published figure a shipped scenario can pose, one
#                   row each, into docs/validation.md (minutes; not a test)

CC      ?= cc
PKGS    := inih gsl jansson sqlite3 nettle libtracecmd zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
BASEFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Isrc $(PKG_CFLAGS) -MMD -MP

# Variant directories: rel (optimised), asan (sanitizers, assertions), inv
# (optimised, assertions, every model invariant checked after every event:
# src/world_check.h) and fuzz (clang, libFuzzer + ASan + UBSan; only the
# harnesses link).
V ?= rel
ifeq ($(V),asan)
  OPTFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -DPMLAB_DEBUG=1
  LDSAN    := -fsanitize=address,undefined
else ifeq ($(V),inv)
  OPTFLAGS := -O2 -g -DPMLAB_INVARIANTS=1
  LDSAN    :=
else ifeq ($(V),fuzz)
  CC       := clang
  OPTFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -DPMLAB_DEBUG=1
  LDSAN    := -fsanitize=fuzzer,address,undefined
else
  # Link-time optimisation for ./pmlab only: fat objects keep ordinary code
  # too, so test and bench binaries link as before (no LTO pass per test
  # binary). Measured on the rr scale bench (CPU time, A/B interleaved): 56
  # CPUs 606-625 -> 549-587 ns/event, 224 CPUs 2169 -> 1977; cppc-osc default
  # 2.08-2.22 -> 1.98-2.05 s; outputs byte-identical.
  OPTFLAGS := -O2 -g -DNDEBUG -flto=auto -ffat-lto-objects
  LDSAN    :=
  LDLTO    := -flto=auto
endif
B       := build/$(V)
# Where make install puts the shared files; compiled into the binary (the
# last place it looks for machine files), through a header rewritten only
# when PREFIX changes, so that a new PREFIX rebuilds what uses it.
PREFIX  ?= /usr/local
DATADIR := $(PREFIX)/share/pmlab
CFLAGS_ALL := $(BASEFLAGS) -I$(B)/config $(OPTFLAGS) $(CFLAGS)
# The commit a sweep database and a run's configuration record as provenance
# (src/util/version.c):
# only that object is rebuilt when it changes.
GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
$(shell mkdir -p $(B) && echo '$(GIT_COMMIT)' | cmp -s - $(B)/git-commit || echo '$(GIT_COMMIT)' >$(B)/git-commit)
LDLIBS_ALL := $(LDSAN) $(PKG_LIBS) -lpthread -lm

LIB_SRC  := $(shell find src -name '*.c' ! -path src/main.c ! -path 'src/mpi/*' | sort)
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_S ?= 60
FUZZ_SMOKE_S ?= 5
BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)

# Test and bench objects are not intermediate: keep them between runs.
.SECONDARY:

.PHONY: all install uninstall FORCE asan test unit-tests cli-tests scenario-tests browser-tests bench bench-compare run-seeds validate clean \
	build-fuzz fuzz fuzz-smoke check-invariants
all: pmlab

$(B)/src/util/version.o: $(B)/git-commit
$(B)/src/util/version.o: CFLAGS_ALL += -DPMLAB_GIT_COMMIT='"$(GIT_COMMIT)"'

pmlab: $(B)/pmlab
	@cp $< $@.tmp && mv -f $@.tmp $@

$(B)/pmlab: $(B)/src/main.o $(B)/libpmlab.a
	$(CC) $(OPTFLAGS) $(LDLTO) -o $@ $^ $(LDLIBS_ALL)

# make MPI=1: also pmlab-mpi, sweeps on Open MPI (src/mpi/main_mpi.c).
ifeq ($(MPI),1)
all: pmlab-mpi
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c)
MPI_LIBS   := $(shell pkg-config --libs ompi-c)
$(B)/src/mpi/main_mpi.o: CFLAGS_ALL += $(MPI_CFLAGS)
endif

pmlab-mpi: $(B)/pmlab-mpi
	@cp $< $@.tmp && mv -f $@.tmp $@

$(B)/pmlab-mpi: $(B)/src/mpi/main_mpi.o $(B)/libpmlab.a
	$(CC) -o $@ $^ $(MPI_LIBS) $(LDLIBS_ALL)

$(B)/libpmlab.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/config/pmlab_paths.h: FORCE
	@mkdir -p $(dir $@)
	@printf '/* generated by make: PREFIX=%s */\n#define PMLAB_DATADIR "%s"\n' '$(PREFIX)' '$(DATADIR)' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
FORCE:

$(B)/src/scenario/machine_path.o: $(B)/config/pmlab_paths.h

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC [$(V)] $<"
	@$(CC) $(CFLAGS_ALL) -c -o $@ $<

# -fno-lto: the release objects carry LTO code too, and without it the
# linker plugin would run a whole-program LTO pass for each of the ~50 test
# binaries (most of make test's build time); they link the ordinary code.
$(B)/tests/%: $(B)/tests/%.o $(B)/libpmlab.a
	$(CC) -fno-lto -o $@ $^ -lcmocka $(LDLIBS_ALL)

$(B)/bench/%: $(B)/bench/%.o $(B)/libpmlab.a
	$(CC) -fno-lto -o $@ $^ $(LDLIBS_ALL)

$(B)/fuzz/%: $(B)/tests/fuzz/%.o $(B)/libpmlab.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_ALL)

build-tests: $(B)/pmlab $(TEST_BIN)
build-bench: $(BENCH_BIN)

asan:
	$(MAKE) V=asan build/asan/pmlab

# Unit tests and CLI tests run twice: optimised, then under ASan+UBSan.
# Every build first (TEST_JOBS compilers at a time, 2 by default), then every test as one pool
# of tasks run two at a time, longest first (scripts/testpool.sh: each
# task's log is printed as it ends), then the fuzz smoke (two targets at a
# time itself).
TEST_JOBS ?= 2
test:
	$(MAKE) -j$(TEST_JOBS) V=rel build-tests
	$(MAKE) -j$(TEST_JOBS) V=rel MPI=1 build/rel/pmlab-mpi
	$(MAKE) -j$(TEST_JOBS) V=asan build-tests
	$(MAKE) -j$(TEST_JOBS) V=inv build/inv/pmlab
	$(MAKE) -j$(TEST_JOBS) V=fuzz build-fuzz
	@sh scripts/testpool.sh
	@sh scripts/fuzz.sh $(FUZZ_SMOKE_S) smoke
	@echo "test: all passed (rel and asan)"

unit-tests:
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; $$t; done

# tests/cli/install.sh builds its own release copy: run under rel only.
cli-tests:
	@set -e; for t in tests/cli/*.sh; do \
	    [ "$(V)" = rel ] || [ $$t != tests/cli/install.sh ] || continue; \
	    echo "== $$t ($(V))"; PMLAB=$(B)/pmlab PMLAB_MPI=$(B)/pmlab-mpi sh $$t; done

# Seed scenarios in their quick configuration, asserting each published
# effect within stated bounds (optimised build only: they are long).
scenario-tests:
	@set -e; for t in tests/scenarios/*.sh; do echo "== $$t ($(V))"; PMLAB=$(B)/pmlab sh $$t; done

# report.html in a real browser (chromium's headless shell, installed by
# scripts/deps.sh; missing, the test fails): optimised build only, the page
# does not depend on the build.
browser-tests:
	@set -e; for t in tests/browser/*.sh; do echo "== $$t ($(V))"; PMLAB=$(B)/pmlab sh $$t; done

# Every seed scenario's quick configuration, one replication, with every
# invariant checked after every event (src/world_check.h); a violation
# aborts with what, where and when.
check-invariants:
	$(MAKE) V=inv build/inv/pmlab
	@set -e; for s in scenarios/*.ini; do echo "== invariants: $$s"; \
	    build/inv/pmlab run "$$s" --quick --reps 1 --quiet >/dev/null; done
	@echo "check-invariants: no violation"

# libFuzzer targets (tests/fuzz/README.md): each one's crash regressions,
# then FUZZ_S seconds of fuzzing from its seed corpus, two at a time.
build-fuzz: $(FUZZ_BIN)

fuzz:
	$(MAKE) V=fuzz build-fuzz
	@sh scripts/fuzz.sh $(FUZZ_S)

# What make test runs: the same for FUZZ_SMOKE_S seconds each (CI).
fuzz-smoke:
	$(MAKE) V=fuzz build-fuzz
	@sh scripts/fuzz.sh $(FUZZ_SMOKE_S) smoke

bench:
	$(MAKE) V=rel $(B)/pmlab build-bench
	@set -e; for b in $(BENCH_BIN); do $$b; done
	@sh bench/scenario.sh build/rel/pmlab
	@sh bench/scale.sh build/rel/pmlab
	@sh bench/seeds.sh build/rel/pmlab
	@sh bench/sweep.sh build/rel/pmlab build/rel/pmlab-mpi

# pmlab vs ns-3 vs SimPy on the mmc-sleep model (bench/compare.sh); each
# simulator that is not installed is skipped.
bench-compare:
	$(MAKE) V=rel build-bench
	@sh bench/compare.sh

run-seeds: pmlab
	@set -e; for s in scenarios/*.ini; do ./pmlab run "$$s"; done

# Runs each scenario once in its default configuration and reads every figure
# of validation/figures.ini from it. A MISS never fails; a broken figure file
# does (exit 2). VALIDATE_QUICK=1: quick configurations, no document;
# VALIDATE_JOBS=N: pmlab's worker threads.
validate: pmlab
	@sh scripts/validate.sh

# DESTDIR: a staging root (packaging); the paths compiled in are PREFIX's.
# scenarios/rtapp holds the rt-app use cases that scenarios name relative to
# themselves (file = rtapp/X.json), so it goes beside them; so do the traces
# the replay scenarios name (trace = traces/X).
install: $(B)/pmlab
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(DATADIR)/machines $(DESTDIR)$(DATADIR)/scenarios \
	    $(DESTDIR)$(DATADIR)/scenarios/rtapp $(DESTDIR)$(DATADIR)/scenarios/traces
	install -m 755 $(B)/pmlab $(DESTDIR)$(PREFIX)/bin/pmlab
	install -m 644 docs/pmlab.1 $(DESTDIR)$(PREFIX)/share/man/man1/pmlab.1
	install -m 644 machines/*.ini $(DESTDIR)$(DATADIR)/machines
	install -m 644 scenarios/traces/* $(DESTDIR)$(DATADIR)/scenarios/traces
	install -m 644 scenarios/*.ini $(DESTDIR)$(DATADIR)/scenarios
	install -m 644 scenarios/rtapp/*.json $(DESTDIR)$(DATADIR)/scenarios/rtapp

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/pmlab $(DESTDIR)$(PREFIX)/share/man/man1/pmlab.1
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build pmlab

-include $(shell find build -name '*.d' 2>/dev/null)
