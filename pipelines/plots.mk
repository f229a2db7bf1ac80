# Every plot: energy and momentum of the examples, paper Figure 4.
.PHONY: plots
plots: energy figure4
all: plots
