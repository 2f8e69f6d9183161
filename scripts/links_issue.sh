#!/usr/bin/env bash
# Open ONE issue listing the dead links of the weekly link check, or comment on the open one.
# Usage: links_issue.sh REPORT.md   (written by `masrl links check --broken-report`; empty = none)
# Needs gh with GH_TOKEN and GH_REPO in the environment.
set -euo pipefail

report=${1:?usage: links_issue.sh REPORT.md}
title="Dead links found by the weekly link check"

if [[ ! -s "$report" ]]; then
  echo "no dead links"
  exit 0
fi
open_issue=$(gh issue list --state open --search "in:title \"$title\"" --json number,title \
  --jq "map(select(.title == \"$title\")) | .[0].number // empty")
if [[ -n "$open_issue" ]]; then
  gh issue comment "$open_issue" --body-file "$report"
  echo "commented on issue #$open_issue"
else
  gh issue create --title "$title" --body-file "$report"
fi
