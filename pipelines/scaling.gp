# gnuplot -c scaling.gp PNG CSV TITLE: triangle comparisons and detection
# time per step against the triangles per sphere, log-log (scaling.py's CSV).
if (strstrt(GPVAL_TERMINALS, "pngcairo")) {
    set terminal pngcairo size 1000,450 font ",10"
} else {
    set terminal png size 1000,450
}
set datafile separator ","
set output ARG1
set multiplot layout 1,2 title ARG3 noenhanced
set logscale xy
set grid
set key top left
set xlabel "triangles per sphere T"
set ylabel "triangle comparisons per step"
plot ARG2 using 1:2 with linespoints lw 2 pt 7 title "flat (all T^2 pairs)", \
     ARG2 using 1:3 with linespoints lw 2 pt 5 title "surrogate trees"
set ylabel "contact detection, ms per step"
plot ARG2 using 1:5 with linespoints lw 2 pt 7 title "flat", \
     ARG2 using 1:6 with linespoints lw 2 pt 5 title "surrogate trees"
unset multiplot
