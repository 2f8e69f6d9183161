#!/usr/bin/env bash
# Weekly discovery (run by .github/workflows/discover.yml, or by hand): search arXiv with every
# query family for the past WEEKS weeks, chase the works citing corpus entries published in those
# weeks (OpenAlex), check the existing entries' arXiv metadata, and open or
# update ONE pull request holding the new screening-queue entries, so maintainers screen in review,
# and the new arXiv versions, journal references and DOIs of existing entries, so they are merged
# (or not) in review too.
#
# Environment:
#   WEEKS       weeks back to search (default 2)
#   BRANCH      the pull request's branch (default masrl/discover)
#   BASE        the branch the pull request targets (default main)
#   DRY_RUN=1   commit on BRANCH locally but push nothing and call no GitHub API; print the body
#   GH_TOKEN    token for `gh` and the push (the workflow passes github.token)
#   REMOTE_URL  where BRANCH is fetched from and pushed to (default: the GitHub repository)
# arXiv settings come from masrl's own variables (MASRL_ARXIV_API_URL, MASRL_ARXIV_DELAY, ...), and
# OpenAlex's likewise (MASRL_OPENALEX_URL, MASRL_OPENALEX_MAILTO, MASRL_OPENALEX_DELAY).
set -euo pipefail

weeks=${WEEKS:-2}
branch=${BRANCH:-masrl/discover}
base=${BASE:-main}
if ! [[ "$weeks" =~ ^[1-9][0-9]?$ ]]; then
  echo "discover_pr: WEEKS must be a whole number of weeks from 1 to 99, got '$weeks'" >&2
  exit 2
fi

# shellcheck source=scripts/pull_request.sh
source "$(dirname "$0")/pull_request.sh"
remote=$(pr_remote)
# Continue the open pull request's branch when there is one, so decisions already committed there
# are kept and its queue counts as known; otherwise start the branch from the checked-out base.
if [[ -n "$remote" ]] && git fetch --quiet "$remote" "$branch" 2>/dev/null; then
  git checkout --quiet -B "$branch" FETCH_HEAD
else
  git checkout --quiet -B "$branch"
fi

until_day=$(date -u +%F)
since_day=$(date -u -d "-$((weeks * 7)) days" +%F)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

masrl discover --since "$since_day" --until "$until_day" | tee "$work/discover.txt"
# Forward citation searching: new work citing the corpus is the best signal a living review has.
# Its candidates join the same round and pull request. A failed run writes nothing, so OpenAlex
# being down costs this week's citation candidates, not the pull request.
masrl snowball --direction forward --since "$since_day" --until "$until_day" > "$work/snowball.txt" 2>&1 \
  || echo "snowball could not finish; see its output above (the next run tries again)" >> "$work/snowball.txt"
# New arXiv versions, journal references and DOIs of existing entries are written into the entries
# (only where the entry has none, or an older version), so the pull request proposes them as a diff;
# a mismatch or a differing value is reported in the body, not fatal.
masrl verify-metadata --report-only --apply > "$work/verify.txt" 2>&1 || echo "verify-metadata could not finish; see its output below" >> "$work/verify.txt"

git add -A screening/ corpus/
if [[ -d citations ]]; then
  git add -A citations/
fi
if git diff --cached --quiet; then
  echo "discover_pr: nothing new since the last run; no pull request needed"
  exit 0
fi

{
  echo "Weekly discovery for $since_day to $until_day: new candidates in \`screening/queue/\` (arXiv search, and new work citing the corpus), and what arXiv learnt about existing entries."
  echo
  echo "Screen them with \`masrl screen\` (ordered by predicted relevance), then commit the decisions to this branch."
  echo
  echo "### New in the queue"
  echo
  git diff --cached --name-only --diff-filter=A -- screening/queue/ | while read -r file; do
    line=$(python -c '
import sys, yaml
data = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
seeds, direction = ", ".join(data.get("via") or []), data.get("direction")
print(data["title"] + (f" (citation searching, {direction} from {seeds})" if seeds else ""))
' "$file")
    echo "- \`$(basename "$file" .yaml)\`: $line"
  done
  if masrl screen --help >/dev/null 2>&1; then
    echo
    echo "### Predicted relevance"
    echo
    echo '```'
    masrl screen list --top 20 --terms 2 2>&1 || echo "(masrl screen could not rank the queue)"
    echo '```'
  fi
  echo
  echo "### masrl discover"
  echo
  echo '```'
  cat "$work/discover.txt"
  echo '```'
  echo
  echo "### masrl snowball (forward citation searching)"
  echo
  echo '```'
  tail -n 40 "$work/snowball.txt"
  echo '```'
  echo
  echo "### Metadata updates from arXiv"
  echo
  if git diff --cached --quiet -- corpus/; then
    echo "None this time."
  else
    echo "New versions, journal references and DOIs written into these entries (review the diff):"
    echo
    git diff --cached --name-only -- corpus/ | while read -r file; do echo "- \`$file\`"; done
  fi
  echo
  echo "### masrl verify-metadata (new versions and journal references of existing entries)"
  echo
  echo '```'
  tail -n 80 "$work/verify.txt"
  echo '```'
} > "$work/body.md"

git -c user.name="masrl discover" -c user.email="masrl-discover@users.noreply.github.com" \
  commit --quiet -m "Discovery $since_day to $until_day: new screening-queue entries and arXiv metadata updates"

if [[ "${DRY_RUN:-}" == "1" ]]; then
  echo "discover_pr: dry run; would push $branch and open or update its pull request with:"
  cat "$work/body.md"
  exit 0
fi

push_and_open_pr discover_pr "$remote" "$branch" "$base" "Discovery: new papers to screen" "$work/body.md"
