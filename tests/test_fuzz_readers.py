"""Fuzzing every reader masrl exposes to untrusted input (traces have their own): whatever the
input, the only failure allowed is a MasrlError (one clear message), never another exception.

Examples per reader: MASRL_FUZZ_EXAMPLES (default 60 times MASRL_PROPERTY_SCALE); run thousands with
    MASRL_FUZZ_EXAMPLES=3000 .venv/bin/python -m pytest tests/test_fuzz_readers.py
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT, entry_data, examples, exclusion_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from masrl.check.validate import validate_project
from masrl.errors import MasrlError
from masrl.model.project import Project

EXAMPLES = int(os.environ.get("MASRL_FUZZ_EXAMPLES", str(examples(60))))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_scalar = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=30)
    | st.sampled_from(
        ["TODO", "NA", "yes", "2026-13-45", "0x7EA", "../x", "\x1b[2J", "\u202e", "=1+1", "10.1/}"]
    )
)
_value = st.recursive(
    _scalar,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_yaml_alphabet = st.sampled_from(
    list("ab01 :-[]{},#&*!|>'\"%@`?\n\t\\")
    + ["key: ", "- ", "title: ", "  ", "!!python/object:os.system", "&a ", "*a"]
)
_yaml_text = st.lists(_yaml_alphabet, max_size=60).map("".join)


class Checkout:
    """One scratch checkout with the real taxonomy, reused across examples."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="masrl-fuzz-"))
        shutil.copytree(REPO_ROOT / "taxonomy", self.root / "taxonomy")
        (self.root / "corpus").mkdir()
        (self.root / "exclusions").mkdir()
        self.project = Project(self.root)

    def reset(self):
        for folder in ("corpus", "exclusions"):
            shutil.rmtree(self.root / folder)
            (self.root / folder).mkdir()


@pytest.fixture(scope="module")
def checkout():
    scratch = Checkout()
    yield scratch
    shutil.rmtree(scratch.root)


def _only_masrl_errors(action):
    try:
        return action()
    except MasrlError:
        return None


def _mutated(base: dict, draw_changes: dict) -> dict:
    data = dict(base)
    for name, value in draw_changes.items():
        if value == "<drop>":
            data.pop(name, None)
        else:
            data[name] = value
    return data


_entry_fields = st.sampled_from(list(entry_data()) + ["unknown_field"])
_exclusion_fields = st.sampled_from(list(exclusion_data()) + ["unknown_field"])


@FUZZ
@given(
    changes=st.dictionaries(_entry_fields, _value | st.just("<drop>"), max_size=5),
    excl_changes=st.dictionaries(_exclusion_fields, _value | st.just("<drop>"), max_size=5),
)
def test_validate_survives_any_entry_and_exclusion_values(checkout, changes, excl_changes):
    checkout.reset()
    entry = _mutated(entry_data("fuzz2025"), changes)
    exclusion = _mutated(exclusion_data("E001"), excl_changes)
    (checkout.root / "corpus" / "fuzz2025.yaml").write_text(
        yaml.safe_dump(entry, allow_unicode=True), encoding="utf-8"
    )
    (checkout.root / "exclusions" / "E001.yaml").write_text(
        yaml.safe_dump(exclusion, allow_unicode=True), encoding="utf-8"
    )
    report = validate_project(checkout.project)
    report.render("text"), report.render("github"), report.render("json")


@FUZZ
@given(text=_yaml_text | st.text(max_size=200))
def test_validate_survives_any_yaml_text(checkout, text):
    checkout.reset()
    (checkout.root / "corpus" / "fuzz2025.yaml").write_text(text, encoding="utf-8")
    (checkout.root / "exclusions" / "E001.yaml").write_text(text, encoding="utf-8")
    validate_project(checkout.project).render("text")


@pytest.fixture(scope="module")
def taxonomy_copy(tmp_path_factory):
    """A copy of the real taxonomy, whose one file an example replaces and then puts back."""
    folder = tmp_path_factory.mktemp("fuzz-taxonomy") / "taxonomy"
    shutil.copytree(REPO_ROOT / "taxonomy", folder)
    return folder


@FUZZ
@given(
    axis=st.sampled_from(["categories.yaml", "rules.yaml", "reward_types.yaml"]),
    text=_yaml_text,
    structured=st.none() | _value,
)
def test_taxonomy_loading_survives_any_file(taxonomy_copy, axis, text, structured):
    from masrl.model.taxonomy import load_taxonomy

    path = taxonomy_copy / axis
    original = path.read_bytes()
    body = yaml.safe_dump(structured) if structured is not None else text
    try:
        path.write_text(body, encoding="utf-8")
        _only_masrl_errors(lambda: load_taxonomy(taxonomy_copy))
    finally:
        path.write_bytes(original)  # the next example starts from the real taxonomy again


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    from conftest import write_entry, write_exclusion
    from masrl.check.validate import load_corpus

    root = tmp_path_factory.mktemp("ledger-corpus")
    shutil.copytree(REPO_ROOT / "taxonomy", root / "taxonomy")
    write_entry(root, entry_data("alpha2025"))
    write_exclusion(root, exclusion_data("E001"))
    return load_corpus(Project(root))


