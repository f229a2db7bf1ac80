#!/usr/bin/env bash
# mrdem-vtk: instances (shape files once, one point per particle) and
# --surfaces (every particle's surface in world space) hold the scene written
# by randscene.py, checked by vtkcheck.py, which decodes the zlib-compressed
# appended data itself; instances moved by their quaternions give the
# surfaces' vertices; ASCII, base64 and zlib agree; the .pvd files list
# everything; errors leave no files; ParaView itself loads the files when
# pvpython is present.
. "$(dirname "$0")/../lib/test-lib.sh"
G=$TOP/tests/golden
E=$TOP/tests/e2e

expect_success "golden scene, --surfaces: two tetrahedra in world space, one contact point" '
	mrdem-vtk --surfaces --ascii -o golden "$G/good-scene.mrd" && ls golden >files.txt &&
	assert_eq "$(tr "\n" " " <files.txt)" "contacts-000000.vtp frame-000000.vtp planes.vtp series.pvd " files &&
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

expect_success "golden scene, instances (default): one shape file, two points, compressed" '
	mrdem-vtk -o golden "$G/good-scene.mrd" && ls golden >files.txt &&
	assert_eq "$(tr "\n" " " <files.txt)" "contacts-000000.vtp frame-000000.vtp particles.pvd planes.vtp series.pvd shape-000.vtp " files &&
	python3 - <<PY
import sys
sys.path.insert(0, "$E")
import vtkcheck
f = vtkcheck.read_vtp("golden/frame-000000.vtp")
assert f["format"] == {"appended"}, f["format"]
assert f["npoints"] == 2 and f["nverts"] == 2, f
assert f["arrays"]["Points/Points"][1] == [0, 0, 0, 2.5, 0, 0], f["arrays"]["Points/Points"][1]
assert f["arrays"]["PointData/particle_id"][1] == [0, 1]
assert f["arrays"]["PointData/orientation"][1] == [1, 0, 0, 0] * 2
assert f["arrays"]["PointData/contacts"][1] == [1, 1]
s = vtkcheck.read_vtp("golden/shape-000.vtp")
assert s["arrays"]["Points/Points"][1][:3] == [-0.25, -0.25, -0.25]
PY'

expect_success "random scene, 3 frames with contacts: instances match the scene in every encoding" '
	python3 "$E/randscene.py" s.mrd s.json --seed 11 --n 40 --frames 3 --contacts &&
	mrdem-vtk -o zlib s.mrd && python3 "$E/vtkcheck.py" zlib s.json &&
	mrdem-vtk --double -o double s.mrd && python3 "$E/vtkcheck.py" double s.json &&
	mrdem-vtk --ascii -o ascii s.mrd && python3 "$E/vtkcheck.py" ascii s.json &&
	mrdem-vtk --binary -o b64 s.mrd && python3 "$E/vtkcheck.py" b64 s.json &&
	python3 "$E/vtkcheck.py" --same zlib ascii && python3 "$E/vtkcheck.py" --same zlib b64'

expect_success "random scene: --surfaces matches the scene in every encoding, read from a pipe" '
	python3 "$E/randscene.py" s.mrd s.json --seed 11 --n 40 --frames 3 --contacts &&
	mrdem-vtk --surfaces --ascii -o sascii s.mrd && cat s.mrd | mrdem-vtk -s --binary -o sbin/nested &&
	mrdem-vtk -s -o szlib s.mrd && python3 "$E/vtkcheck.py" szlib s.json &&
	python3 "$E/vtkcheck.py" sascii s.json && python3 "$E/vtkcheck.py" sbin/nested s.json &&
	python3 "$E/vtkcheck.py" --same sascii sbin/nested && python3 "$E/vtkcheck.py" --same sascii szlib'

expect_success "instances moved by their quaternions and positions give the --surfaces vertices" '
	python3 "$E/randscene.py" s.mrd s.json --seed 14 --n 30 --frames 2 &&
	mrdem-vtk -o inst s.mrd && mrdem-vtk --double -o instd s.mrd && mrdem-vtk -s -o surf s.mrd &&
	python3 "$E/vtkcheck.py" --transform inst surf >out && assert_grep "transformed vertices agree" out &&
	python3 "$E/vtkcheck.py" --transform instd surf'

expect_success "a run stream: instances hold the values mrdem-info --json --full reads" '
	mrdem-run "$TOP/examples/two-spheres.yaml" --steps 800 --every 400 -q -o run.mrd &&
	mrdem-info --json --full run.mrd >info.json && mrdem-vtk --double -o run run.mrd &&
	python3 "$E/vtkcheck.py" --info run info.json'

