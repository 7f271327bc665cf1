#!/bin/sh
# Install the Debian packages pmlab needs, only those that are missing.
# Runs as root (CI, a fresh machine) or through sudo when available.
set -eu
# clang and libclang-rt-dev (libFuzzer, only recommended by clang, so named
# here): the fuzz targets (make fuzz, and briefly in make test).
# chromium-headless-shell and python3: the browser test of report.html
# (tests/browser/).
# libsqlite3-dev and nettle-dev (SHA-256): the sweep results database;
# libopenmpi-dev and openmpi-bin: pmlab-mpi (make MPI=1, and its test).
# libtracecmd-dev: `pmlab trace` reads trace-cmd trace.dat files through it;
# its libtracecmd.pc requires libtracefs and libtraceevent, whose -dev
# packages Debian 12 does not pull in with it. zlib1g-dev: gzipped traces.
# trace-cmd: the test that `pmlab run --trace` files read in trace-cmd report.
PKGS="build-essential pkg-config libinih-dev libgsl-dev libjansson-dev libcmocka-dev gnuplot-nox man-db clang libclang-rt-dev chromium-headless-shell python3 libsqlite3-dev nettle-dev libopenmpi-dev openmpi-bin libtracecmd-dev libtracefs-dev libtraceevent-dev zlib1g-dev trace-cmd"
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
