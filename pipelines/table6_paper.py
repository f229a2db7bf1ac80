"""The paper's figures of Table 6, for table6.py and table6_plot.py."""

# Noble & Weinzierl, Table 6 (text): per hierarchy (comparison-based
# comparisons, s; hybrid: comparison-based fallbacks, iterative, s).
PAPER = {
    "particle-particle": {"flat": (6.89e8, 1.69e2, 8.78e5, 7.34e8, 7.44e1),
                          "surrogate": (3.97e6, 1.08, 7.14e4, 3.70e6, 7.20e-1),
                          "multiscale": (1.82e6, 7.70e-1, 2.25e4, 1.70e6, 4.70e-1)},
    "particle-on-plane": {"flat": (4.43e8, 9.61e1, 1.11e7, 4.43e8, 4.41e1),
                          "surrogate": (3.59e6, 4.80e-1, 3.44e5, 3.42e6, 2.20e-1),
                          "multiscale": (3.50e6, 4.90e-1, 3.11e5, 3.35e6, 1.90e-1)},
}
# Paper Table 4: explicit surrogate step, hybrid kernel, s.
PAPER_EXPLICIT = {"particle-particle": 1.80e-2, "particle-on-plane": 4.00e-2}
