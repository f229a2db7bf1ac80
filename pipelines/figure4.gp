# gnuplot -c figure4.gp PNG CSV TITLE: triangle comparisons per step,
# stacked by surrogate level (columns 3 .. N-1 of figure4.py's CSV; N: total).
if (strstrt(GPVAL_TERMINALS, "pngcairo")) {
    set terminal pngcairo size 900,500 font ",10"
} else {
    set terminal png size 900,500
}
set datafile separator ","
stats ARG2 using 1 nooutput
N = STATS_columns
set output ARG1
set title ARG3 noenhanced
set key outside right reverse Left
set grid front
set xlabel "time step"
set ylabel "triangle comparisons"
set yrange [0:*]
C = "#a6cee3 #1f78b4 #b2df8a #33a02c #fb9a99 #e31a1c #fdbf6f #ff7f00 #cab2d6 #6a3d9a #ffff99 #b15928"
# Cumulative sums from the leaves down, so each level is a band.
plot for [i=N-1:3:-1] ARG2 using 1:(sum [k=3:i] column(k)) \
    with filledcurves x1 lc rgb word(C, (i - 3) % 12 + 1) title columnhead(i) noenhanced