expect_success "--double with --surfaces, or --ascii with --binary: usage errors" '
	assert_exit 2 mrdem-vtk -s -d -o x "$G/good-scene.mrd" && assert_exit 2 mrdem-vtk -a -b -o x "$G/good-scene.mrd" &&
	[ ! -e x ]'

expect_success "frames without contacts records get no contacts file" '
	python3 "$E/randscene.py" s.mrd s.json --seed 12 --n 10 --frames 2 &&
	mrdem-vtk -o nocontacts s.mrd && python3 "$E/vtkcheck.py" nocontacts s.json &&
	[ ! -e nocontacts/contacts-000000.vtp ] && mrdem-vtk -s -o nocs s.mrd &&
	python3 "$E/vtkcheck.py" nocs s.json && [ ! -e nocs/contacts-000000.vtp ]'

# Two balls meeting obliquely with spin and a third rolling on an analytic
# plane: the paper's spring (a law per contact record) with friction, every
# step written.
cat >forces.yaml <<'YAML'
shapes:
  ball: {sphere: {triangles: 80, radius: 0.5}}
particles:
  - {shape: ball, position: [-0.506, 0, 0.6], velocity: [1, 0.2, 0], angular_velocity: [0, 0, 3]}
  - {shape: ball, position: [0.506, 0.05, 0.6], velocity: [-1, 0, 0], angular_velocity: [2, 0, 0]}
  - {shape: ball, position: [3, 0, 0.505], velocity: [0.5, 0, 0], angular_velocity: [0, 1, 0], density: 2}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: paper, stiffness: 25, friction: 0.4, plane_epsilon: 0.01}
time: {dt: 1.0e-4, steps: 60, scheme: symplectic-euler}
output: {every: 1}
YAML
expect_success "forces: each contact's force is the contact law's, each particle's the sum the step applied" '
	mrdem-run forces.yaml -o forces.mrd 2>/dev/null && mrdem-vtk --double -o fv forces.mrd &&
	n=$(PYTHONPATH=$TOP/python python3 "$E/vtkforces.py" forces.mrd fv) &&
	assert_eq "$n" 167 "contacts checked"'
expect_success "contacts that do not fit their frame: no forces, exit 1, names the record, leaves nothing" '
	python3 "$E/randscene.py" s.mrd s.json --seed 11 --n 10 --frames 1 --contacts --bad-depth &&
	assert_exit 1 mrdem-vtk -o bad s.mrd && assert_grep "depth" err &&
	assert_grep "record 5: no forces" err && [ ! -e bad ]'

expect_success "truncated stream (a run still being written): the complete frame, exit 1" '
	assert_exit 1 mrdem-vtk -o trunc "$G/bad-truncated-record.mrd" && assert_grep "truncated" err &&
	assert_eq "$(ls trunc | tr "\n" " ")" "frame-000000.vtp particles.pvd planes.vtp series.pvd shape-000.vtp " \
		"files in the output directory" &&
	assert_exit 1 mrdem-vtk -s -o strunc "$G/bad-truncated-record.mrd" &&
	assert_eq "$(ls strunc | tr "\n" " ")" "frame-000000.vtp planes.vtp series.pvd " "files with --surfaces"'
expect_success "NaN state: exit 1, names the record, leaves nothing" '
	assert_exit 1 mrdem-vtk -o nan "$G/bad-nan.mrd" &&
	assert_grep "record 1" err && [ ! -e nan ]'
expect_success "a zero orientation quaternion: exit 1, said so (it is finite), leaves nothing" '
	python3 "$TOP/tests/lib/mrdem_stream.py" --set "$G/good-scene.mrd" zq.mrd orientation 0 0,0,0,0 &&
	assert_exit 1 mrdem-vtk -o zq zq.mrd &&
	assert_grep "zq.mrd: record [0-9]* (frame) at byte [0-9]*: particle 0 (id [0-9]*): orientation \[0, 0, 0, 0\] is the zero quaternion" err &&
	[ ! -e zq ]'
expect_success "failure: every directory of a new -o path is removed again" '
	assert_exit 1 mrdem-vtk -o new/deep/vtk "$G/good-mesh.mrd" &&
	assert_grep "no frame record" err && [ ! -e new ]'
expect_success "failure into an existing directory: only what this run made is removed" '
	mkdir -p old/vtk && echo keep >old/vtk/notes.txt &&
	assert_exit 1 mrdem-vtk -o old/vtk/run "$G/bad-nan.mrd" &&
	[ ! -e old/vtk/run ] && assert_eq "$(ls -A old/vtk)" notes.txt "left in old/vtk"'
expect_success "failure into the directory of an earlier series: its files are left as they were" '
	mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 40 --every 10 -o run.mrd &&
	python3 -c "
