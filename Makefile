# mrdem: one library (common/ + formats/), many thin tools (tools/).
#
#   make            build every tool into bin/
#   make check      build and run all tests (silent on a pass; the failing
#                   tests' output on a failure)
#   make asan       the same tests under AddressSanitizer + UBSan
#   make expect     regenerate tests/expect/ (the specified text outputs)
#   make V=1 ...    show the full compile and link commands
#   make bench      print the benchmark figures
#   make example    run the default example scene
#   make install PREFIX=/usr/local [DESTDIR=...]   (and make uninstall)

CC      ?= gcc
PREFIX  ?= /usr/local
BUILD   ?= build
BIN     ?= bin
OPT     ?= -O2 -g
SAN     ?=

PKGS      := yaml-0.1 zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml -lz)

CFLAGS  := $(OPT) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
           -Wall -Wextra -fopenmp -MMD -MP -I. $(PKG_CFLAGS) $(SAN) $(EXTRA_CFLAGS)
LDFLAGS := -fopenmp $(SAN) $(EXTRA_LDFLAGS)
LDLIBS  := $(PKG_LIBS) -lm

LIB_SRC   := $(sort $(wildcard common/*/*.c common/narrow/*/*.c formats/*/*.c))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB       := $(BUILD)/libmrdem.a
TOOL_SRC  := $(sort $(wildcard tools/*.c))
TOOLS     := $(TOOL_SRC:tools/%.c=$(BIN)/%)
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))
UNITS     := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Programs the e2e tests run (tests/tools/), not installed.
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(sort $(wildcard tests/tools/*.c)))
BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCHES   := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# *_private.h: shared by a few .c files of one folder, not installed
HEADERS   := $(sort $(filter-out %_private.h,$(wildcard common/*/*.h common/narrow/*/*.h formats/*/*.h)))
MANS      := $(TOOL_SRC:tools/%.c=$(BUILD)/man/%.1)
# mrdem-run-mpi's too, once make mpi has built it
MANS      += $(if $(wildcard $(BIN)/mrdem-run-mpi),$(BUILD)/man/mrdem-run-mpi.1)
VERSION   := 2.0

# Plain `make` builds the tools, whatever an include below defines first.
.DEFAULT_GOAL := all
.PHONY: all check asan expect bench example install uninstall clean deps man FORCE
all: $(TOOLS)

# Quiet build lines (as git's Makefile): "CC file" unless V=1.
ifneq ($(V),1)
QUIET_CC = @echo '   ' CC $@;
QUIET_AR = @echo '   ' AR $@;
QUIET_LINK = @echo '   ' LINK $@;
MAKEFLAGS += --no-print-directory
endif

# Optional FCL comparisons in the benchmarks and test_analytic_fcl
# (nothing without libfcl-dev; the test then skips).
-include bench/fcl.mk
# Optional Bullet broad phase in bench_broad (nothing without libbullet-dev).
-include bench/bullet.mk

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CFLAGS) $(DEFS) -c $< -o $@

# The revision goes into every stream's meta record (formats/stream/meta.c); the
# stamp changes only when the revision does, so meta.o rebuilds then alone.
REVISION := $(shell git describe --always --dirty 2>/dev/null)
$(BUILD)/formats/stream/meta.o: DEFS = -DMRDEM_REVISION='"$(REVISION)"'
$(BUILD)/formats/stream/meta.o: $(BUILD)/revision
$(BUILD)/revision: FORCE
	@mkdir -p $(BUILD)
	@echo '$(REVISION)' | cmp -s - $@ || echo '$(REVISION)' >$@
FORCE:

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(QUIET_AR)ar rcs $@ $^

$(BIN)/%: $(BUILD)/tools/%.o $(LIB)
	@mkdir -p $(BIN)
	$(QUIET_LINK)$(CC) $(LDFLAGS) $(filter %.o,$^) $(LIB) $(LDLIBS) -o $@

