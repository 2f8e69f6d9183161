"""Hostile files and servers end in one clear message naming the file (and line), never a crash,
a hang, a traceback or unbounded memory."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import REPO_ROOT, entry_data, examples, write_entry
from fixtures.arxiv.fake_arxiv import API_PATH, FakeArxiv, papers_handler
from hypothesis import given, settings
from hypothesis import strategies as st
from masrl.check.validate import validate_project
from masrl.cli import main
from masrl.errors import InputError
from masrl.files import read_regular_bytes
from masrl.imports.add import AddRefused, add_paper
from masrl.imports.arxiv import (
    ArxivBadAnswer,
    ArxivRedirected,
    ArxivSettings,
    ArxivTimeout,
    ArxivTooLarge,
)
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.project import Project
from masrl.model.taxonomy import TaxonomyError, load_taxonomy
from werkzeug import Response

runner = CliRunner()


def _messages(project: Project) -> list[str]:
    return [f"{p.path}:{p.line}: {p.message}" for p in validate_project(project).errors]


def _write(project: Project, name: str, text: str) -> Path:
    path = project.corpus_dir / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# YAML


# libyaml (the C loader) and the pure-Python loader: PyYAML 6.0.4's libyaml refuses deep flow
# nesting with a message of its own, 6.0.3's does not, and a PyYAML built without libyaml has only
# the pure-Python parser. Whichever layer notices first, the user reads masrl's one message.
@pytest.mark.parametrize("base_loader", ["libyaml", "pure-python"])
def test_deep_nesting_is_refused_at_its_line_without_crashing(
    mini_project, monkeypatch, base_loader
):
    if base_loader == "pure-python":
        monkeypatch.setattr(yamlio, "_BaseLoader", yaml.SafeLoader)
    _write(mini_project, "deep.yaml", "key: deep\ntitle: " + "[" * 25_000 + "]" * 25_000 + "\n")
    _write(mini_project, "dashes.yaml", "key: dashes\ntags:\n  " + "- " * 5_000 + "x\n")
    messages = _messages(mini_project)
    assert "corpus/deep.yaml:2: the data nests deeper than 100 levels" in messages
    assert "corpus/dashes.yaml:3: the data nests deeper than 100 levels" in messages


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


_nested = st.recursive(
    st.none() | st.integers() | st.text(alphabet="ab -:?[]{}#'\"", max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=40,
)


@settings(max_examples=examples(100, deep=200), deadline=None, derandomize=True)
@given(value=_nested, flow=st.sampled_from([None, True, False]), indent=st.sampled_from([2, 3, 4]))
def test_the_nesting_bound_is_never_below_the_real_depth(value, flow, indent):
    """check_depth skips its event parse when the bound is small: the bound must hold for every
    layout, block or flow, indented or not."""
    text = yaml.safe_dump(value, default_flow_style=flow, indent=indent, width=40)
    for layout in (text, text.replace("\n  ", "\n")):  # also lists written without indentation
        try:
            real = _depth(yaml.safe_load(layout))
        except yaml.YAMLError:
            continue
        assert yamlio._nesting_bound(layout) >= real, layout


def test_record_files_need_no_second_parse_for_their_depth():
    entry = (REPO_ROOT / "corpus").glob("*.yaml")
    assert all(
        yamlio._nesting_bound(path.read_text(encoding="utf-8")) <= yamlio.MAX_DEPTH
        for path in entry
    )
    assert yamlio._nesting_bound("- - - - a: b\n      c: [d, [e]]\n") >= 6
    assert yamlio._nesting_bound("a:\r  b:\r    c: 1\r") >= 3  # other line breaks: the coarse count


@settings(max_examples=examples(100, deep=300), deadline=None, derandomize=True)
@given(value=st.text(alphabet="-+.0123456789eExXoO_:<=~!&*nNuUlLtTrRfFaAsSyY \t", max_size=8))
def test_the_resolver_reads_plain_scalars_as_pyyaml_would(value):
    """The reader's own resolve() (every scalar goes through it) gives PyYAML's answer for the
    reader's table of implicit types, plain or quoted, every time it is asked."""
    loader = yamlio._StrictLoader("")
    try:  # each twice: the second answer may come from what the reader remembers
        for implicit in ((True, False), (False, True), (False, False)) * 2:
            assert loader.resolve(
                yaml.ScalarNode, value, implicit
            ) == yaml.resolver.BaseResolver.resolve(loader, yaml.ScalarNode, value, implicit)
    finally:
        loader.dispose()