import sys; sys.path.insert(0, \"$TOP/tests/lib\"); import mrdem_stream as M
n = [0]
def edit(t, p):
    n[0] += t == 4
    return M.set_particle(p, \"position\", 0, [float(\"nan\"), 0, 0]) if t == 4 and n[0] == 3 else p
M.rewrite(\"run.mrd\", \"bad3.mrd\", edit)" &&
	mrdem-vtk -o prev run.mrd && (cd prev && md5sum * >../prev.md5) &&
	assert_exit 1 mrdem-vtk -o prev bad3.mrd && assert_grep "bad3.mrd: record [0-9]* (frame)" err &&
	(cd prev && md5sum -c --quiet ../prev.md5) && assert_eq "$(ls -A prev | wc -l)" 13 "files in prev"'
# A shorter series written over a longer one: DIR then holds exactly what a
# conversion into an empty directory holds (no frame, contacts or shape
# file of the earlier series left for ParaView's file-series grouping to
# pick up), and names this tool does not write are left alone.
expect_success "a shorter series over a longer one: the earlier series' extra files go, nothing else" '
	python3 "$E/randscene.py" long.mrd long.json --seed 5 --n 12 --frames 5 --contacts &&
	python3 "$E/randscene.py" short.mrd short.json --seed 6 --n 12 --frames 2 &&
	mrdem-vtk -o over long.mrd && mrdem-vtk -o fresh short.mrd &&
	[ -e over/frame-000004.vtp ] && [ -e over/contacts-000000.vtp ] &&
	decoys="frame-4.vtp frame-000004.vtp~ frame-000004.vtk xframe-000004.vtp .frame-000004.vtp frame--00004.vtp contacts-00004.vtp shape-7.vtp notes.txt" &&
	for d in $decoys; do echo keep >"over/$d"; done &&
	mrdem-vtk -o over short.mrd &&
	for d in $decoys; do assert_eq "$(cat "over/$d")" keep "$d" && rm "over/$d" || exit 1; done &&
	assert_eq "$(ls -A over | tr "\n" " ")" "$(ls -A fresh | tr "\n" " ")" "files" &&
	(cd fresh && md5sum * >../fresh.md5) && (cd over && md5sum -c --quiet ../fresh.md5) &&
	mrdem-vtk --surfaces -o over short.mrd && mrdem-vtk --surfaces -o sfresh short.mrd &&
	assert_eq "$(ls -A over | tr "\n" " ")" "$(ls -A sfresh | tr "\n" " ")" "files after --surfaces"'
expect_success "a failed shorter series leaves the longer one whole, its extra frames too" '
	python3 "$E/randscene.py" long.mrd long.json --seed 5 --n 12 --frames 5 --contacts &&
	mrdem-vtk -o whole long.mrd && (cd whole && md5sum * >../whole.md5) &&
	assert_exit 1 mrdem-vtk -o whole "$G/bad-nan.mrd" &&
	(cd whole && md5sum -c --quiet ../whole.md5) && assert_eq "$(ls -A whole | wc -l)" "$(wc -l <whole.md5)" "files"'
expect_success "planes: three tilted planes, each clipped to the others, over every particle" '
	python3 "$E/randscene.py" p3.mrd p3.json --seed 21 --n 30 --frames 3 --planes 3 &&
	mrdem-vtk -o p3 p3.mrd && python3 "$E/vtkcheck.py" p3 p3.json &&
	mrdem-vtk --ascii -o p3a p3.mrd && python3 "$E/vtkcheck.py" p3a p3.json &&
	mrdem-vtk --surfaces -o p3s p3.mrd && python3 "$E/vtkcheck.py" p3s p3.json &&
	python3 "$E/vtkcheck.py" --same p3 p3a'
# A box of five analytic planes around nine balls (bounding radius 0.01,
# halo 0.0002): the floor ends at the walls, the walls at the floor, and
# they reach the top of the highest ball, 0.03 + 0.0102.
expect_success "planes: a box of planes closes: floor to the walls, walls down to the floor" '
	cat >box.yaml <<YAML &&
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
particles:
  - lattice: {shape: ball, origin: [-0.025, -0.025, 0.03], count: [3, 3, 1], spacing: 0.025, density: 2500, epsilon_abs: 0.0002}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
  - {point: [-0.045, 0, 0], normal: [1, 0, 0]}
  - {point: [0.045, 0, 0], normal: [-1, 0, 0]}
  - {point: [0, -0.045, 0], normal: [0, 1, 0]}
  - {point: [0, 0.045, 0], normal: [0, -1, 0]}
contact: {model: spring-dashpot, stiffness: 2000, damping: 50, plane_epsilon: 0.0002}
YAML
	mrdem-init box.yaml -o box.mrd && mrdem-vtk -o box box.mrd &&
	python3 - <<PY
import sys
sys.path.insert(0, "$E")
import vtkcheck
v = vtkcheck.read_vtp("box/planes.vtp")
assert v["npolys"] == 5 and v["npoints"] == 20, (v["npolys"], v["npoints"])
assert v["arrays"]["CellData/plane"][1] == [0, 1, 2, 3, 4]
p = v["arrays"]["Points/Points"][1]
corners = [[round(x, 12) for x in p[3 * i:3 * i + 3]] for i in range(20)]
floor = corners[:4]
assert sorted(floor) == [[-0.045, -0.045, 0], [-0.045, 0.045, 0], [0.045, -0.045, 0], [0.045, 0.045, 0]], floor
for w in range(1, 5):
    zs = sorted(c[2] for c in corners[4 * w:4 * w + 4])
    assert zs[:2] == [0, 0] and abs(zs[3] - 0.0402) < 1e-12, (w, zs)
    span = sorted(c[1 if w < 3 else 0] for c in corners[4 * w:4 * w + 4])
    assert span == [-0.045, -0.045, 0.045, 0.045], (w, span)
PY'
expect_success "planes: a series without planes over one with them removes planes.vtp" '
	python3 "$E/randscene.py" pl.mrd pl.json --seed 5 --n 12 --frames 2 --planes 2 &&
	python3 "$E/randscene.py" np.mrd np.json --seed 6 --n 12 --frames 2 --planes 0 &&
	mrdem-vtk -o ov pl.mrd && [ -e ov/planes.vtp ] && grep -q "part=\"2\" file=\"planes.vtp\"" ov/series.pvd &&
	mrdem-vtk -o ov np.mrd && ! [ -e ov/planes.vtp ] && ! grep -q planes ov/series.pvd &&
	python3 "$E/vtkcheck.py" ov np.json'
expect_success "output directory that is a file: exit 1, the file untouched" '
	echo data >f && assert_exit 1 mrdem-vtk -o f "$G/good-scene.mrd" &&
	assert_grep "not a directory" err && assert_eq "$(cat f)" data'
expect_success "--help prints usage" 'mrdem-vtk --help | grep -q "usage: mrdem-vtk"'
expect_failure "unknown option" 'mrdem-vtk --frobnicate "$G/good-scene.mrd"'

PV=$(command -v pvpython || true)
if [ -n "$PV" ]; then
	expect_success "ParaView (pvpython) reads every file, zlib, ASCII and base64, and the series" '
		python3 "$E/randscene.py" s.mrd s.json --seed 13 --n 20 --frames 2 --contacts &&
		mrdem-vtk -s -a -o a s.mrd && mrdem-vtk -s --binary -o b s.mrd && mrdem-vtk -s -o c s.mrd &&
		mrdem-vtk -o d s.mrd && mrdem-vtk -a -o e s.mrd &&
		for x in a b c d e; do "$PV" "$E/pvcheck.py" $x 2 2 || exit 1; done'
	expect_success "ParaView (pvpython): instance count, one transformed vertex, the glyph script" '
		python3 "$E/randscene.py" s.mrd s.json --seed 15 --n 20 --frames 1 &&
		mrdem-vtk -o pi s.mrd && mrdem-vtk -s -o ps s.mrd &&
		"$PV" "$E/pvinstances.py" pi ps 21 "$TOP/docs/paraview/mrdem_glyphs.py"'
	# Drawing needs a display; Debian's ParaView aborts now and then creating
	# its GLX window under Xvfb (before drawing anything), so up to 3 starts.
	if command -v xvfb-run >/dev/null 2>&1; then
		expect_success "ParaView (pvpython) draws the glyphs as the surfaces, pixel for pixel" '
			for try in 1 2 3; do
				xvfb-run -a -s "-screen 0 640x480x24" "$PV" "$E/pvglyphs.py" pi ps \
					"$TOP/docs/paraview/mrdem_glyphs.py" >pg.log 2>&1
				rc=$?
				{ [ $rc = 0 ] || grep -q "^pvglyphs: " pg.log; } && break
			done
			grep "^pvglyphs: " pg.log; [ $rc = 0 ]'
	else
		echo "ok $((_n += 1)) # SKIP xvfb-run not installed: ParaView drawing the glyphs"
	fi
else
	echo "ok $((_n += 1)) # SKIP pvpython not installed (Debian: python3-paraview)"
	echo "ok $((_n += 1)) # SKIP pvpython not installed: instances in ParaView"
	echo "ok $((_n += 1)) # SKIP pvpython not installed: ParaView drawing the glyphs"
fi

done_testing
