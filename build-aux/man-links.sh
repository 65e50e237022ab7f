#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs or removes one alias link per name listed with .Nm in the NAME
# section of each man page: sym_ctx.3 names sym_ctx_new, so
# MANDIR/man3/sym_ctx_new.3 -> sym_ctx.3.  Called by make install and
# make uninstall (install-data-hook, uninstall-hook).
#
# Usage: man-links.sh install|uninstall MANDIR SRCDIR PAGE...

set -e

mode=$1
mandir=$2
srcdir=$3
shift 3

case $mode in
install | uninstall) ;;
*)
	echo "usage: $0 install|uninstall MANDIR SRCDIR PAGE..." >&2
	exit 2
	;;
esac

for page in "$@"; do
	src=$page
	test -f "$src" || src=$srcdir/$page
	base=${page##*/}
	sect=${base##*.}
	dir=$mandir/man$sect
	# The names: first word after ".Nm" between ".Sh NAME" and the next .Sh.
	names=$(sed -n '/^\.Sh NAME/,/^\.Sh /{
		/^\.Sh /d
		s/^\.Nm[ 	][ 	]*\([^ 	,]*\).*/\1/p
	}' "$src")
	n=0
	for name in $names; do
		test "$name.$sect" = "$base" && continue
		if test "$mode" = install; then
			ln -sf "$base" "$dir/$name.$sect"
		else
			rm -f "$dir/$name.$sect"
		fi
		n=$((n + 1))
	done
	if test "$mode" = install; then
		echo "  LN       $n aliases of $base in $dir"
	fi
done
