# Shared by the scripts that open a pull request from a workflow (discover_pr.sh, update_lock_pr.sh):
# source it, then call the functions. Reads GH_TOKEN, GITHUB_REPOSITORY and REMOTE_URL.

# Where the branch is pushed: REMOTE_URL, or the GitHub repository with the workflow's token.
pr_remote() {
  if [[ -n "${REMOTE_URL:-}" ]]; then
    echo "$REMOTE_URL"
  elif [[ -n "${GH_TOKEN:-}" && -n "${GITHUB_REPOSITORY:-}" ]]; then
    echo "https://x-access-token:${GH_TOKEN}@github.com/${GITHUB_REPOSITORY}.git"
  fi
}

# push_and_open_pr NAME REMOTE BRANCH BASE TITLE BODY_FILE [PUSH_FLAGS...]: push HEAD to BRANCH,
# then update the open pull request of BRANCH into BASE, or open one.
push_and_open_pr() {
  local name=$1 remote=$2 branch=$3 base=$4 title=$5 body=$6
  shift 6
  : "${GH_TOKEN:?GH_TOKEN must hold a token with contents and pull-requests write}"
  : "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY must name owner/repo}"
  git push --quiet "$@" "$remote" "HEAD:refs/heads/$branch"
  local number
  number=$(gh pr list --head "$branch" --base "$base" --state open --json number --jq '.[0].number // empty')
  if [[ -n "$number" ]]; then
    gh pr edit "$number" --body-file "$body"
    echo "$name: updated pull request #$number"
  else
    gh pr create --head "$branch" --base "$base" --title "$title" --body-file "$body"
  fi
}
