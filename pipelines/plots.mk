# Every plot: energy and momentum of the examples, paper Figure 4 (explicit
# and implicit Euler), Table 6's comparisons, the scaling with the mesh
# resolution.
.PHONY: plots
plots: energy figure4 figure4-implicit scaling table6-plot
all: plots
