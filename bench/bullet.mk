# Optional Bullet comparison for bench_broad, included by the Makefile.
# When pkg-config finds bullet (Debian: libbullet-dev), bench/bullet_broad.cpp
# is compiled and linked into $(BUILD)/bench/bench_broad, which then times
# btDbvtBroadphase on the same moving spheres; without bullet nothing
# changes and bench_broad says Bullet is not linked in.
BULLET_CFLAGS := $(shell pkg-config --cflags bullet 2>/dev/null)
BULLET_LIBS := $(shell pkg-config --libs-only-L bullet 2>/dev/null) \
	$(if $(shell pkg-config --libs bullet 2>/dev/null),-lBulletCollision -lLinearMath)

ifneq ($(strip $(BULLET_LIBS)),)
CXX ?= g++
$(BUILD)/bench/bullet_broad.o: bench/bullet_broad.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(OPT) $(BULLET_CFLAGS) -Wall -Wextra -c $< -o $@

$(BUILD)/bench/bench_broad: $(BUILD)/bench/bullet_broad.o
$(BUILD)/bench/bench_broad: BENCH_LIBS += $(BUILD)/bench/bullet_broad.o $(BULLET_LIBS) -lstdc++
endif
