# Every table and figure of the paper that mrdem reproduces, one after the
# other: Tables 1 and 4-9, Figure 4 for explicit and implicit Euler (Table 9
# on the full lattice takes a while; T9_COUNT cuts it).

.PHONY: paper
paper: table1 table4 table5 table6 table7 table8 table9 figure4 figure4-implicit
