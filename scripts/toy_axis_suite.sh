#!/usr/bin/env bash
# The registry's promise, run whole: a new REQUIRED taxonomy axis is one file plus its tags.
# Copies the checkout's tracked files to a scratch folder, adds taxonomy/modalities.yaml (a toy
# axis every entry must carry, shown in stats, table, facets, chips and the overview figure) and
# `modality:` to every corpus entry, regenerates with `masrl build`, then runs validate, check,
# the site build and the whole test suite there. No code changes: if anything fails, a layer
# still hard-codes the axes. Usage: bash scripts/toy_axis_suite.sh [pytest args]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="$here/.venv/bin"
work="$(mktemp -d "${TMPDIR:-/tmp}/masrl-toy-axis.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$here"
git ls-files -z | xargs -0 -I{} cp --parents {} "$work"
cd "$work"
# The copy's own package and taxonomy, not the checkout's that the venv installed (children too).
export PYTHONPATH="$work/tools${PYTHONPATH:+:$PYTHONPATH}"
cat > taxonomy/modalities.yaml <<'AXIS'
axis: modalities
label: Modality
description: What the agents exchange (a toy axis of scripts/toy_axis_suite.sh).
order: 20
field:
  name: modality
  records: [entry]
  many: false
  nullable: true
  required: true
  position: 22
  description: "What the agents exchange; null when not applicable."
show:
  stats: 20
  tags: 20
  facet: 20
  column: 20
  chip: 20
  figure: 10
  hue: 90
values:
  - id: text
    order: 1
    label: Text
    definition: Agents exchange natural-language messages.
  - id: latent
    order: 2
    label: Latent
    definition: Agents exchange hidden states or embeddings.
AXIS
"$bin/python" - <<'TAG'
from pathlib import Path
from masrl import files
from masrl.model import yamlio
from masrl.model.records import ENTRY_SCHEMA_LINE
for path in sorted(Path("corpus").glob("*.yaml")):
    data = dict(yamlio.load_file(path))
    data["modality"] = "latent" if "latent" in data["title"].lower() else "text"
    files.write_atomic(path, yamlio.dumps(data, header=ENTRY_SCHEMA_LINE))
TAG
"$bin/masrl" build >/dev/null
"$bin/masrl" validate
"$bin/masrl" check
"$bin/masrl" site build -o "$work/site-out" >/dev/null
grep -q 'browse/modality/' "$work/site-out/index.html" || { echo "the toy axis's browse page is not in the site's menu" >&2; exit 1; }
rm -rf "$work/site-out"
echo "toy axis: validate, build, check and site build pass; running the suite"
# A checkout of its own, for the tests that list tracked files or build the wheel from them.
git init -q && git add -A && git -c user.name=toy -c user.email=toy@example.org commit -qm "toy axis"
ln -s "$here/.venv" .venv
# the pinned uv the lock tests run (scripts/sync.sh installs it there)
ln -s "$here/.tools" .tools
# The venv records masrl as installed from the checkout, so a lock check in the copy would only
# say the copy is elsewhere: that test is about the install, not about axes.
"$bin/python" -m pytest -n "${WORKERS:-2}" --dist loadgroup -q \
  --deselect tests/test_lock.py::test_the_installed_versions_are_exactly_the_locks "$@"
