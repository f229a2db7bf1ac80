# Optional FCL comparison for bench_narrow, included by the Makefile.
# When pkg-config finds fcl (Debian: libfcl-dev), bench/fcl_tri.cpp is
# compiled and linked into $(BUILD)/bench/bench_narrow, which then times
# FCL's triangle distance on the same pairs; without fcl nothing changes
# and bench_narrow says FCL is not linked in.
FCL_CFLAGS := $(shell pkg-config --cflags fcl 2>/dev/null)
FCL_LIBS := $(shell pkg-config --libs fcl 2>/dev/null)

ifneq ($(strip $(FCL_LIBS)),)
CXX ?= g++
$(BUILD)/bench/fcl_tri.o: bench/fcl_tri.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(OPT) $(FCL_CFLAGS) -Wall -Wextra -c $< -o $@

$(BUILD)/bench/bench_narrow: $(BUILD)/bench/fcl_tri.o
$(BUILD)/bench/bench_narrow: BENCH_LIBS += $(BUILD)/bench/fcl_tri.o $(FCL_LIBS) -lstdc++
endif

# bench_query: FCL's OBBRSS collide and distance on the same meshes.
ifneq ($(strip $(FCL_LIBS)),)
$(BUILD)/bench/fcl_query.o: bench/fcl_query.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(OPT) $(FCL_CFLAGS) -Wall -Wextra -c $< -o $@

$(BUILD)/bench/bench_query: $(BUILD)/bench/fcl_query.o
$(BUILD)/bench/bench_query: BENCH_LIBS += $(BUILD)/bench/fcl_query.o $(FCL_LIBS) -lstdc++
endif

# bench_analytic: FCL's ellipsoid distance and collide on the same pairs.
ifneq ($(strip $(FCL_LIBS)),)
$(BUILD)/bench/fcl_shapes.o: bench/fcl_shapes.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(OPT) $(FCL_CFLAGS) -Wall -Wextra -c $< -o $@

$(BUILD)/bench/bench_analytic: $(BUILD)/bench/fcl_shapes.o
$(BUILD)/bench/bench_analytic: BENCH_LIBS += $(BUILD)/bench/fcl_shapes.o $(FCL_LIBS) -lstdc++
endif

# tests/unit/test_analytic_fcl and test_convex_fcl: the same FCL calls as bench_analytic (the
# test skips when they are not linked in).
ifneq ($(strip $(FCL_LIBS)),)
$(BUILD)/tests/test_analytic_fcl: $(BUILD)/bench/fcl_shapes.o
$(BUILD)/tests/test_analytic_fcl: TEST_LIBS += $(BUILD)/bench/fcl_shapes.o $(FCL_LIBS) -lstdc++
endif
ifneq ($(strip $(FCL_LIBS)),)
$(BUILD)/tests/test_convex_fcl: $(BUILD)/bench/fcl_shapes.o
$(BUILD)/tests/test_convex_fcl: TEST_LIBS += $(BUILD)/bench/fcl_shapes.o $(FCL_LIBS) -lstdc++
endif
