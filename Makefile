# ismv — hand-written Makefile.
#   make              build build/$(MODE)/ismv (MODE=release by default)
#   make check        build and run the whole test suite ("N passed, N failed")
#   make check MODE=asan   the same under AddressSanitizer + UBSan
#   make MODE=tsan    build/tsan/ismv under ThreadSanitizer (make tsan builds it and runs tests/tsan/tsan.sh)
#   make bench        benchmarks (figures and ratios; never part of check)
#   make fuzz         libFuzzer harnesses, FUZZ_SECONDS (60) each (docs/reliability.md)
#   make format       clang-format every source file
#   make screenshots  redraw docs/img/report-*.png (ismv report in headless Chromium)
#   make doc          man page, bash/zsh completion and ismv.pc under build/MODE/doc
#   make install      PREFIX=/usr/local DESTDIR= : program, man page, completion, docs, library
#   make MPI=1        also build/$(MODE)/ismv-mpi, `verify` over MPI ranks (Open MPI: ./setup.sh --mpi);
#                     the default when mpicc and mpirun are installed, MPI=0 to skip (docs/scale-out.md)
MODE ?= release
BUILD := build/$(MODE)
CC ?= cc
PKGS := z3 gsl yaml-0.1 libxml-2.0

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
ifdef WERROR
WARN += -Werror
endif
CFLAGS_BASE := -std=c11 -pthread -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. $(WARN) \
               $(shell pkg-config --cflags $(PKGS)) -MMD -MP
LDLIBS := $(shell pkg-config --libs $(PKGS)) -lm -pthread

# Graphviz lays out the report's drawings, in apps/graph_svg.c only; without it
# (make GRAPHVIZ=0, or libgvc not installed) the report lists edges instead.
GRAPHVIZ ?= $(shell pkg-config --exists libgvc libcgraph && echo 1 || echo 0)
PC_REQUIRES := $(PKGS)
PC_LIBS := -lm -pthread
ifeq ($(GRAPHVIZ),1)
  GV_PLUGINS := $(shell pkg-config --variable=libdir libgvc)/graphviz
  GV_CFLAGS := -DISMV_GRAPHVIZ $(shell pkg-config --cflags libgvc libcgraph)
  LDLIBS += -L$(GV_PLUGINS) -Wl,-rpath,$(GV_PLUGINS) -lgvplugin_dot_layout -lgvplugin_core \
            $(shell pkg-config --libs libgvc libcgraph)
  PC_REQUIRES += libgvc libcgraph
  PC_LIBS := -L$(GV_PLUGINS) -Wl,-rpath,$(GV_PLUGINS) -lgvplugin_dot_layout -lgvplugin_core $(PC_LIBS)
endif

# ismv-mpi: the same program, `verify` also over MPI ranks (apps/mpi_verify.c). Only
# the files that know of MPI are compiled again, with -DISMV_MPI, into $(BUILD)/mpi;
# the rest is libismv.a.
MPI ?= $(shell command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 && echo 1 || echo 0)
MPI_BIN := $(BUILD)/ismv-mpi
MPI_OBJ := $(BUILD)/mpi/apps/mpi_main.o $(BUILD)/mpi/apps/mpi_verify.o $(BUILD)/mpi/apps/verify_shard.o
ifeq ($(MPI),1)
  MPI_CFLAGS = -DISMV_MPI $(shell mpicc --showme:compile)
  MPI_LIBS = $(shell mpicc --showme:link)
  MPI_TARGET := $(MPI_BIN)
endif

ifeq ($(MODE),release)
  CFLAGS_MODE := -O2 -g
else ifeq ($(MODE),debug)
  CFLAGS_MODE := -O0 -g3
else ifeq ($(MODE),fuzz)
  # libFuzzer harnesses (tests/fuzz/fuzz_*.c) against an instrumented library
  CC := clang-14
  CFLAGS_MODE := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                 -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=fuzzer,address,undefined
else ifeq ($(MODE),asan)
  CFLAGS_MODE := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
else ifeq ($(MODE),tsan)
  # ThreadSanitizer: the threads of verify (search, ranking, streaming) and robustify
  # (tests/tsan/tsan.sh; Z3, GSL and libyaml are not instrumented, so races inside them are not seen)
  CFLAGS_MODE := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
  LDFLAGS += -fsanitize=thread
else
  $(error MODE must be release, debug, asan, tsan or fuzz)
endif
CFLAGS += $(CFLAGS_BASE) $(CFLAGS_MODE)

