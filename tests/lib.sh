# Shared by the shell tests (sourced, run from the repository root): the
# binary under test, a scratch directory removed on exit, and reporting.
set -eu
P=${PMLAB:-./pmlab}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok - $*"; }
