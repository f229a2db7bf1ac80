# gnuplot -c energy.gp PNG CSV TITLE: energies, linear and angular momentum
# over time (columns of energy.py), three panels.
if (strstrt(GPVAL_TERMINALS, "pngcairo")) {
    set terminal pngcairo size 900,1000 font ",10"
} else {
    set terminal png size 900,1000
}
set output ARG1
set datafile separator ","
set key outside right
set grid
set lmargin 16
set rmargin 24
set multiplot layout 3,1 title ARG3
set ylabel "energy / J"
plot for [c in "kinetic gravity contact total"] ARG2 using "time":c title c noenhanced with lines lw 2
set ylabel "momentum / kg m s^{-1}"
plot for [c in "momentum_x momentum_y momentum_z"] ARG2 using "time":c title c noenhanced with lines lw 2
set ylabel "angular momentum / kg m^2 s^{-1}"
set xlabel "time / s"
plot for [c in "angular_momentum_x angular_momentum_y angular_momentum_z"] ARG2 using "time":c title c noenhanced with lines lw 2
unset multiplot
