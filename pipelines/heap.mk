# A heap's static angle of repose (heap.py): grains poured from a small
# cylinder onto a floor and left to settle; (a) analytic spheres with
# rolling friction, (b) noisy mesh spheres without it, and LIGGGHTS's (a)
# beside when liggghts is installed: out/heap/heap.md. HEAP_COUNT grains
# per heap (poured at 400 per second, then 0.5 s to settle): the default
# 600 took 4.1 min CPU on one thread (mesh heap 211 s, spheres 34 s,
# LIGGGHTS 3 s; 15 min wall on a shared, loaded two-core machine); a
# larger HEAP_COUNT pours taller heaps, whose angle is less noisy, in a
# time growing with the grains and the steps (COUNT / 400 + 0.5 s of dt
# 5e-5 s). tests/e2e/heap.sh runs smaller heaps.

HEAP_COUNT := 600
$(call p_positive,HEAP_COUNT)
HEAP_DIR := $(OUT)/heap

.PHONY: heap
heap: $(I_TOOLS)
	@mkdir -p $(HEAP_DIR)
	python3 heap.py report $(BIN) $(HEAP_DIR) $(HEAP_COUNT) >$(HEAP_DIR)/heap.md.tmp
	mv $(HEAP_DIR)/heap.md.tmp $(HEAP_DIR)/heap.md
	@cat $(HEAP_DIR)/heap.md
