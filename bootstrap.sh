#!/bin/sh
# SPDX-License-Identifier: MIT
# Sets up a fresh Debian machine to build symshard: installs the Debian
# packages that are missing, generates the build system and configures it
# in the source tree.
#
# Usage: ./bootstrap.sh [--deps-only] [CONFIGURE-OPTIONS...]
#   --deps-only  only install the missing packages
#   Other arguments go to ./configure (see ./configure --help).

set -e

packages="build-essential autoconf automake libtool pkg-config
libisl-dev libgmp-dev libcmocka-dev libopenblas-dev libjansson-dev
zlib1g-dev dataset-fashion-mnist fortunes libopenmpi-dev openmpi-bin mandoc valgrind clang clang-format
python3-sympy libclang-rt-14-dev cppcheck
libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata"

deps_only=no
if test "x$1" = x--deps-only; then
	deps_only=yes
	shift
fi

missing=
for p in $packages; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case $status in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done

if test -n "$missing"; then
	echo "bootstrap: installing:$missing"
	if test "$(id -u)" -eq 0; then
		sudo=
	elif command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "bootstrap: not root and no sudo: install$missing" >&2
		exit 1
	fi
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	    --no-install-recommends $missing
else
	echo "bootstrap: all packages present"
fi

test "$deps_only" = yes && exit 0

cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf -fi
./configure "$@"