_url_tail = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F) | st.sampled_from("é\u00a0\u3000"),
    max_size=12,
)


@settings(max_examples=examples(100, deep=500), deadline=None, derandomize=True)
@given(
    head=st.sampled_from(
        ["https://", "http://", "HTTPS://", "ftp://", "https://a.org", "", "http://x-y.b"]
    ),
    tail=_url_tail,
)
def test_plain_links_pass_the_url_checks_they_skip(head, tail):
    """check_url lets a plain address through at once: only one every check passes."""
    url = head + tail
    if ids._PLAIN_URL.fullmatch(url):
        saved, ids._PLAIN_URL = ids._PLAIN_URL, re.compile(r"(?!)")
        try:
            assert ids.check_url(url) is None, url
        finally:
            ids._PLAIN_URL = saved


def test_numbers_are_plain_decimal_and_short(mini_project):
    _write(mini_project, "huge.yaml", "key: huge\nyear: " + "9" * 5_000 + "\n")
    for key, year in (("hexyear", "0x7EA"), ("underscore", "2_026"), ("sexagesimal", "33:46")):
        write_entry(mini_project.root, entry_data(key))
        path = mini_project.corpus_dir / f"{key}.yaml"
        path.write_text(
            path.read_text(encoding="utf-8").replace("year: 2025", f"year: {year}"),
            encoding="utf-8",
        )
    messages = "\n".join(_messages(mini_project))
    assert "corpus/huge.yaml:2: the number on this line has 5000 digits" in messages
    for year in ("0x7EA", "2_026", "33:46"):
        assert f"'year' must be a whole number, got str '{year}'" in messages
    assert yamlio.loads(yamlio.dumps({"a": "1e3", "b": "0x7EA"})) == {"a": "1e3", "b": "0x7EA"}


def test_nested_lists_where_tags_belong_are_type_errors(mini_project):
    write_entry(
        mini_project.root,
        entry_data("nested2025", reward_types=[["shared"], {"a": 1}], sub_decisions=[[]]),
    )
    messages = "\n".join(_messages(mini_project))
    assert "'reward_types' must be one of" in messages and "['shared']" in messages


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "loop", "outside", "folder"])
def test_only_regular_files_inside_the_tree_are_read(mini_project, tmp_path, kind):
    path = mini_project.corpus_dir / "odd.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "outside":
        outside = tmp_path.parent / f"{tmp_path.name}-secret.yaml"
        outside.write_text("key: odd\n", encoding="utf-8")
        path.symlink_to(outside)
    else:
        path.mkdir()
    # Reaching the assertions at all is the proof: reading /dev/zero or waiting on the FIFO never returns.
    result = runner.invoke(main, ["validate", "--root", str(mini_project.root)])
    assert (
        result.exit_code == 1
        and result.exception is None
        or isinstance(result.exception, SystemExit)
    )
    assert "corpus/odd.yaml:1: error:" in result.output, result.output


def test_stray_files_in_the_data_folders_are_reported(mini_project):
    (mini_project.corpus_dir / "delta.yml").write_text("key: delta\n", encoding="utf-8")
    (mini_project.corpus_dir / "drafts").mkdir()
    (mini_project.corpus_dir / "notes.txt").write_text("x", encoding="utf-8")
    (mini_project.corpus_dir / ".gitkeep").write_text("", encoding="utf-8")
    report = validate_project(mini_project)
    found = {(p.path, p.severity) for p in report.problems}
    assert ("corpus/delta.yml", "error") in found and ("corpus/drafts", "error") in found
    assert ("corpus/notes.txt", "warning") in found and not any(
        ".gitkeep" in p.path for p in report.problems
    )


