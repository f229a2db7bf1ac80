# Every plot: energy and momentum of the examples, paper Figure 4 (explicit
# and implicit Euler).
.PHONY: plots
plots: energy figure4 figure4-implicit
all: plots
