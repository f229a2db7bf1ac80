# Every table and figure of the paper that mrdem reproduces, one after the
# other: Tables 1 and 4-8, Figure 4 for explicit and implicit Euler.

.PHONY: paper
paper: table1 table4 table5 table6 table7 table8 figure4 figure4-implicit