def test_a_rule_naming_an_unknown_field_is_reported(mini_project):
    rules = mini_project.root / "taxonomy" / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8")
        + "  - id: typo-rule\n    when: {categorie: [benchmark]}\n"
        "    then: {evaluation_measures: '*'}\n    message: x\n    hint: y\n",
        encoding="utf-8",
    )
    problems = [p for p in validate_project(mini_project).errors if p.code == "rule-field"]
    assert (
        len(problems) == 1
        and "'categorie'" in problems[0].message
        and problems[0].path == "taxonomy/rules.yaml"
    )
    assert problems[0].line > 1


@pytest.mark.parametrize(
    ("file", "text", "expected"),
    [
        ("categories.yaml", "- a\n- b\n", "categories.yaml:1: expected a mapping"),
        ("categories.yaml", "values:\n  - 3\n", "categories.yaml:2: each value must be a mapping"),
        (
            "categories.yaml",
            "values:\n  - {id: a, label: A, definition: d, order: first}\n",
            "'order' must be a whole number",
        ),
        ("rules.yaml", "- 1\n", "rules.yaml:1: expected a mapping"),
        ("rules.yaml", "rules: {a: 1}\n", "rules.yaml:1: 'rules' must be a list"),
        ("rules.yaml", "rules:\n  - 7\n", "rules.yaml:2: each rule must be a mapping"),
    ],
)
def test_taxonomy_files_of_the_wrong_type_are_one_message(mini_project, file, text, expected):
    (mini_project.root / "taxonomy" / file).write_text(text, encoding="utf-8")
    with pytest.raises(TaxonomyError, match=expected.replace(".", r"\.")):
        load_taxonomy(mini_project.root / "taxonomy")
    result = runner.invoke(main, ["validate", "--root", str(mini_project.root)])
    assert (
        result.exit_code == 1
        and "error: taxonomy:" in result.output
        and "Traceback" not in result.output
    )


@pytest.mark.parametrize(
    "ledger",
    [
        "- 1\n",
        "claims: 3\n",
        "claims:\n  - [1, 2]\n",
        "claims:\n  - {id: 5, query: {}}\n",
        "claims:\n  - id: c1\n    statement: s\n    query: {count: [1]}\n    expect: 1\n",
    ],
)
def test_ledger_files_of_the_wrong_type_are_one_message(mini_project, ledger):
    from masrl.check.validate import load_corpus
    from masrl.derive.claims import LedgerError, load_ledger

    path = mini_project.root / "ledger.yaml"
    path.write_text(ledger, encoding="utf-8")
    with pytest.raises(LedgerError):
        load_ledger(path, load_corpus(mini_project))


# ---------------------------------------------------------------------------------------------
# add: the network


def _settings(httpserver, **overrides) -> ArxivSettings:
    values = dict(
        api_url=httpserver.url_for(API_PATH), timeout=2.0, retries=0, backoff=0.0, delay=0.0
    )
    values.update(overrides)
    return ArxivSettings(**values)


def _corpus_files(project: Project) -> list[str]:
    return sorted(p.name for p in project.corpus_dir.iterdir())


def test_a_dripping_server_is_cut_off_by_one_total_deadline(mini_project, httpserver):
    def drip(request):
        def body():
            for _ in range(30):
                yield b" "
                time.sleep(0.1)

        return Response(body(), status=200, content_type="application/atom+xml")

    httpserver.expect_request(API_PATH).respond_with_handler(drip)
    before = _corpus_files(mini_project)
    # Each byte comes well within the 1 s read timeout: only the total deadline can stop this.
    with pytest.raises(ArxivTimeout, match="deadline"):
        add_paper(
            mini_project,
            "2510.99902",
            _settings(httpserver, timeout=1.0, deadline=0.6),
            sleep=lambda s: None,
        )
    assert _corpus_files(mini_project) == before


@pytest.mark.parametrize("compressed", [False, True])
def test_a_huge_answer_is_not_buffered(mini_project, httpserver, compressed):
    body = b"<feed>" + b" " * 3_000_000 + b"</feed>"
    headers = {"Content-Encoding": "gzip"} if compressed else {}
    httpserver.expect_request(API_PATH).respond_with_data(
        gzip.compress(body) if compressed else body, headers=headers
    )
    with pytest.raises(ArxivTooLarge, match="larger than 1000000 bytes"):
        add_paper(
            mini_project,
            "2510.99902",
            _settings(httpserver, max_bytes=1_000_000),
            sleep=lambda s: None,
        )


