#!/bin/sh
# The default example (make example): a sphere dropped on a tilted plane
# (paper Sec. 6.1), simulated with the surrogate-tree contact search, then
# converted for ParaView.
set -eu
cd "$(dirname "$0")/.."
mkdir -p out
bin/mrdem-run examples/sphere-on-plane.yaml -o out/sphere-on-plane.mrd
bin/mrdem-vtk -o out/sphere-on-plane-vtk out/sphere-on-plane.mrd
bin/mrdem-stats out/sphere-on-plane.mrd >out/sphere-on-plane.csv
echo
echo "frames:     out/sphere-on-plane.mrd (mrdem-info out/sphere-on-plane.mrd)"
echo "statistics: out/sphere-on-plane.csv (per written step: energies, momenta, comparisons)"
echo "ParaView:   open out/sphere-on-plane-vtk/series.pvd"
