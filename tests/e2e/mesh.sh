#!/usr/bin/env bash
# mrdem-mesh through real files and pipes: generated shapes checked via
# mrdem-info --json against analytic values and an independent volume sum,
# OBJ/STL round trips, validation and bad input.
. "$(dirname "$0")/../lib/test-lib.sh"

# check FILE... -- EXPR...: every Python EXPR must hold for the mesh records
# of the streams (first mesh record each, read by mrdem-info --json --full).
# M[i] is file i's record, m = M[0], n = M[1]; each record also has P
# (points), T (triangles), vol (independent signed-tetrahedra volume) and
# radii (vertex distances from the origin). near(a, b, tol) prints both
# values when it fails.
check() {
	local files=()
	while [ "$1" != -- ]; do files+=("$1.json"); mrdem-info --json --full "$1" >"$1.json" || return 1; shift; done
	shift
	python3 - "${#files[@]}" "${files[@]}" "$@" <<'PY'
import json, math, sys
nf = int(sys.argv[1]); files = sys.argv[2:2 + nf]; exprs = sys.argv[2 + nf:]
def det(a, b, c):
    return (a[0]*(b[1]*c[2]-b[2]*c[1]) - a[1]*(b[0]*c[2]-b[2]*c[0]) + a[2]*(b[0]*c[1]-b[1]*c[0]))
M = []
for f in files:
    d = json.load(open(f))
    r = [x for x in d["records"] if x["type"] == "mesh"][0]
    v = r["vertex_coords"]; t = r["triangle_vertices"]
    r["P"] = [v[3*i:3*i+3] for i in range(len(v)//3)]
    r["T"] = [t[3*i:3*i+3] for i in range(len(t)//3)]
    r["vol"] = sum(det(r["P"][a], r["P"][b], r["P"][c]) for a, b, c in r["T"]) / 6
    r["radii"] = [math.sqrt(sum(x*x for x in p)) for p in r["P"]]
    r["count"] = d["counts"]["mesh"]
    M.append(r)
m = M[0]; n = M[1] if len(M) > 1 else None
def near(a, b, tol):
    if abs(a - b) <= tol: return True
    print("got %.17g, want %.17g +- %g" % (a, b, tol)); return False
for e in exprs:
    if not eval(e):
        print("check failed: " + e); sys.exit(1)
PY
}

# ---- generators

expect_success "sphere 1280 through a pipe: counts, closed, volume = tetrahedron sum" '
	mrdem-mesh sphere --triangles 1280 | cat >s.mrd &&
	check s.mrd -- "m[\"triangles\"] == 1280 and m[\"vertices\"] == 642" "m[\"closed\"]" \
		"m[\"name\"] == \"sphere\"" "near(m[\"volume\"], m[\"vol\"], 1e-12)" \
		"near(m[\"volume\"], 4/3*math.pi, 0.04)" "m[\"volume\"] < 4/3*math.pi"'

counts="12 20 36 80 140 320 1224 5120"
expect_success "sphere --triangles N makes exactly N triangles, N/2+2 vertices at radius 2 ($counts)" '
	for c in $counts; do mrdem-mesh sphere --triangles $c --radius 2 -o s$c.mrd || exit 1; done &&
	check $(printf "s%s.mrd " $counts) -- \
		"[x[\"triangles\"] for x in M] == [$(echo $counts | tr " " ,)]" \
		"all(x[\"vertices\"] == x[\"triangles\"] // 2 + 2 and x[\"closed\"] for x in M)" \
		"all(near(r, 2, 1e-14) for x in M for r in x[\"radii\"])"'

expect_success "sphere --triangles 26 is refused with the nearest counts, no output" '
	assert_exit 2 mrdem-mesh sphere --triangles 26 -o s26.mrd &&
	assert_grep "nearest: 24 or 28" err && assert_grep "1224" err && [ -z "$(ls s26.mrd* 2>/dev/null)" ]'

expect_success "noise: radii span [r, eta r], deterministic per seed" '
	mrdem-mesh sphere --triangles 1280 --radius 2 --noise 1.5 --seed 3 -o a.mrd &&
	mrdem-mesh sphere --triangles 1280 --radius 2 --noise 1.5 --seed 3 -o b.mrd &&
	mrdem-mesh sphere --triangles 1280 --radius 2 --noise 1.5 --seed 4 -o c.mrd &&
	check a.mrd -- "near(min(m[\"radii\"]), 2, 1e-12)" "near(max(m[\"radii\"]), 3, 1e-12)" \
		"near(m[\"volume\"], m[\"vol\"], 1e-11)" &&
	same_stream a.mrd b.mrd && ! same_stream a.mrd c.mrd >/dev/null'

expect_success "stretch scales one axis after the noise" '
	mrdem-mesh sphere --noise 1.3 --seed 2 -o a.mrd &&
	mrdem-mesh sphere --noise 1.3 --seed 2 --stretch 2 --axis z -o b.mrd &&
	check a.mrd b.mrd -- "all(q == [p[0], p[1], 2 * p[2]] for p, q in zip(m[\"P\"], n[\"P\"]))" \
		"near(n[\"volume\"], 2 * m[\"volume\"], 1e-12)"'

expect_success "box: volume, inertia, triangle count" '
	mrdem-mesh box --size 1 2 3 --divisions 3 --name crate -o b.mrd && mrdem-mesh box --size 2 -o c.mrd &&
	check b.mrd c.mrd -- "m[\"triangles\"] == 108 and m[\"name\"] == \"crate\" and m[\"closed\"]" \
		"near(m[\"volume\"], 6, 1e-13)" "near(m[\"inertia\"][0], 6.5, 1e-12)" \
		"near(m[\"inertia\"][1], 5, 1e-12)" "near(m[\"inertia\"][2], 2.5, 1e-12)" \
		"max(map(abs, m[\"inertia\"][3:])) < 1e-13" "m[\"bbox\"] == [[-0.5, -1, -1.5], [0.5, 1, 1.5]]" \
		"near(n[\"volume\"], 8, 1e-13)"'

expect_success "cylinder: regular prism volume" '
	mrdem-mesh cylinder --radius 0.5 --height 3 --segments 16 -o c.mrd &&
	check c.mrd -- "m[\"triangles\"] == 64" "near(m[\"volume\"], 8 * 0.25 * math.sin(math.pi / 8) * 3, 1e-13)"'

expect_success "revolve: a closed drum has the volume of its prism, a hopper is open" '
	mrdem-mesh revolve --profile 0 0 0.5 0 0.5 3 0 3 --segments 16 -o d.mrd &&
	check d.mrd -- "m[\"triangles\"] == 64 and m[\"closed\"]" \
		"near(m[\"volume\"], 8 * 0.25 * math.sin(math.pi / 8) * 3, 1e-13)" &&
	mrdem-mesh revolve --open --profile 0.02 0 0.1 0.08 0.1 0.3 --segments 12 --divisions 2 -o hop.mrd &&
	check hop.mrd -- "m[\"triangles\"] == 4 * 12 * 2 and not m[\"closed\"]" \
		"m[\"bbox\"] == [[-0.1, -0.1, 0], [0.1, 0.1, 0.3]]"'
expect_success "revolve: an open profile needs --open, a bad profile is named" '
	assert_exit 2 mrdem-mesh revolve --profile 0.02 0 0.1 0 -o x.mrd && assert_grep "pass --open" err &&
	assert_exit 2 mrdem-mesh revolve --open --profile 0.02 0 0.1 0 0.2 -o x.mrd && assert_grep "odd count" err &&
	assert_exit 2 mrdem-mesh revolve --open -o x.mrd && assert_grep "profile" err &&
	assert_exit 2 mrdem-mesh revolve --open --profile 1 0 0 1 1 2 -o x.mrd &&
	assert_grep "point 1 lies on the axis" err && [ ! -e x.mrd ]'

expect_failure "plane without --open is refused" 'mrdem-mesh plane -o p.mrd'
expect_success "plane --open: open, tilted, tessellated" '
	mrdem-mesh plane --open --size 4 2 --divisions 4 2 --tilt 30 -o p.mrd &&
	check p.mrd -- "m[\"triangles\"] == 16 and not m[\"closed\"] and \"volume\" not in m" \
		"near(m[\"bbox\"][1][2], 0.5, 1e-15)" "near(m[\"bbox\"][1][1], math.cos(math.pi / 6), 1e-15)"'

# ---- welding (--weld): a cube of side 2 as a triangle soup, each triangle
# with its own three vertices, so no edge is shared and the mesh looks open.
# soup.obj repeats corners exactly (the OBJ reader welds nothing); near.stl
# moves them by up to 4e-11 (the STL reader welds exact duplicates only).
python3 - <<'PY'
V = [(0,0,0),(2,0,0),(2,2,0),(0,2,0),(0,0,2),(2,0,2),(2,2,2),(0,2,2)]
F = [(0,2,1),(0,3,2),(4,5,6),(4,6,7),(0,1,5),(0,5,4),(2,3,7),(2,7,6),(1,2,6),(1,6,5),(0,4,7),(0,7,3)]
with open("soup.obj", "w") as f:
    for t in F:
        for i in t: f.write("v %r %r %r\n" % V[i])
    for k in range(len(F)): f.write("f %d %d %d\n" % (3*k+1, 3*k+2, 3*k+3))
with open("near.stl", "w") as f:
    f.write("solid near\n")
    n = 0
    for t in F:
        f.write("facet normal 0 0 0\nouter loop\n")
        for i in t:
            n += 1
            f.write("vertex %.17g %.17g %.17g\n" % (V[i][0] + 1e-12 * n, V[i][1], V[i][2]))
        f.write("endloop\nendfacet\n")
    f.write("endsolid near\n")
PY
for f in soup.obj near.stl; do
	expect_success "$f (triangle soup): refused as open, the message suggests --weld 1e-09" '
		assert_exit 1 mrdem-mesh import '$f' -o refused.mrd && assert_grep "the mesh is open: 36 edges" err &&
		assert_grep "closes it (mrdem-mesh import --weld 1e-09)" err && [ ! -e refused.mrd ]'
	expect_success "$f --weld 1e-9: closed, 8 vertices, 12 triangles, volume 8" '
		mrdem-mesh import '$f' --weld 1e-9 -o w.mrd &&
		check w.mrd -- "(m[\"vertices\"], m[\"triangles\"]) == (8, 12) and m[\"closed\"]" \
			"near(m[\"volume\"], 8, 1e-9)" "near(m[\"vol\"], 8, 1e-9)"'
done
expect_success "--weld also applies to mesh streams: an --open soup welds closed" '
	mrdem-mesh import soup.obj --open -o open.mrd &&
	mrdem-mesh import open.mrd --weld 1e-6 -o w.mrd && check w.mrd -- "m[\"closed\"] and m[\"vertices\"] == 8"'
expect_success "a tolerance below the offsets welds too little: still open, with the hint" '
	assert_exit 1 mrdem-mesh import near.stl --weld 1e-13 -o w.mrd && assert_grep "the mesh is open" err &&
	assert_grep "weld 1e-09" err'
expect_success "a tolerance above the edge length collapses the cube: refused" '
	assert_exit 1 mrdem-mesh import soup.obj --weld 3 -o refused.mrd && [ ! -e refused.mrd ]'
expect_success "a closed mesh is unchanged by a small --weld" '
	mrdem-mesh box --size 1 2 3 --divisions 2 -o b.mrd && mrdem-mesh export --format obj b.mrd -o b.obj &&
	mrdem-mesh import b.obj -o b2.mrd && mrdem-mesh import b.obj --weld 1e-6 -o w.mrd &&
	check b2.mrd w.mrd -- "m[\"P\"] == n[\"P\"] and m[\"T\"] == n[\"T\"]"'
expect_success "an open mesh that welding cannot close gets no --weld hint" '
	mrdem-mesh plane --open -o p.mrd && mrdem-mesh export --format obj p.mrd -o p.obj &&
	assert_exit 1 mrdem-mesh import p.obj -o refused.mrd && assert_grep "the mesh is open" err && ! grep -q -- --weld err'
for v in 0 -1 abc; do
	expect_success "--weld $v is a usage error (exit 2)" '
		assert_exit 2 mrdem-mesh import soup.obj --weld '$v' -o refused.mrd && assert_grep "--weld" err'
done

# ---- round trips

mrdem-mesh sphere --triangles 320 --noise 1.8 --seed 5 --stretch 1.3 -o rock.mrd 2>/dev/null
for fmt in obj stl-ascii stl; do
	tol=1e-12; [ $fmt = stl ] && tol=1e-6 # binary STL is single precision
	ext=${fmt%-ascii}
	expect_success "export $fmt, import back, also through pipes: same counts and volume" '
		mrdem-mesh export --format '$fmt' rock.mrd -o rock.'$ext' &&
		mrdem-mesh import rock.'$ext' -o back.mrd &&
		mrdem-mesh export --format '$fmt' <rock.mrd | mrdem-mesh import - --format '$ext' --name r2 |
			cat >piped.mrd &&
		check back.mrd rock.mrd piped.mrd -- \
			"(m[\"triangles\"], m[\"vertices\"], m[\"name\"]) == (320, 162, \"rock\")" \
			"near(m[\"volume\"], n[\"volume\"], '$tol' * n[\"volume\"])" \
			"(M[2][\"triangles\"], M[2][\"name\"]) == (320, \"r2\")"'
done

expect_success "OBJ and ASCII STL keep every digit: coordinates identical after the round trip" '
	mrdem-mesh export --format obj rock.mrd -o r.obj && mrdem-mesh import r.obj -o back.mrd &&
	mrdem-mesh export --format stl-ascii rock.mrd -o r.stl && mrdem-mesh import r.stl -o back2.mrd &&
	check rock.mrd back.mrd back2.mrd -- "sorted(map(tuple, m[\"P\"])) == sorted(map(tuple, n[\"P\"]))" \
		"sorted(map(tuple, m[\"P\"])) == sorted(map(tuple, M[2][\"P\"]))"'

expect_success "binary STL: 84+50n bytes, header not starting with \"solid\"" '
	mrdem-mesh export --format stl rock.mrd -o r.stl &&
	assert_eq "$(stat -c %s r.stl)" $((84 + 50 * 320)) && ! head -c 5 r.stl | grep -q solid'

expect_success "OBJ export of a box: one v line per vertex (%.17g), one f line per triangle (tests/expect/box-1x2x3.obj)" '
	mrdem-mesh box --size 1 2 3 --name crate | mrdem-mesh export --format obj >box.obj &&
	test_cmp "$TOP/tests/expect/box-1x2x3.obj" box.obj'

expect_success "export to a FIFO writes in place (no temporary renamed over it)" '
	mkfifo fifo && { cat fifo >fromfifo.obj & } &&
	mrdem-mesh export --format obj rock.mrd -o fifo && wait && [ -p fifo ] &&
	mrdem-mesh export --format obj rock.mrd -o direct.obj && cmp fromfifo.obj direct.obj'

expect_success "a mesh stream imports as a stream, shapes re-validated" '
	mrdem-mesh import rock.mrd -o back.mrd &&
	check back.mrd rock.mrd -- "m[\"count\"] == 1" "m[\"volume\"] == n[\"volume\"]"'

# ---- OBJ features and validation

cat >quads.obj <<'EOF'
# unit cube of quads, negative (relative) indices, normals and groups skipped
o cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
vn 0 0 1
g all
s off
f 1//1 4//1 3//1 2//1
f -4 -3 -2 -1
f 1/1 2/2 6/3 5/4
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
EOF
expect_success "OBJ quads with negative indices: 12 triangles, unit volume, com at the centre" '
	mrdem-mesh import quads.obj -o q.mrd &&
	check q.mrd -- "(m[\"triangles\"], m[\"vertices\"], m[\"name\"]) == (12, 8, \"quads\")" \
		"near(m[\"volume\"], 1, 1e-15)" "m[\"com\"] == [0.5, 0.5, 0.5]"'

expect_success "an inside-out OBJ is turned outward" '
	awk '\''$1 == "f" { printf "f"; for (i = NF; i > 1; i--) printf " %s", $i; print ""; next } { print }'\'' \
		quads.obj >inside.obj &&
	mrdem-mesh import inside.obj -o q.mrd &&
	check q.mrd -- "near(m[\"volume\"], 1, 1e-15)" "near(m[\"vol\"], 1, 1e-15)"'

printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n' >open.obj
expect_success "an open OBJ is rejected without --open: the open edges counted and named, --open offered" '
	mrdem-mesh import open.obj -o o.mrd 2>err; [ $? = 1 ] &&
	assert_grep "open.obj: the mesh is open: 3 edges belong to only one triangle: (0, 2) of triangle 0, (0, 3) of triangle 1, (2, 3) of triangle 2;" err &&
	assert_grep "fixed obstacles only (mrdem-mesh import --open" err && [ ! -e o.mrd ]'
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 3 2\nf 1 2 4\nf 2 5 4\n' >open5.obj
expect_success "more open edges than shown: the count, the first three and ..." '
	mrdem-mesh import open5.obj -o o.mrd 2>err; [ $? = 1 ] &&
	assert_grep "the mesh is open: 5 edges belong to only one triangle: (0, 2) of triangle 0, (0, 3) of triangle 1, (1, 2) of triangle 0, \.\.\.;" err'
expect_success "an open OBJ is accepted with --open and marked open" '
	mrdem-mesh import open.obj --open -o o.mrd && check o.mrd -- "not m[\"closed\"] and m[\"triangles\"] == 3"'

printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0 0 -1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 1 2 5\n' >fin.obj
expect_success "a non-manifold edge is rejected, naming the edge" '
	mrdem-mesh import fin.obj --open -o o.mrd 2>err; [ $? = 1 ] &&
	assert_grep "edge (0, 1) is shared by 3 triangles" err'

printf 'v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 1\nf 1 2 4\nf 2 3 4\nf 1 3 2\nf 3 1 4\n' >flat.obj
expect_success "a degenerate triangle is rejected with its index" '
	mrdem-mesh import flat.obj -o o.mrd 2>err; [ $? = 1 ] &&
	assert_grep "triangle 2 is degenerate" err'

printf 'v 0 0 0\nv 1e300 0 0\nv 0 1e300 0\nv 0 0 1e300\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n' >huge.obj
expect_success "coordinates whose products overflow are named as overflow, not as a degenerate triangle" '
	assert_exit 1 mrdem-mesh import huge.obj -o h.mrd &&
	assert_grep "huge.obj: triangle 0 (vertices 0, 2, 1): coordinates too large: .* overflow to a non-finite value" err &&
	! grep -q degenerate err && [ ! -e h.mrd ]'
sed "s/e300/e62/g" huge.obj >big.obj
expect_success "coordinates whose volume or inertia overflows are named as overflow" '
	assert_exit 1 mrdem-mesh import big.obj -o h.mrd &&
	assert_grep "big.obj: coordinates too large: the volume, centre of mass or inertia overflows" err &&
	[ ! -e h.mrd ]'

for bad in 'v 0 0 0\nv 1 0 0\nf 1 2 x\n:bad.obj:3: bad vertex reference' \
	'v 0 0 0\nv 1 0 zero\n:bad.obj:2: bad number' \
	'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n:bad.obj:4: vertex reference .4. is out of range' \
	'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n:bad.obj:4: face has 2 vertices' \
	'v 0 0 nan\n:bad.obj:1: vertex coordinate .nan. is not a finite' \
	'# nothing\nv 1 2 3\ncurv 0 1 1 2\n:bad.obj:3: unsupported OBJ statement' \
	'v 0 0 0\n:bad.obj: no faces'; do
	content=${bad%%:*}; want=${bad#*:}
	expect_success "bad OBJ: error '$want', exit 1, no output file" '
		rm -f out.mrd; printf "'"$content"'" >bad.obj
		mrdem-mesh import bad.obj -o out.mrd 2>err; [ $? = 1 ] &&
		assert_grep "'"$want"'" err && [ -z "$(ls out.mrd* 2>/dev/null)" ]'
done

expect_success "truncated binary STL is rejected, naming the file" '
	rm -f out.mrd; mrdem-mesh export --format stl rock.mrd -o r.stl && head -c 1000 r.stl >cut.stl &&
	{ mrdem-mesh import cut.stl -o out.mrd 2>err; [ $? = 1 ]; } &&
	assert_grep "cut.stl: not an STL file" err && [ ! -e out.mrd ]'

expect_success "export: --name is never dropped (a line break becomes a space); a binary STL too large names the file" '
	mrdem-mesh box -o b.mrd && mrdem-mesh export --format obj --name "$(printf "two\nlines")" b.mrd -o n.obj &&
	assert_eq "$(grep "^o " n.obj)" "o two lines" "object line" &&
	mrdem-mesh box --size 1e39 -o huge.mrd && rm -f huge.stl &&
	assert_exit 1 mrdem-mesh export --format stl huge.mrd -o huge.stl &&
	assert_grep "^mrdem-mesh: error: huge.stl: vertex 0 does not fit the single precision" err && [ ! -e huge.stl ]'

expect_success "a non-finite binary STL vertex: one message naming file, facet and vertex" '
	mrdem-mesh export --format stl rock.mrd -o r.stl &&
	python3 -c "import struct,sys; d=bytearray(open(\"r.stl\",\"rb\").read()); struct.pack_into(\"<f\", d, 84 + 50 * 2 + 12 + 12 + 4, float(\"nan\")); open(\"nan.stl\",\"wb\").write(d)" &&
	rm -f out.mrd && assert_exit 1 mrdem-mesh import nan.stl -o out.mrd &&
	assert_grep "^mrdem-mesh: error: nan.stl: facet 2: vertex 1 (.*nan.*) is not finite" err &&
	assert_eq "$(wc -l <err)" 1 "error lines" && [ ! -e out.mrd ]'

expect_success "ASCII STL syntax error names file:line" '
	mrdem-mesh export --format stl-ascii rock.mrd -o r.stl && sed "12s/vertex/vortex/" r.stl >bad.stl &&
	{ mrdem-mesh import bad.stl -o out.mrd 2>err; [ $? = 1 ]; } &&
	assert_grep "bad.stl:12: expected .vertex., found .vortex." err'

expect_success "a control byte in an STL number is shown escaped, with the line" '
	mrdem-mesh export --format stl-ascii rock.mrd -o r.stl && sed "5s/vertex \([^ ]*\) /vertex \1\x01 /" r.stl >ctl.stl &&
	{ mrdem-mesh import ctl.stl -o out.mrd 2>err; [ $? = 1 ]; } &&
	assert_grep "ctl.stl:5: bad number .[-0-9.e]*\\\\x01." err && [ ! -e out.mrd ]'

expect_success "a control byte in an OBJ number is shown escaped, with the line" '
	printf "v 0 0 0\nv 1\033 0 0\n" >ctl.obj &&
	{ mrdem-mesh import ctl.obj -o out.mrd 2>err; [ $? = 1 ]; } &&
	assert_grep "ctl.obj:2: bad number .1\\\\x1b. in vertex" err'

expect_success "export of a missing shape names it" '
	mrdem-mesh export --format obj --shape nothere rock.mrd 2>err; [ $? = 1 ] &&
	assert_grep "no shape named .nothere." err'

expect_failure "export of a non-stream fails cleanly" 'mrdem-mesh export --format obj quads.obj >o.obj'

# ---- command line

for c in sphere box plane cylinder revolve import export; do
	expect_success "$c --help prints its usage" '
		mrdem-mesh '$c' --help >out && assert_grep "usage: mrdem-mesh '$c'" out'
done
expect_success "mrdem-mesh --help lists the commands" 'mrdem-mesh --help >out && assert_grep cylinder out'

expect_success "bad options and bad option values: exit 2 with the option named" '
	assert_exit 2 mrdem-mesh sphere --bogus && assert_grep "unrecognized option .--bogus." err &&
	assert_grep "try .mrdem-mesh sphere --help." err &&
	assert_exit 2 mrdem-mesh frobnicate &&
	assert_exit 2 mrdem-mesh box --size 1 2 && assert_grep "1 or 3 values" err &&
	assert_exit 2 mrdem-mesh plane --open --size 1 && assert_grep "needs 2 values" err &&
	assert_exit 2 mrdem-mesh sphere --triangles && assert_grep "requires an argument" err &&
	assert_exit 2 mrdem-mesh sphere --radius 1 --radius 2 && assert_grep "given twice" err &&
	assert_exit 2 mrdem-mesh sphere --axis w && assert_grep "axis must be x, y or z" err &&
	assert_exit 2 mrdem-mesh sphere --seed 3 -o x.mrd && assert_grep "seed applies to --noise" err &&
	assert_exit 2 mrdem-mesh sphere --noise 1 --seed 3 -o x.mrd && assert_grep "seed applies to --noise" err &&
	assert_exit 2 mrdem-mesh sphere --axis z -o x.mrd && assert_grep "axis applies to --stretch" err &&
	assert_exit 2 mrdem-mesh sphere --radius abc -o x.mrd && assert_grep "radius: .abc. is not a number" err &&
	assert_exit 2 mrdem-mesh sphere --radius nan -o x.mrd && assert_grep "not a finite number" err &&
	assert_exit 2 mrdem-mesh sphere --radius 2x -o x.mrd && assert_grep "radius: .2x. is not a number" err &&
	assert_exit 2 mrdem-mesh sphere --radius -1 -o x.mrd && assert_grep "positive" err &&
	assert_exit 2 mrdem-mesh sphere --noise 0.5 -o x.mrd && assert_grep "noise" err &&
	assert_exit 2 mrdem-mesh sphere --triangles 1e3 -o x.mrd && assert_grep "triangles" err &&
	assert_exit 2 mrdem-mesh box --divisions 0 -o x.mrd && assert_grep "divisions" err &&
	assert_exit 2 mrdem-mesh cylinder --segments 2 -o x.mrd && assert_grep "segments" err &&
	assert_exit 2 mrdem-mesh cylinder --segments 1048577 -o x.mrd &&
	assert_grep "cylinder segments must be from 3 to 1048576, got 1048577" err &&
	assert_exit 2 mrdem-mesh import && assert_grep "needs one input FILE" err &&
	assert_exit 2 mrdem-mesh import a.obj b.obj && assert_grep "unexpected argument .b.obj." err &&
	assert_exit 2 mrdem-mesh import - </dev/null && assert_grep "needs --format" err &&
	assert_exit 1 mrdem-mesh import missing.obj -o x.mrd && assert_grep "missing.obj" err &&
	[ -z "$(ls x.mrd* 2>/dev/null)" ]'

# A scene refuses an empty shape name ("shapes: expected a name"), so
# every command refuses to write one.
expect_success "--name \"\" is refused by every command, worded as the scene loader does, writing nothing" '
	mrdem-mesh box -o b.mrd &&
	for cmd in sphere box "plane --open" cylinder "import open.obj --open" "export --format obj b.mrd"; do
		assert_exit 2 mrdem-mesh $cmd --name "" -o x.out &&
		assert_grep "^mrdem-mesh: --name: expected a name, got ..$" err &&
		assert_grep "try .mrdem-mesh ${cmd%% *} --help." err && test ! -e x.out || return 1
	done &&
	printf "shapes:\n  \"\": {sphere: {}}\n" >e.yaml && assert_exit 1 mrdem-init e.yaml -o x.out &&
	assert_grep "e.yaml:2:3: shapes: expected a name, got" err && test ! -e x.out'

# A tilt in -180..180 gives every orientation of a plane (upside down at
# +-180); beyond, only slips: the scene loader refuses them the same
# (tests/yaml/bad-plane-tilt*.yaml).
expect_success "plane --tilt: -180..180 accepted, beyond refused naming the option" '
	mrdem-mesh plane --open --tilt 180 -o p180.mrd && mrdem-mesh plane --open --tilt -180 -o m180.mrd &&
	check p180.mrd -- "m[\"triangles\"] == 2" &&
	for t in 180.5 -200 1e300; do
		assert_exit 2 mrdem-mesh plane --open --tilt $t -o x.out &&
		assert_grep "^mrdem-mesh: --tilt: .$t. must be an angle in degrees from -180 to 180$" err &&
		test ! -e x.out || return 1
	done &&
	printf "shapes: {s: {plane: {size: [2, 2], tilt: -180}}}\nparticles: [{shape: s, position: [0, 0, 0], fixed: true}]\ncontact: {model: paper}\n" >t.yaml &&
	mrdem-init t.yaml -o t.mrd'

expect_success "options in every spelling: --opt V, --opt=V, -o F, -oF, --output F, multi-value, after FILE" '
	mrdem-mesh box --size 1 2 3 --divisions 2 -o a.mrd && check a.mrd -- "m[\"triangles\"] == 48" "near(m[\"volume\"], 6, 1e-12)" &&
	mrdem-mesh box --size=2 --divisions=1 -ob.mrd && check b.mrd -- "near(m[\"volume\"], 8, 1e-12)" &&
	mrdem-mesh plane --open --size 3 4 --divisions 2 3 --tilt -15 --output p.mrd && check p.mrd -- "m[\"triangles\"] == 12" &&
	mrdem-mesh import open.obj --open --name lid --output o.mrd && check o.mrd -- "m[\"triangles\"] == 3"'

done_testing
