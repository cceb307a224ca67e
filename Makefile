# Build of the node. `make` builds src/valkey-server; `make test` installs what is missing,
# builds, runs the C++ unit tests and then the Tcl suite.
CXX ?= g++
MALLOC ?= jemalloc
OPT ?= -O2
CXXFLAGS ?= $(OPT) -g
# `make SANITIZE=address,undefined` builds the same binaries with ASan/UBSan (and the system
# allocator: the sanitizers replace malloc) in a build directory of their own, with the
# debug checks (NODE_DEBUG_CHECKS: invariants too costly to verify in a release build).
ifneq ($(SANITIZE),)
MALLOC = libc
OPT = -O1
SAN_FLAGS = -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-DNODE_DEBUG_CHECKS
endif
CXXFLAGS += $(SAN_FLAGS) -std=c++20 -Wall -Wextra -Wno-missing-field-initializers -Isrc -MMD -MP
# -rdynamic: the crash report names the functions of its stack trace (backtrace_symbols_fd).
LDLIBS = -rdynamic -lpthread

ifeq ($(MALLOC),jemalloc)
CXXFLAGS += -DUSE_JEMALLOC
LDLIBS += -ljemalloc
endif

comma := ,
BUILD = src/.build/$(MALLOC)$(if $(SANITIZE),-san-$(subst $(comma),-,$(SANITIZE)))

LIB_SRCS = $(sort $(wildcard src/base/*.cc src/ds/*.cc src/net/*.cc src/db/*.cc src/persist/*.cc \
	src/server/*.cc src/commands/*.cc src/repl/*.cc src/cluster/*.cc src/tools/*.cc))
LIB_OBJS = $(LIB_SRCS:src/%.cc=$(BUILD)/%.o)
UNIT_SRCS = $(sort $(wildcard tests/cc/*.cc))
UNIT_OBJS = $(UNIT_SRCS:tests/cc/%.cc=$(BUILD)/unit/%.o)

all: src/valkey-server src/valkey-check-aof src/valkey-check-rdb

# Relink when the allocator or sanitizer choice changes (objects of each choice live apart in
# $(BUILD)).
MALLOC_STAMP = src/.build/malloc-stamp
$(MALLOC_STAMP): FORCE
	@mkdir -p src/.build
	@echo $(BUILD) | cmp -s - $@ || echo $(BUILD) > $@

src/valkey-server: $(LIB_OBJS) $(BUILD)/main.o $(MALLOC_STAMP)
	$(CXX) $(CXXFLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)

# The check tools are the server binary under their names (main.cc picks the tool by name).
src/valkey-check-aof src/valkey-check-rdb:
	ln -sf valkey-server $@

src/valkey-unit-tests: $(LIB_OBJS) $(UNIT_OBJS) $(MALLOC_STAMP)
	$(CXX) $(CXXFLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)

$(BUILD)/%.o: src/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

$(BUILD)/unit/%.o: tests/cc/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

# Fuzzing (tests/fuzz/README.md): our own coverage-guided driver, built with ASan/UBSan and
# GCC's trace-pc/trace-cmp hooks in a build directory of its own. `make fuzz` replays every kept
# crash input, then fuzzes each target for FUZZ_SECONDS.
FUZZ_BUILD = src/.build/fuzz
FUZZ_FLAGS = -O1 -g -std=c++20 -Wall -Wextra -Wno-missing-field-initializers -Isrc -MMD -MP \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_COV = -fsanitize-coverage=trace-pc,trace-cmp
FUZZ_DRIVER = tests/fuzz/driver.cc tests/fuzz/coverage.cc
FUZZ_SRCS = $(filter-out $(FUZZ_DRIVER),$(sort $(wildcard tests/fuzz/*.cc)))
FUZZ_OBJS = $(LIB_SRCS:src/%.cc=$(FUZZ_BUILD)/%.o) $(FUZZ_SRCS:tests/fuzz/%.cc=$(FUZZ_BUILD)/fuzz/%.o) \
	$(FUZZ_DRIVER:tests/fuzz/%.cc=$(FUZZ_BUILD)/driver/%.o)
FUZZ_SECONDS ?= 10

src/valkey-fuzz: $(FUZZ_OBJS)
	$(CXX) $(FUZZ_FLAGS) -o $@ $^ -lpthread

$(FUZZ_BUILD)/%.o: src/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(FUZZ_FLAGS) $(FUZZ_COV) -c -o $@ $<

$(FUZZ_BUILD)/fuzz/%.o: tests/fuzz/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(FUZZ_FLAGS) $(FUZZ_COV) -c -o $@ $<

# The driver itself is not instrumented: only the code under test feeds the coverage map.
$(FUZZ_BUILD)/driver/%.o: tests/fuzz/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(FUZZ_FLAGS) -c -o $@ $<

# The C++ unit tests under ASan/UBSan (the normal build is untouched: objects live apart).
test-sanitize: build-deps
	@$(MAKE) --no-print-directory -j$(shell nproc) SANITIZE=address,undefined src/valkey-unit-tests
	./src/valkey-unit-tests

fuzz: build-deps
	@$(MAKE) --no-print-directory -j$(shell nproc) src/valkey-fuzz
	./tests/fuzz/run.sh $(FUZZ_SECONDS)

deps:
	@./deps/install-deps.sh

# Build dependencies must exist before compiling.
build-deps:
	@./deps/install-deps.sh build

test: build-deps
	@$(MAKE) --no-print-directory -j$(shell nproc) all src/valkey-unit-tests
	@./deps/install-deps.sh test
	./src/valkey-unit-tests
	tclsh8.6 tests/test_helper.tcl $(TEST_ARGS)

# A local cluster of 3 primaries + 3 replicas of our nodes (ports 30001-30006); it keeps
# running: `make stop` (or utils/create-cluster stop) ends it.
run: build-deps
	@./deps/install-deps.sh run
	@$(MAKE) --no-print-directory -j$(shell nproc) all
	@./utils/create-cluster stop >/dev/null 2>&1 || true
	./utils/create-cluster clean >/dev/null
	./utils/create-cluster start
	./utils/create-cluster create

stop:
	./utils/create-cluster stop

bench: all
	./utils/bench-foundation.sh

clean:
	rm -rf src/.build src/valkey-server src/valkey-unit-tests src/valkey-fuzz src/valkey-check-aof \
		src/valkey-check-rdb

.PHONY: all deps build-deps test run stop bench clean fuzz test-sanitize FORCE
FORCE:

-include $(LIB_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) $(BUILD)/main.d $(FUZZ_OBJS:.o=.d)
