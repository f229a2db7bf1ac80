#!/usr/bin/env bash
# make install into a scratch root (DESTDIR): every tool with its man page,
# the library, its headers and mrdem.pc; then a small program built against
# the installed copy with pkg-config writes a mesh stream and reads it back.
# The make reuses the checked build (MRDEM_BUILD, MRDEM_BIN), so it only
# generates the man pages and copies files: with the build's own revision,
# so that a tree changed since the build does not relink the tools other
# tests are running.
. "$(dirname "$0")/../lib/test-lib.sh"

BUILD=${MRDEM_BUILD:-$TOP/build}
R=$T/root/usr/local
tools=$(cd "$TOP/tools" && ls *.c | sed 's/\.c$//')
# mrdem-run-mpi too where make mpi built it
[ -x "$MRDEM_BIN/mrdem-run-mpi" ] && tools="$tools mrdem-run-mpi"

expect_success "make install DESTDIR=... PREFIX=/usr/local" '
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" BUILD="$BUILD" BIN="$MRDEM_BIN" \
		REVISION="$(cat "$BUILD/revision")" \
		install DESTDIR="$T/root" PREFIX=/usr/local >make.log 2>&1 || { tail make.log; exit 1; }
	test -s "$R/lib/libmrdem.a" && test -s "$R/lib/pkgconfig/mrdem.pc" &&
	test -s "$R/include/mrdem/common/scene/scene.h" &&
	test -s "$R/include/mrdem/formats/stream/stream.h" &&
	test -s "$R/share/doc/mrdem/README.md" &&
	test -s "$R/share/doc/mrdem/paraview/mrdem_glyphs.py" && test -s "$R/share/doc/mrdem/figures/scaling.png"'

expect_success "every tool is installed and runs" '
	for t in $tools; do
		test -x "$R/bin/$t" || { echo "no $t"; exit 1; }
		"$R/bin/$t" --help >/dev/null || { echo "$t --help failed"; exit 1; }
	done
	assert_eq "$(ls "$R/bin" | wc -l)" "$(echo $tools | wc -w)" "installed tools"'

# Every man page is valid roff: man renders it without warnings when man
# is installed; the section skeleton is checked either way.
expect_success "one man page per tool, with NAME, SYNOPSIS, DESCRIPTION, EXIT STATUS" '
	for t in $tools; do
		p=$R/share/man/man1/$t.1
		test -s "$p" || { echo "no man page for $t"; exit 1; }
		assert_grep "^\.TH $(echo $t | tr a-z A-Z | sed "s/-/\\\\\\\\-/g") 1 " "$p" || exit 1
		for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" "SEE ALSO"; do
			assert_grep "^\.SH $s\$" "$p" || exit 1
		done
		assert_grep "^$(echo $t | sed "s/-/\\\\\\\\-/g") \\\\- [A-Z]" "$p" || exit 1
		if command -v man >/dev/null; then
			MANWIDTH=80 man --warnings -l "$p" >page.txt 2>warn.txt || exit 1
			[ ! -s warn.txt ] || { echo "$t.1:"; cat warn.txt; exit 1; }
			assert_grep "^EXIT STATUS" page.txt || exit 1
		fi
	done
	assert_eq "$(ls "$R/share/man/man1" | wc -l)" "$(echo $tools | wc -w)" "man pages"'

expect_success "mrdem-mesh.1 documents every command" '
	for c in sphere box plane cylinder import export; do
		assert_grep "^\.SS $c\$" "$R/share/man/man1/mrdem-mesh.1" || exit 1
	done'

# A tetrahedron written as a mesh stream through the installed library and
# read back: name, counts and the validated volume.
cat >prog.c <<'C'
#include <stdio.h>
#include <string.h>

#include "common/scene/scene.h"
#include "formats/stream/records.h"
#include "formats/stream/stream.h"

int main(int argc, char **argv)
{
	static const double v[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	static const uint32_t t[] = {0, 1, 2, 0, 1, 3, 0, 2, 3, 1, 2, 3};
	struct mrdem_scene s, back;
	struct mrdem_mesh m;
	struct mrdem_writer w;
	struct mrdem_reader r;
	struct mrdem_record rec;
	int rc;
	(void)argc;
	mrdem_scene_init(&s);
	mrdem_mesh_init(&m);
	mrdem_mesh_alloc(&m, 4, 4);
	memcpy(m.verts, v, sizeof v);
	memcpy(m.tris, t, sizeof t);
	if (mrdem_mesh_validate(&m, 0, "tet")) /* orients it outward, fills the mass */
		return 1;
	mrdem_scene_add_shape(&s, "tet", &m);
	if (mrdem_writer_open(&w, argv[1], 0) || mrdem_scene_write_shapes(&w, &s) ||
	    mrdem_writer_commit(&w))
		return 1;
	mrdem_scene_init(&back);
	if (mrdem_reader_open(&r, argv[1], 0))
		return 1;
	while ((rc = mrdem_reader_next(&r, &rec)) == 1)
		if (mrdem_scene_absorb(&back, &rec, r.name) < 0)
			return 1;
	mrdem_reader_close(&r);
	if (rc < 0 || back.nshapes != 1)
		return 1;
	printf("%s %u vertices %u triangles volume %.6f\n", back.shapes[0].name,
	       back.shapes[0].mesh.nverts, back.shapes[0].mesh.ntris,
	       back.shapes[0].mesh.mass.volume);
	mrdem_scene_release(&s);
	mrdem_scene_release(&back);
	return 0;
}
C
# Sanitized builds need the sanitizer runtime in the program too.
san=
[ "${MRDEM_ASAN:-}" = 1 ] && san=-fsanitize=address,undefined

expect_success "pkg-config describes the installed library" '
	export PKG_CONFIG_PATH=$R/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$T/root
	assert_eq "$(pkg-config --modversion mrdem)" 2.0 version &&
	pkg-config --cflags mrdem >cflags && assert_grep "^-I$R/include/mrdem " cflags &&
	assert_grep "-fopenmp" cflags &&
	pkg-config --libs mrdem >libs && assert_grep "^-L$R/lib -lmrdem " libs &&
	assert_grep "-lyaml" libs && assert_grep "-lz" libs && assert_grep "-lm" libs'

expect_success "a program built with pkg-config --cflags --libs mrdem writes and reads a mesh stream" '
	export PKG_CONFIG_PATH=$R/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$T/root
	${CC:-cc} -std=c11 -Wall -Wextra -Werror $san prog.c $(pkg-config --cflags --libs mrdem) -o prog &&
	./prog tet.mrd >out &&
	assert_eq "$(cat out)" "tet 4 vertices 4 triangles volume 0.166667" &&
	"$R/bin/mrdem-info" tet.mrd >info && assert_grep "shape 0 .tet.: 4 vertices, 4 triangles" info'

expect_success "make uninstall removes what install put there" '
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" BUILD="$BUILD" BIN="$MRDEM_BIN" \
		uninstall DESTDIR="$T/root" PREFIX=/usr/local >make.log 2>&1 || { tail make.log; exit 1; }
	left=$(find "$T/root" -type f) && assert_eq "$left" "" "files left"'

done_testing
