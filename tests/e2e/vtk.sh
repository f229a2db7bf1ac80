#!/usr/bin/env bash
# mrdem-vtk: files hold the particle surfaces in world space and the contact
# points of each frame (checked by vtkcheck.py against the scene written by
# randscene.py), ASCII and base64 agree, the .pvd lists everything, errors
# leave no files; ParaView itself loads the files when pvpython is present.
. "$(dirname "$0")/../lib/test-lib.sh"
G=$TOP/tests/golden
E=$TOP/tests/e2e

expect_success "golden scene: two tetrahedra in world space, one contact point" '
	mrdem-vtk -o golden "$G/good-scene.mrd" && ls golden >files.txt &&
	assert_eq "$(tr "\n" " " <files.txt)" "contacts-000000.vtp frame-000000.vtp series.pvd " files &&
	python3 - <<PY
import sys
sys.path.insert(0, "$E")
import vtkcheck
f = vtkcheck.read_vtp("golden/frame-000000.vtp")
assert f["npoints"] == 8 and f["npolys"] == 8, f
# vertex (0,0,0) of the tetrahedron, com (1/4,1/4,1/4), particle at the origin
assert f["arrays"]["Points/Points"][1][:3] == [-0.25, -0.25, -0.25], f["arrays"]["Points/Points"][1][:3]
# particle 1 at (2.5,0,0): its vertex (1,0,0)
assert f["arrays"]["Points/Points"][1][15:18] == [3.25, -0.25, -0.25]
assert f["arrays"]["CellData/particle_id"][1] == [0] * 4 + [1] * 4
assert f["arrays"]["CellData/velocity"][1] == [0.5, 0, 0] * 8
c = vtkcheck.read_vtp("golden/contacts-000000.vtp")
assert c["npoints"] == 1 and c["arrays"]["PointData/depth"][1] == [0.008]
assert c["arrays"]["Points/Points"][1] == [1.2, 0, 0]
PY'

expect_success "random scene, 3 frames with contacts: ASCII output matches the scene" '
	python3 "$E/randscene.py" s.mrd s.json --seed 11 --n 40 --frames 3 --contacts &&
	mrdem-vtk -o ascii s.mrd && python3 "$E/vtkcheck.py" ascii s.json'

expect_success "base64 output matches the scene and the ASCII output, read from a pipe" '
	python3 "$E/randscene.py" s.mrd s.json --seed 11 --n 40 --frames 3 --contacts &&
	mrdem-vtk -o ascii s.mrd && cat s.mrd | mrdem-vtk --binary -o bin/nested &&
	python3 "$E/vtkcheck.py" bin/nested s.json && python3 "$E/vtkcheck.py" --same ascii bin/nested'

expect_success "frames without contacts records get no contacts file" '
	python3 "$E/randscene.py" s.mrd s.json --seed 12 --n 10 --frames 2 &&
	mrdem-vtk -o nocontacts s.mrd && python3 "$E/vtkcheck.py" nocontacts s.json &&
	[ ! -e nocontacts/contacts-000000.vtp ]'

expect_success "truncated stream (a run still being written): the complete frame, exit 1" '
	assert_exit 1 mrdem-vtk -o trunc "$G/bad-truncated-record.mrd" && assert_grep "truncated" err &&
	assert_eq "$(ls trunc | tr "\n" " ")" "frame-000000.vtp series.pvd " "files in the output directory"'
expect_success "NaN state: exit 1, names the record, leaves nothing" '
	assert_exit 1 mrdem-vtk -o nan "$G/bad-nan.mrd" &&
	assert_grep "record 1" err && [ ! -e nan ]'
expect_success "failure: every directory of a new -o path is removed again" '
	assert_exit 1 mrdem-vtk -o new/deep/vtk "$G/good-mesh.mrd" &&
	assert_grep "no frame record" err && [ ! -e new ]'
expect_success "failure into an existing directory: only what this run made is removed" '
	mkdir -p old/vtk && echo keep >old/vtk/notes.txt &&
	assert_exit 1 mrdem-vtk -o old/vtk/run "$G/bad-nan.mrd" &&
	[ ! -e old/vtk/run ] && assert_eq "$(ls -A old/vtk)" notes.txt "left in old/vtk"'
expect_success "output directory that is a file: exit 1, the file untouched" '
	echo data >f && assert_exit 1 mrdem-vtk -o f "$G/good-scene.mrd" &&
	assert_grep "not a directory" err && assert_eq "$(cat f)" data'
expect_success "--help prints usage" 'mrdem-vtk --help | grep -q "usage: mrdem-vtk"'
expect_failure "unknown option" 'mrdem-vtk --frobnicate "$G/good-scene.mrd"'

PV=$(command -v pvpython || true)
if [ -n "$PV" ]; then
	expect_success "ParaView (pvpython) reads every file, ASCII and base64, and the series" '
		python3 "$E/randscene.py" s.mrd s.json --seed 13 --n 20 --frames 2 --contacts &&
		mrdem-vtk -o a s.mrd && mrdem-vtk --binary -o b s.mrd &&
		"$PV" "$E/pvcheck.py" a 2 2 && "$PV" "$E/pvcheck.py" b 2 2'
else
	echo "ok $((_n += 1)) # SKIP pvpython not installed (Debian: python3-paraview)"
fi

done_testing