def test_redirects_are_followed_only_within_the_same_host(mini_project, httpserver):
    httpserver.expect_ordered_request(API_PATH).respond_with_data(
        "", status=302, headers={"Location": "http://127.0.0.2:9/api/query?id_list=2510.99902"}
    )
    with pytest.raises(ArxivRedirected, match="127.0.0.2:9"):
        add_paper(mini_project, "2510.99902", _settings(httpserver), sleep=lambda s: None)
    httpserver.clear()
    httpserver.expect_ordered_request(API_PATH).respond_with_data(
        "",
        status=302,
        headers={
            "Location": httpserver.url_for("/moved") + "?id_list=2510.99902&start=0&max_results=1"
        },
    )
    httpserver.expect_request("/moved").respond_with_handler(papers_handler)
    result = add_paper(mini_project, "2510.99902", _settings(httpserver), sleep=lambda s: None)
    assert result.path.exists()


def _feed_with(httpserver, replace: tuple[str, str]):
    def handler(request):
        response = papers_handler(request)
        response.set_data(response.get_data().replace(replace[0].encode(), replace[1].encode()))
        return response

    httpserver.expect_request(API_PATH).respond_with_handler(handler)


def test_an_unparseable_published_date_is_a_bad_answer(mini_project, httpserver):
    _feed_with(
        httpserver,
        ("<published>2025-10-21T12:00:05Z</published>", "<published>last tuesday</published>"),
    )
    before = _corpus_files(mini_project)
    with pytest.raises((ArxivBadAnswer, AddRefused)):
        add_paper(mini_project, "2510.99902", _settings(httpserver), sleep=lambda s: None)
    assert _corpus_files(mini_project) == before


