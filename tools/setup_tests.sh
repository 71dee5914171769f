#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian machine (idempotent: quick when all is there):
# the reference tools of the differential tests and the browser of the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
# Debian puts game programs (gnugo, polyglot) in /usr/games.
export PATH="$PATH:/usr/games"
need_apt=()
{ command -v gnugo || [ -x /usr/games/gnugo ]; } >/dev/null 2>&1 || need_apt+=(gnugo)
command -v polyglot >/dev/null 2>&1 || [ -x /usr/games/polyglot ] || need_apt+=(polyglot)
# A font for the text of `kifu show --png` (coordinates, labels, move numbers).
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
# The browser of the browser tests (tests/browser).
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore sgfmill chess
# Kombilo 0.8.4, the reference for `kifu pos search` (crates/cli/tests/kombilo.rs): built from its
# source package into a venv (about a minute on a fresh machine).
bash tools/install_kombilo.sh /opt/kombilo >/dev/null
# A one-node Slurm cluster for the scale-out tests (crates/cli/tests/slurm.rs); if it cannot
# start here, those tests print why and skip.
bash tools/slurm_up.sh || echo "setup: Slurm could not start; the Slurm tests will say why and skip"
# KataGo on the CPU (OpenCL through pocl), the second engine of the scoring tests
# (crates/cli/tests/katago.rs): two katrain wheels from PyPI, checked by sha256, and a shipped
# OpenCL tuning file, so that nothing is tuned here (tools/katago/README.md).
[ -x /opt/katago/katago ] && [ -e /opt/katago/analysis.cfg ] || bash tools/katago/install.sh /opt/katago >/dev/null
