# A heap's static angle of repose (heap.py): grains poured from a small
# cylinder onto a floor and left to settle; (a) analytic spheres with
# rolling friction, (b) noisy mesh spheres without it, and LIGGGHTS's (a)
# beside when liggghts is installed: out/heap/heap.md. HEAP_COUNT grains
# per heap (poured at 400 per second, then 0.5 s to settle): the default
# 600 took about 4 min CPU, nearly all of it the mesh heap (221 s, one
# thread); a larger HEAP_COUNT pours taller heaps, whose angle is less
# noisy, in time growing with the grains and the steps (COUNT / 400 + 0.5 s).

HEAP_COUNT := 600
$(call p_positive,HEAP_COUNT)
HEAP_DIR := $(OUT)/heap

.PHONY: heap
heap: $(I_TOOLS)
	@mkdir -p $(HEAP_DIR)
	python3 heap.py report $(BIN) $(HEAP_DIR) $(HEAP_COUNT) >$(HEAP_DIR)/heap.md.tmp
	mv $(HEAP_DIR)/heap.md.tmp $(HEAP_DIR)/heap.md
	@cat $(HEAP_DIR)/heap.md