@FUZZ
@given(
    claims=st.lists(
        st.dictionaries(
            st.sampled_from(["id", "statement", "query", "expect", "entries", "where"]),
            _value,
            max_size=5,
        ),
        max_size=3,
    )
    | _value
)
def test_ledger_loading_survives_any_file(small_corpus, claims):
    from masrl.derive.claims import evaluate_claim, load_ledger

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "ledger.yaml"
        path.write_text(
            yaml.safe_dump({"claims": claims} if isinstance(claims, list) else claims),
            encoding="utf-8",
        )
        found = _only_masrl_errors(lambda: load_ledger(path, small_corpus))
        if found is not None:
            for claim in found:
                _only_masrl_errors(lambda claim=claim: evaluate_claim(claim, small_corpus))


_csv_cell = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12
) | st.sampled_from(
    ["NA", "2025", "2_026", "9" * 5000, "../../x", "rl_method", '["Doe, J"]', "true", "'=1", "\x00"]
)


@functools.cache
def _csv_headers() -> dict[str, tuple]:
    from masrl.exports.csv import EXCLUSIONS_HEADER, PAPERS_HEADER, full_papers_header
    from masrl.model.taxonomy import load_taxonomy

    return {
        "papers": PAPERS_HEADER,
        "full": full_papers_header(load_taxonomy()),
        "exclusions": EXCLUSIONS_HEADER,
        "junk": ("a", "b"),
    }


@FUZZ
@given(
    rows=st.lists(st.lists(_csv_cell, min_size=0, max_size=32), max_size=4),
    header=st.sampled_from(["papers", "full", "exclusions", "junk"]),
)
def test_csv_import_survives_any_rows(checkout, rows, header):
    import csv
    import io

    from masrl.imports.csv import plan_import

    columns = _csv_headers()[header]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(
            (row + [""] * len(columns))[: len(columns)] if row and len(row) % 3 else row
        )
    checkout.reset()
    source = checkout.root / "in.csv"
    source.write_text(buffer.getvalue(), encoding="utf-8")
    _only_masrl_errors(lambda: plan_import(source, checkout.project, force=True))


_bib_piece = st.sampled_from(
    [
        "@article{",
        "@misc{",
        "key,",
        "title={",
        "author={",
        "year={",
        "2025",
        "}",
        "{",
        ",",
        "=",
        '"',
        "doi={10.1/x}",
        "url={\\url{https://x.org}}",
        "eprint={2508.04652}",
        "and others",
        "\\'{e}",
        "@comment{",
        "@string{a=",
        "#",
        "%",
        "\n",
        " ",
    ]
)


@FUZZ
@given(pieces=st.lists(_bib_piece, max_size=40) | st.text(max_size=100).map(lambda t: [t]))
def test_bib_import_survives_any_text(checkout, pieces):
    from masrl.imports.bibtex import plan_bib_import

    checkout.reset()
    source = checkout.root / "in.bib"
    source.write_text("".join(pieces), encoding="utf-8")
    _only_masrl_errors(lambda: plan_bib_import(source, checkout.project, force=True))


_xml_piece = st.sampled_from(
    [
        '<?xml version="1.0"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        "</feed>",
        "<entry>",
        "</entry>",
        "<id>http://arxiv.org/abs/2508.04652v1</id>",
        "<title>T</title>",
        "<published>2025-01-01T00:00:00Z</published>",
        "<published>never</published>",
        "<updated>2025-01-02T00:00:00Z</updated>",
        "<author><name>A B</name></author>",
        "<summary>s</summary>",
        "<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>",
        "&e;",
        "<",
        "&",
    ]
)


@FUZZ
@given(pieces=st.lists(_xml_piece, max_size=25))
def test_arxiv_answers_are_checked_without_tracebacks(pieces):
    from masrl.imports.arxiv import ArxivBadAnswer, ArxivRequestRejected, check_answer

    body = "".join(pieces).encode("utf-8")
    try:
        check_answer(body)
    except (ArxivBadAnswer, ArxivRequestRejected):
        pass


@FUZZ
@given(stored=_value, raw=st.binary(max_size=80))
def test_cache_files_are_a_miss_or_a_hit_never_a_crash(stored, raw):
    import json

    from masrl.imports.verify_metadata import MetadataCache

    with tempfile.TemporaryDirectory() as scratch:
        cache = MetadataCache(Path(scratch), dt.timedelta(days=30))
        path = cache.path_for("2508.04652")
        for content in (json.dumps(stored, default=str).encode(), raw):
            # as written by anyone, and as sealed with the key: authentic files are read warily too
            for write in (path.write_bytes, lambda data: cache.sealed.put(path.name, data)):
                write(content)
                assert (
                    cache.get("2508.04652") is None
                    or cache.get("2508.04652").arxiv_id == "2508.04652"
                )