# The driver's own parts beside its main (tools/run/): the step loop and
# its backends (in process, --via-pipes and the child processes it runs),
# the reporting.
RUN_SRC := $(sort $(wildcard tools/run/*.c))
$(BIN)/mrdem-run: $(RUN_SRC:%.c=$(BUILD)/%.o)

# mrdem-run-mpi: the driver built with MPI (make mpi; Open MPI's mpicc, from
# `make deps`): the same main and loop with the backend of tools/run/mpi/.
# Plain `make` never needs MPI.
MPICC     ?= mpicc
MPI_BUILD := $(BUILD)/mpi
MPI_SRC   := tools/mrdem-run.c $(RUN_SRC) $(sort $(wildcard tools/run/mpi/*.c))
MPI_OBJ   := $(MPI_SRC:%.c=$(MPI_BUILD)/%.o)
.PHONY: mpi
mpi: $(BIN)/mrdem-run-mpi $(BIN)/mrdem-merge
$(MPI_BUILD)/%.o: %.c
	@command -v $(MPICC) >/dev/null || { echo "make mpi: $(MPICC) not found: 'make deps' installs Open MPI" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(QUIET_CC)OMPI_CC=$(CC) $(MPICC) $(CFLAGS) -DMRDEM_MPI -c $< -o $@
$(BIN)/mrdem-run-mpi: $(MPI_OBJ) $(LIB)
	@mkdir -p $(BIN)
	$(QUIET_LINK)OMPI_CC=$(CC) $(MPICC) $(LDFLAGS) $(MPI_OBJ) $(LIB) $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(LDFLAGS) $< $(LIB) $(LDLIBS) $(TEST_LIBS) -o $@

$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIB)
	$(QUIET_LINK)$(CC) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(LDFLAGS) $< $(LIB) $(LDLIBS) $(BENCH_LIBS) -o $@

# Every test prints TAP; prove runs unit binaries and e2e scripts alike,
# two at a time (each test works in its own mktemp scratch directory),
# the slowest first so that both workers finish together; OpenMP's idle
# threads sleep (tests/lib/test-lib.sh says why). Silent on a
# pass; on a failure, the output of each failing test (kept under
# $(BUILD)/check/) and prove's summary.
CHECK_LOG := $(BUILD)/check
# mrdem-run-mpi too where Open MPI is installed (tests/e2e/mpi.sh skips without)
CHECK_MPI := $(if $(shell command -v $(MPICC) 2>/dev/null),$(BIN)/mrdem-run-mpi)
check: $(TOOLS) $(UNITS) $(TEST_TOOLS) $(CHECK_MPI)
	@rm -rf $(CHECK_LOG) && mkdir -p $(CHECK_LOG)
	@MRDEM_BIN=$(abspath $(BIN)) MRDEM_BUILD=$(abspath $(BUILD)) $(CHECK_ENV) \
	  MRDEM_PYTHON=$$(python3 -c 'import sys; print(sys.executable)') OMP_WAIT_POLICY=passive \
	  prove -j2 -Q --exec 'tests/lib/logged.sh $(CHECK_LOG)' \
	  $$(tests/lib/slow_first.sh $(UNITS) tests/e2e/*.sh) >$(CHECK_LOG)/prove.txt 2>&1 || \
	  { cat $(CHECK_LOG)/*.failed $(CHECK_LOG)/prove.txt 2>/dev/null; exit 1; }

asan:
	@$(MAKE) check BUILD=build-asan BIN=build-asan/bin OPT='-O1 -g' CHECK_ENV=MRDEM_ASAN=1 \
	  SAN='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all'

# The expected text outputs (tests/expect/, compared by tests/e2e/expect.sh),
# written afresh from this build and put in place of the whole folder, so
# none is left from a stream or tool that is gone: review the change with
# git diff.
expect: $(TOOLS)
	@rm -rf $(BUILD)/expect.new && \
	  MRDEM_BIN=$(abspath $(BIN)) tests/lib/expect_outputs.sh $(BUILD)/expect.new && \
	  rm -rf tests/expect && mv $(BUILD)/expect.new tests/expect

bench: $(TOOLS) $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done

example: $(TOOLS)
	./examples/run-default.sh

# Man pages come from the tools' own --help (docs/help2roff.sh).
man: $(MANS)
$(BUILD)/man/%.1: $(BIN)/% docs/help2roff.sh
	@mkdir -p $(dir $@)
	sh docs/help2roff.sh $< $(VERSION) $(TOOL_SRC:tools/%.c=%) >$@.tmp && mv $@.tmp $@

# Installed: bin/ tools, lib/libmrdem.a, lib/pkgconfig/mrdem.pc,
# include/mrdem/ with the headers in their source folders (HEADERS),
# share/man/man1/*.1, share/doc/mrdem.
# mrdem.pc is written for this PREFIX. The library is static, so its own
# dependencies (libyaml, zlib, libm, OpenMP) are in Libs, not Libs.private;
# the include dir keeps the source layout, so the headers' own "common/..."
# and "formats/..." includes resolve under it.
PC_LINES := 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include/mrdem' '' \
  'Name: mrdem' 'Description: multiresolution DEM: meshes, surrogate trees, contacts, streams' \
  'Version: $(VERSION)' 'Cflags: $(strip -I$${includedir} $(PKG_CFLAGS) -fopenmp)' \
  'Libs: -L$${libdir} -lmrdem $(strip $(PKG_LIBS)) -lm -fopenmp'

install: $(TOOLS) $(LIB) $(MANS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/doc/mrdem
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	if [ -x $(BIN)/mrdem-run-mpi ]; then install -m 755 $(BIN)/mrdem-run-mpi $(DESTDIR)$(PREFIX)/bin/; fi
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	printf '%s\n' $(PC_LINES) >$(DESTDIR)$(PREFIX)/lib/pkgconfig/mrdem.pc
	for h in $(HEADERS); do \
	  install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/mrdem/$$h || exit 1; done
	install -m 644 $(MANS) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/mrdem/
	install -d $(DESTDIR)$(PREFIX)/share/doc/mrdem/paraview $(DESTDIR)$(PREFIX)/share/doc/mrdem/figures
	install -m 644 docs/paraview/* $(DESTDIR)$(PREFIX)/share/doc/mrdem/paraview/
	install -m 644 docs/figures/* $(DESTDIR)$(PREFIX)/share/doc/mrdem/figures/

uninstall:
	rm -f $(TOOL_SRC:tools/%.c=$(DESTDIR)$(PREFIX)/bin/%) $(DESTDIR)$(PREFIX)/bin/mrdem-run-mpi \
	  $(TOOL_SRC:tools/%.c=$(DESTDIR)$(PREFIX)/share/man/man1/%.1) \
	  $(DESTDIR)$(PREFIX)/share/man/man1/mrdem-run-mpi.1 \
	  $(DESTDIR)$(PREFIX)/lib/libmrdem.a $(DESTDIR)$(PREFIX)/lib/pkgconfig/mrdem.pc
	rm -rf $(DESTDIR)$(PREFIX)/include/mrdem $(DESTDIR)$(PREFIX)/share/doc/mrdem

# Optional packages for comparison benchmarks (FCL, Bullet, LAMMPS), the peer code of the
# contact tests (LIGGGHTS) and the pipelines' plots (gnuplot); the core needs only pkg-config, libyaml-dev and zlib1g-dev.
deps:
	apt-get update -qq
	apt-get install -y -qq pkg-config libyaml-dev zlib1g-dev
	apt-get install -y -qq libfcl-dev || echo "libfcl-dev not available: FCL comparisons skipped"
	apt-get install -y -qq libbullet-dev || echo "libbullet-dev not available: Bullet comparison skipped"
	apt-get install -y -qq gnuplot-nox || echo "gnuplot-nox not available: pipelines write CSV, no plots"
	apt-get install -y -qq liggghts || echo "liggghts not available: the peer-code comparison is skipped"
	apt-get install -y -qq openmpi-bin libopenmpi-dev || echo "Open MPI not available: no mrdem-run-mpi, its tests skipped"
	apt-get install -y -qq lammps || echo "lammps not available: bench_spheres prints mrdem's figures alone"

clean:
	rm -rf build build-asan bin

.SECONDARY:
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