def test_an_answer_without_authors_is_described_without_crashing(mini_project, httpserver):
    import re

    def handler(request):
        response = papers_handler(request)
        response.set_data(re.sub(rb"<author>.*?</author>", b"", response.get_data(), flags=re.S))
        return response

    httpserver.expect_request(API_PATH).respond_with_handler(handler)
    result = runner.invoke(
        main,
        [
            "add",
            "2510.99902",
            "--root",
            str(mini_project.root),
            "--api-url",
            httpserver.url_for(API_PATH),
            "--delay",
            "0",
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "no authors listed" in result.output


def test_a_tampered_cache_file_is_a_miss_not_a_crash(tmp_path):
    import datetime as dt

    from masrl.imports.verify_metadata import MetadataCache

    cache = MetadataCache(tmp_path, dt.timedelta(days=30))
    for text in (
        '{"fetched_at": "2026-01-01T00:00:00", "metadata": {}}',
        '{"fetched_at": "2026-01-01T00:00:00+00:00", "metadata": {"arxiv_id": 5}}',
        '{"fetched_at": "2026-01-01T00:00:00+00:00", "metadata": {"arxiv_id": "2510.99902", "version": "v1", '
        '"title": ["x"], "authors": [], "published": "2025-01-01", "updated": "2025-01-01"}}',
        "[1, 2]",
        "\u0000garbage",
        '{"fetched_at": 3}',
    ):
        cache.path_for("2510.99902").write_text(text, encoding="utf-8")
        assert cache.get("2510.99902") is None
    os.unlink(cache.path_for("2510.99902"))
    os.mkfifo(cache.path_for("2510.99902"))
    assert cache.get("2510.99902") is None
    assert FakeArxiv  # the recorded-feed server module stays importable


def test_a_file_is_read_whole_up_to_the_limit_and_refused_over_it(tmp_path):
    path = tmp_path / "data.yaml"
    path.write_bytes(b"x" * 100)
    assert read_regular_bytes(path, tmp_path, limit=100) == b"x" * 100
    with pytest.raises(InputError, match="over the limit of 99"):
        read_regular_bytes(path, tmp_path, limit=99)


def test_a_sibling_folder_sharing_the_name_prefix_is_outside(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus-evil").mkdir()
    (tmp_path / "corpus-evil" / "a.yaml").write_text("key: a\n", encoding="utf-8")
    (tmp_path / "corpus" / "a.yaml").symlink_to(tmp_path / "corpus-evil" / "a.yaml")
    with pytest.raises(InputError, match="refusing to read outside"):
        read_regular_bytes(tmp_path / "corpus" / "a.yaml", tmp_path / "corpus")
    assert read_regular_bytes(tmp_path / "corpus-evil" / "a.yaml", tmp_path) == b"key: a\n"


def _dripping(seconds: int, gap: float = 0.2):
    """A handler that sends a byte every ``gap`` seconds for ``seconds``: every wait is far
    within the read timeout, so only a total deadline on the request stops it."""

    def drip(request):
        def body():
            for _ in range(int(seconds / gap)):
                yield b" "
                time.sleep(gap)

        return Response(body(), status=200, content_type="application/json")

    return drip


@pytest.fixture
def drip_server():
    """A server of its own, one thread per request: the session's shared server serves one
    request at a time, and a drip still running there would hold the next test's request."""
    from pytest_httpserver import HTTPServer

    server = HTTPServer(threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


def test_the_timeout_bounds_a_whole_arxiv_request_not_each_byte(mini_project, drip_server):
    """Issue 34: a server sending a byte a second held `masrl add` for the 120 s deadline,
    whatever --timeout said. Now --timeout bounds the request, body included."""
    drip_server.expect_request(API_PATH).respond_with_handler(_dripping(60))
    before = _corpus_files(mini_project)
    started = time.monotonic()
    result = runner.invoke(
        main,
        ["add", "2510.99902", "--root", str(mini_project.root), "--timeout", "1"]
        + ["--retries", "0", "--delay", "0", "--api-url", drip_server.url_for(API_PATH)],
    )
    # 1 s and the command's own start, not the 60 s drip (wide margin: a loaded CI machine)
    assert time.monotonic() - started < 20
    assert result.exit_code != 0 and "within the 1 s timeout" in result.output, result.output
    assert "Traceback" not in result.output and _corpus_files(mini_project) == before


OPENALEX_CALL = """
import sys
from masrl.imports.openalex import OpenAlexClient, OpenAlexError, OpenAlexSettings
settings = OpenAlexSettings(api_url=sys.argv[1], timeout=1.0, retries=0, delay=0.0, backoff=0.0)
try:
    OpenAlexClient(settings, sleep=lambda s: None).work("W1")
except OpenAlexError as exc:
    print(exc)
"""


def test_the_timeout_bounds_a_whole_openalex_request_not_each_byte(drip_server):
    # In a process of its own, as a command runs it: in the suite's worker the same call once
    # waited for the whole drip, through state that earlier tests leave in the process.
    drip_server.expect_request("/works/W1").respond_with_handler(_dripping(60))
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", OPENALEX_CALL, drip_server.url_for("/")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "tools")},
    )
    assert "did not send its whole answer within 1 s" in done.stdout, done.stdout + done.stderr
    assert time.monotonic() - started < 20  # the 1 s deadline, not the 60 s drip


def test_a_missing_file_is_file_not_found_and_a_broken_link_a_yaml_error(tmp_path):
    """load_file tells a file that is not there (FileNotFoundError, which callers take for
    'absent') from a name that is there and cannot be read (a YamlError naming why)."""
    (tmp_path / "file.yaml").write_text("a: 1\n", encoding="utf-8")
    (tmp_path / "dangling.yaml").symlink_to(tmp_path / "gone.yaml")
    (tmp_path / "loop.yaml").symlink_to(tmp_path / "loop.yaml")
    for missing in ("missing.yaml", "file.yaml/under.yaml"):
        with pytest.raises(FileNotFoundError) as caught:
            yamlio.load_file(tmp_path / missing)
        assert caught.value.filename == str(tmp_path / missing)
    for broken in ("dangling.yaml", "loop.yaml"):
        with pytest.raises(yamlio.YamlError):
            yamlio.load_file(tmp_path / broken)
    assert yamlio.load_file(tmp_path / "file.yaml") == {"a": 1}
