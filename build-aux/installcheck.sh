#!/bin/sh
# SPDX-License-Identifier: MIT
# make installcheck (which make distcheck runs): checks what make install
# put in place as a user of the library finds it. Each example program is
# compiled against the installed headers and linked with the installed
# library through pkg-config, then run; the installed tools print their
# version; every exported function has its installed man page.
#
# Usage: installcheck.sh SRCDIR (the examples find their graph files
# there, as in make check)
# Environment (set by the Makefile): CC, CFLAGS, PKG_CONFIG, DESTDIR,
# libdir, bindir, mandir.

set -e

srcdir=$1
: "${CC:=cc}"
: "${PKG_CONFIG:=pkg-config}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/symshard-installcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# The .pc file names the final prefix; with DESTDIR, pkg-config's sysroot
# puts the staged copy in front of its -I and -L paths.
export PKG_CONFIG_PATH="$DESTDIR$libdir/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$DESTDIR"
if ! flags=$($PKG_CONFIG --cflags --libs symshard); then
	echo "installcheck: pkg-config does not find the installed symshard.pc" >&2
	exit 1
fi
for src in "$srcdir"/examples/*.c; do
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086 # the flags are words
	$CC $CFLAGS -o "$tmp/$name" "$src" $flags
	top_srcdir=$srcdir \
	    LD_LIBRARY_PATH="$DESTDIR$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	    "$tmp/$name" >"$tmp/$name.out" 2>&1 || {
		cat "$tmp/$name.out" >&2
		echo "installcheck: examples/$name.c, built against the installed library, failed" >&2
		exit 1
	}
	echo "installcheck: examples/$name.c builds with pkg-config and runs"
done
for tool in shape-check shape-run; do
	LD_LIBRARY_PATH="$DESTDIR$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	    "$DESTDIR$bindir/$tool" --version >/dev/null
	echo "installcheck: $tool is installed and runs"
done
missing=
for f in $(cat "$srcdir/tests/exports.txt"); do
	test -e "$DESTDIR$mandir/man3/$f.3" || missing="$missing $f"
done
if test -n "$missing"; then
	echo "installcheck: no installed man page for:$missing" >&2
	exit 1
fi
echo "installcheck: a man page is installed for each of the $(wc -l <"$srcdir/tests/exports.txt") exported functions"
