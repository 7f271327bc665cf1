#!/bin/sh
# Install the Debian packages pmlab needs, only those that are missing.
# Runs as root (CI, a fresh machine) or through sudo when available.
set -eu
# clang and libclang-rt-dev (libFuzzer, only recommended by clang, so named
# here): the fuzz targets (make fuzz, and briefly in make test).
# libtracecmd-dev: `pmlab trace` reads trace-cmd trace.dat files through it;
# its libtracecmd.pc requires libtracefs and libtraceevent, whose -dev
# packages Debian 12 does not pull in with it.
PKGS="build-essential pkg-config libinih-dev libgsl-dev libjansson-dev libcmocka-dev gnuplot-nox man-db clang libclang-rt-dev libtracecmd-dev libtracefs-dev libtraceevent-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps: all present ($PKGS)"
    exit 0
fi
echo "deps: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