LIB_SRC := $(sort $(wildcard ism/*.c verifier/*.c verifier/*/*.c probability/*.c)) \
           $(filter-out apps/main.c apps/docgen_main.c apps/mpi_main.c apps/mpi_verify.c,$(sort $(wildcard apps/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/*_test.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BIN := $(BUILD)/ismv
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/tests/%)
FUZZ_SECONDS ?= 60

.PHONY: all check bench format clean doc install uninstall fuzz fuzz-build screenshots tsan
all: $(BIN) $(MPI_TARGET)

$(BUILD)/libismv.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(BUILD)/apps/main.o $(BUILD)/libismv.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/mpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(MPI_CFLAGS) -c -o $@ $<

# its own verify_shard.o comes first, so the archive's is not linked
$(MPI_BIN): $(MPI_OBJ) $(BUILD)/libismv.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(MPI_LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/libismv.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/apps/graph_svg.o: CFLAGS += $(GV_CFLAGS)
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# Documentation generated from the option tables (man page, completions).
DOCGEN := $(BUILD)/ismv-docgen
DOC := $(BUILD)/doc
$(DOCGEN): $(BUILD)/apps/docgen_main.o $(BUILD)/libismv.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(DOC)/ismv.1: $(DOCGEN)
	@mkdir -p $(DOC)
	$(DOCGEN) man > $@.tmp && mv $@.tmp $@
$(DOC)/ismv.bash: $(DOCGEN)
	@mkdir -p $(DOC)
	$(DOCGEN) bash > $@.tmp && mv $@.tmp $@
$(DOC)/_ismv: $(DOCGEN)
	@mkdir -p $(DOC)
	$(DOCGEN) zsh > $@.tmp && mv $@.tmp $@
doc: $(DOC)/ismv.1 $(DOC)/ismv.bash $(DOC)/_ismv

# make install PREFIX=/usr DESTDIR=/tmp/stage: the program, its man page, bash and
# zsh completion, the documentation, and libismv.a with its headers and ismv.pc.
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define ISMV_VERSION "\(.*\)"/\1/p' apps/cli.c)
HEADERS := $(sort $(wildcard ism/*.h verifier/*.h verifier/*/*.h probability/*.h apps/*.h))
install: $(BIN) doc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/doc/ismv/docs $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ismv
	install -m 644 $(DOC)/ismv.1 $(DESTDIR)$(PREFIX)/share/man/man1/ismv.1
	install -m 644 $(DOC)/ismv.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ismv
	install -m 644 $(DOC)/_ismv $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_ismv
	install -m 644 README.md $(DESTDIR)$(PREFIX)/share/doc/ismv/README.md
	install -m 644 docs/*.md docs/*.json $(DESTDIR)$(PREFIX)/share/doc/ismv/docs/
	install -m 644 $(BUILD)/libismv.a $(DESTDIR)$(PREFIX)/lib/libismv.a
	printf 'prefix=%s\nincludedir=$${prefix}/include/ismv\nlibdir=$${prefix}/lib\n\nName: ismv\nDescription: %s\nVersion: %s\nRequires.private: %s\nCflags: -I$${includedir}\nLibs: -L$${libdir} -lismv\nLibs.private: %s\n' \
	  '$(PREFIX)' 'the verifier library behind the ismv program' '$(VERSION)' '$(PC_REQUIRES)' '$(PC_LIBS)' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ismv.pc
	for h in $(HEADERS); do install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/ismv/$$h || exit 1; done
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ismv $(DESTDIR)$(PREFIX)/share/man/man1/ismv.1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ismv $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_ismv \
	  $(DESTDIR)$(PREFIX)/lib/libismv.a $(DESTDIR)$(PREFIX)/lib/pkgconfig/ismv.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/ismv $(DESTDIR)$(PREFIX)/include/ismv

# make fuzz [FUZZ_SECONDS=N] [FUZZ=fuzz_ism]: build the harnesses (clang-14,
# libFuzzer, ASan+UBSan) and run each (or one) for N seconds on its seeds.
fuzz:
	$(MAKE) MODE=fuzz fuzz-build
	@bash tests/fuzz/fuzz.sh $(FUZZ_SECONDS) $(or $(FUZZ),$(notdir $(FUZZ_BIN)))

fuzz-build: $(FUZZ_BIN)

build/fuzz/tests/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/libismv.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

check: $(BIN) $(MPI_TARGET) $(UNIT_BIN) doc
	@ISMV=$(BIN) ISMV_MPI=$(MPI_TARGET) UNIT_DIR=$(BUILD)/tests MODE=$(MODE) bash tests/run.sh

# verify's threads under ThreadSanitizer (a build of its own, build/tsan; .ci/run runs it);
# outputs are compared with the release binary's
tsan: $(BIN)
	$(MAKE) MODE=tsan build/tsan/ismv
	@ISMV=$(BIN) bash tests/tsan/tsan.sh

# The README's screenshots of a verify and a robustness report (headless Chromium).
screenshots: $(BIN)
	@bash docs/img/screenshots.sh $(BIN)

bench: $(BIN)
	@ISMV=$(BIN) bash bench/run.sh

format:
	clang-format -i $(wildcard ism/*.[ch] verifier/*.[ch] verifier/*/*.[ch] probability/*.[ch] apps/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch])

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(MPI_OBJ:.o=.d) $(BUILD)/apps/main.d $(BUILD)/apps/docgen_main.d $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.d) \
         $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%.d)

# Keep the object files of the test programs and fuzz harnesses (make would
# delete them as intermediates). Only those: a bare `.SECONDARY:` makes every
# target secondary, and make then does not rebuild a deleted library object
# while libismv.a is newer than its sources (tests/reliability_build.sh).
.SECONDARY: $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.o) $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%.o)
