#!/usr/bin/env bash
# Weekly dependency update (run by .github/workflows/update-lock.yml, or by hand): resolve the
# newest versions that pyproject.toml's ranges allow, run the whole suite on them, and open or
# update ONE pull request with the new uv.lock. Its body lists every version change and the suite's
# result, and the job fails when the suite fails: a breaking release shows up as a red pull
# request, never as a broken fresh clone.
#
# Environment:
#   BRANCH      the pull request's branch (default masrl/update-lock)
#   BASE        the branch the pull request targets (default main)
#   SUITE       the command that runs the suite on the new lock (default: make test, which
#               installs exactly the new lock first)
#   DRY_RUN=1   commit on BRANCH locally but push nothing and call no GitHub API; print the body
#   GH_TOKEN    token for `gh` and the push (the workflow passes github.token)
#   REMOTE_URL  where BRANCH is pushed to (default: the GitHub repository)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

branch=${BRANCH:-masrl/update-lock}
base=${BASE:-main}
suite=${SUITE:-make test}
# shellcheck source=scripts/pull_request.sh
source scripts/pull_request.sh
remote=$(pr_remote)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash scripts/sync.sh --uv-only
.tools/uv/bin/uv lock --upgrade --color never 2> "$work/lock.txt"
if git diff --quiet -- uv.lock; then
  echo "update_lock: every locked version is already the newest allowed; no pull request needed"
  exit 0
fi

status=0
bash -c "$suite" > "$work/suite.txt" 2>&1 || status=$?
if [[ $status == 0 ]]; then verdict="passes"; else verdict="FAILS (exit $status)"; fi

{
  echo "The newest versions that \`pyproject.toml\`'s ranges allow, locked by \`uv lock --upgrade\`."
  echo
  echo "**The whole suite $verdict on them.**"
  if [[ $status != 0 ]]; then
    echo "Find the release that broke it below, then fix masrl or bound that package's range in"
    echo "\`pyproject.toml\`, run \`make lock\` and push to this branch."
  fi
  echo
  echo "### Version changes"
  echo
  grep -E '^(Updated|Added|Removed) ' "$work/lock.txt" | sed 's/^/- /' || echo "- (uv reported none; see the lock diff)"
  echo
  echo "### The suite's last lines"
  echo
  echo '```'
  tail -n 40 "$work/suite.txt"
  echo '```'
} > "$work/body.md"

git checkout --quiet -B "$branch"
git add uv.lock
git -c user.name="masrl update-lock" -c user.email="masrl-update-lock@users.noreply.github.com" \
  commit --quiet -m "Lock the newest allowed dependency versions (suite $verdict)"

if [[ "${DRY_RUN:-}" == "1" ]]; then
  echo "update_lock: dry run; would push $branch and open or update its pull request with:"
  cat "$work/body.md"
  exit "$status"
fi

push_and_open_pr update_lock "$remote" "$branch" "$base" "Update locked dependencies" "$work/body.md" --force
exit "$status"
