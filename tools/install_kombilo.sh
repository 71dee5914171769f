#!/usr/bin/env bash
# Build Kombilo 0.8.4 (the reference for `kifu pos search`, used by tools/kombilo_search.py)
# into a Python 3 venv.
#
#   tools/install_kombilo.sh VENV_DIR
#
# Idempotent: does nothing if VENV_DIR/bin/python can already import kombilo.libkombilo.
# Steps: apt-get install the build dependencies (libboost-dev for boost/unordered_map.hpp,
# libsqlite3-dev, g++, python3-venv; needs root, or sudo), create the venv, fetch the sdist
# (pip download --no-binary :all: --no-deps kombilo==0.8.4), delete the C++ dynamic exception
# specifications (`) throw(DBError)` -> `)`; they are errors in C++17, the default of current
# g++) from kombilo/libkombilo/*.h and *.cpp, and pip install the package with --no-deps
# (its GUI dependencies Pillow/Pmw/configobj are not needed for libkombilo).
# Only the extension `kombilo.libkombilo` works on Python 3; kombiloNG.py is Python 2 code.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 VENV_DIR" >&2
    exit 2
fi
VENV=$1
VERSION=0.8.4

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import kombilo.libkombilo' 2>/dev/null; then
    echo "kombilo already installed in $VENV"
    exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
need=()
for pkg in libboost-dev libsqlite3-dev g++ python3-venv python3-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${need[@]}"
fi

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$VENV/bin/pip" download --no-binary :all: --no-deps -d "$WORK" "kombilo==$VERSION"
tar -xzf "$WORK/kombilo-$VERSION.tar.gz" -C "$WORK"
SRC="$WORK/kombilo-$VERSION"

python3 - "$SRC/kombilo/libkombilo" <<'EOF'
import glob, os, re, sys
d = sys.argv[1]
# `)` + optional whitespace/newlines + `throw(A)` or `throw(A, B)` -> `)`
pat = re.compile(r'\)\s*throw\s*\(\s*[A-Za-z_][A-Za-z_0-9:]*'
                 r'(?:\s*,\s*[A-Za-z_][A-Za-z_0-9:]*)*\s*\)')
total = 0
for f in sorted(glob.glob(os.path.join(d, '*.h')) + glob.glob(os.path.join(d, '*.cpp'))):
    with open(f, encoding='latin-1') as fh:
        s = fh.read()
    s2, k = pat.subn(')', s)
    if k:
        with open(f, 'w', encoding='latin-1') as fh:
            fh.write(s2)
    total += k
print('removed %d exception specifications' % total)
if total == 0:
    sys.exit('no exception specifications found: unexpected source')
EOF

(cd "$SRC" && nice "$VENV/bin/pip" install --no-deps .)
"$VENV/bin/python" -c 'import kombilo.libkombilo as lk; print("kombilo.libkombilo OK:", lk.__file__)'
