#!/usr/bin/env bash
# Install masrl and exactly the dependency versions in uv.lock into .venv (the hashes in the lock
# are checked). Arguments are extras: `scripts/sync.sh dev` (the default) or `scripts/sync.sh ray dev`;
# `scripts/sync.sh --no-extras` installs masrl's own dependencies alone, `scripts/sync.sh --uv-only`
# uv alone (what `make lock` needs).
# uv itself is pinned with hashes in scripts/uv-requirements.txt and lives in .tools/uv.
# `--locked` refuses to run when pyproject.toml and uv.lock disagree: run `make lock` and commit both.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
UV=.tools/uv/bin/uv
wanted=$(sed -n 's/^uv==\([0-9.]*\).*/\1/p' scripts/uv-requirements.txt)
if [ ! -x "$UV" ] || [ "$("$UV" --version | cut -d' ' -f2)" != "$wanted" ]; then
  echo "sync: installing uv $wanted into .tools/uv"
  "$PYTHON" -m venv --clear .tools/uv
  .tools/uv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
    -r scripts/uv-requirements.txt
fi

[ "${1:-}" = --uv-only ] && exit 0

extras=()
if [ "${1:-}" != --no-extras ]; then
  for extra in "${@:-dev}"; do extras+=(--extra "$extra"); done
fi
# Never download an interpreter: the project runs on the Python the user has (PYTHON).
export UV_PYTHON_DOWNLOADS=never
if ! "$UV" lock --check --offline --quiet 2>/dev/null && ! "$UV" lock --check --quiet; then
  echo "sync: uv.lock does not match pyproject.toml: run 'make lock' and commit both files" >&2
  exit 1
fi
"$UV" sync --locked --python "$PYTHON" "${extras[@]}" --quiet
