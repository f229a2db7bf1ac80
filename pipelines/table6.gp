# gnuplot -c table6.gp PNG CSV TITLE: comparisons per implicit step per
# scene and hierarchy, ours beside the paper's, log scale (table6_plot.py's
# CSV: case, steps, ours, paper; an empty cell draws no bar).
if (strstrt(GPVAL_TERMINALS, "pngcairo")) {
    set terminal pngcairo size 1000,450 font ",10"
} else {
    set terminal png size 1000,450
}
set datafile separator ","
set datafile missing ""
set output ARG1
set title ARG3 noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set yrange [100:*]
set key autotitle columnheader
set grid ytics
set key top right
set xtics rotate by -20 noenhanced
set ylabel "triangle comparisons per step"
plot ARG2 using 3:xtic(1) title "ours" lc rgb "#1f78b4", \
     "" using 4 title "paper (Noble & Weinzierl)" noenhanced lc rgb "#b2df8a"
