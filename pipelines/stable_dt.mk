# Largest stable time step of every scheme (explicit and symplectic Euler,
# velocity Verlet, implicit Euler) on Table 4's scenes run through the
# whole collision: dt doubles from 1e-4 s while the run completes and its
# energy error stays within STABLE_DT_BOUND (relative): out/stable-dt/stable-dt.md.
# STABLE_DT_SCENES and STABLE_DT_SCHEMES (comma-separated) pick a part.

STABLE_DT_BOUND   := 0.1
STABLE_DT_SCENES  := particle-particle,particle-on-plane
STABLE_DT_SCHEMES := explicit-euler,symplectic-euler,velocity-verlet,implicit-euler
SD_DIR  := $(OUT)/stable-dt
SD_ARGS := --bound $(STABLE_DT_BOUND) --scenes $(STABLE_DT_SCENES) --schemes $(STABLE_DT_SCHEMES)

.PHONY: stable-dt stable-dt-tools stable-dt-force
stable-dt: $(SD_DIR)/stable-dt.md
	@cat $<

stable-dt-tools:
	$(TOOLS_MAKE) bin/mrdem-run bin/mrdem-stats

# The arguments as a file that changes only when they do, so another
# choice of scenes or schemes reruns the study.
$(SD_DIR)/args: stable-dt-force
	@mkdir -p $(SD_DIR)
	@echo '$(SD_ARGS)' | cmp -s - $@ || echo '$(SD_ARGS)' >$@

$(SD_DIR)/stable-dt.md: stable_dt.py scenes.py $(SD_DIR)/args | stable-dt-tools
	python3 stable_dt.py $(BIN) $(SD_DIR) $(SD_ARGS) >$@.tmp && mv $@.tmp $@
