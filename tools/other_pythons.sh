#!/bin/sh
# Runs the test suite on other Pythons, each in its own virtual environment in /tmp with the
# NumPy pip installs there (Python 3.10 gets NumPy 2.2, 3.12 and 3.13 the newest).
#
#   tools/other_pythons.sh /path/to/python3.10 /path/to/python3.12 [-- pytest arguments]
#
# Each environment is made once (/tmp/autograph-venv-<version>) and reused; the package is
# installed in it editable, with the test extra. The status is 1 when any run failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
pythons=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do pythons="$pythons $1"; shift; done
[ $# -gt 0 ] && shift  # the "--"
[ -n "$pythons" ] || { echo "usage: $0 PYTHON... [-- PYTEST-ARGS...]" >&2; exit 2; }
status=0
for python in $pythons; do
    version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])') || { status=1; continue; }
    venv=/tmp/autograph-venv-$version
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv" && "$venv/bin/pip" install -q -e "$root[test]" || { status=1; continue; }
    fi
    echo "== Python $version, NumPy $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')"
    (cd "$root" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@") || status=1
done
exit $status
