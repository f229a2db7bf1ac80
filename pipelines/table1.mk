# Paper Table 1 (Sec. 6.2): the root surrogate of spheres of diameter 1
# (radius 0.5) with |T| = 80, 320, 1280 triangles, stretched along one axis
# by eta_r = 1.0 .. 2.6. For each: d_kmax (longest edge of the root
# triangle), eps_kmax, r_sphere and the root halo volume relative to the
# bounding sphere, for functional (6) alone and with the halo refinement,
# side by side with the paper's values: out/table1/table1.md.

T1_COUNTS  := 80 320 1280
T1_STRETCH := 1.0 1.2 1.4 1.8 2.6
T1_DIR     := $(OUT)/table1
T1_CASES   := $(foreach n,$(T1_COUNTS),$(foreach s,$(T1_STRETCH),$(n)-$(s)))
T1_JSON    := $(foreach c,$(T1_CASES),$(T1_DIR)/$(c)-plain.json $(T1_DIR)/$(c)-refined.json)
T1_TOOLS   := $(BIN)/mrdem-mesh $(BIN)/mrdem-tree $(BIN)/mrdem-info

.PHONY: table1 table1-tools
table1: $(T1_DIR)/table1.md
	@cat $<

table1-tools:
	$(MAKE) -C $(TOP) bin/mrdem-mesh bin/mrdem-tree bin/mrdem-info

$(T1_TOOLS): table1-tools

$(T1_DIR)/%.mrd: | table1-tools
	@mkdir -p $(T1_DIR)
	$(BIN)/mrdem-mesh sphere --triangles $(word 1,$(subst -, ,$*)) --radius 0.5 \
		--stretch $(word 2,$(subst -, ,$*)) -o $@

# -v reports the build time on stderr (kept in a .log beside the result)
$(T1_DIR)/%-refined.json: $(T1_DIR)/%.mrd
	$(BIN)/mrdem-tree -v --verify $< -o $(T1_DIR)/$*-refined.tree.mrd 2>$(T1_DIR)/$*-refined.log
	$(BIN)/mrdem-info --json $(T1_DIR)/$*-refined.tree.mrd >$@

$(T1_DIR)/%-plain.json: $(T1_DIR)/%.mrd
	$(BIN)/mrdem-tree -v --verify --no-refine $< -o $(T1_DIR)/$*-plain.tree.mrd 2>$(T1_DIR)/$*-plain.log
	$(BIN)/mrdem-info --json $(T1_DIR)/$*-plain.tree.mrd >$@

$(T1_DIR)/table1.md: $(T1_JSON) table1.py
	python3 table1.py $(T1_DIR) >$@.tmp && mv $@.tmp $@
.PRECIOUS: $(T1_DIR)/%.mrd
