# Build of the node. `make` builds src/valkey-server; `make test` installs what is missing,
# builds, runs the C++ unit tests and then the Tcl suite.
CXX ?= g++
MALLOC ?= jemalloc
OPT ?= -O2
CXXFLAGS ?= $(OPT) -g
CXXFLAGS += -std=c++20 -Wall -Wextra -Wno-missing-field-initializers -Isrc -MMD -MP
LDLIBS = -lpthread

ifeq ($(MALLOC),jemalloc)
CXXFLAGS += -DUSE_JEMALLOC
LDLIBS += -ljemalloc
endif

BUILD = src/.build/$(MALLOC)
LIB_SRCS = $(sort $(wildcard src/base/*.cc src/ds/*.cc src/net/*.cc src/db/*.cc src/persist/*.cc \
	src/server/*.cc src/commands/*.cc src/repl/*.cc src/cluster/*.cc))
LIB_OBJS = $(LIB_SRCS:src/%.cc=$(BUILD)/%.o)
UNIT_SRCS = $(sort $(wildcard tests/cc/*.cc))
UNIT_OBJS = $(UNIT_SRCS:tests/cc/%.cc=$(BUILD)/unit/%.o)

all: src/valkey-server

# Relink when the allocator choice changes (objects of each choice live apart in $(BUILD)).
MALLOC_STAMP = src/.build/malloc-stamp
$(MALLOC_STAMP): FORCE
	@mkdir -p src/.build
	@echo $(MALLOC) | cmp -s - $@ || echo $(MALLOC) > $@

src/valkey-server: $(LIB_OBJS) $(BUILD)/main.o $(MALLOC_STAMP)
	$(CXX) $(CXXFLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)

src/valkey-unit-tests: $(LIB_OBJS) $(UNIT_OBJS) $(MALLOC_STAMP)
	$(CXX) $(CXXFLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)

$(BUILD)/%.o: src/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

$(BUILD)/unit/%.o: tests/cc/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

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
	rm -rf src/.build src/valkey-server src/valkey-unit-tests

.PHONY: all deps build-deps test run stop bench clean FORCE
FORCE:

-include $(LIB_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) $(BUILD)/main.d
