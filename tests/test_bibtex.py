"""BibTeX export/import (bibtexparser 2) and the JSON export."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import bibtexparser
import pytest
from click.testing import CliRunner
from conftest import REAL_ENTRIES, REAL_EXCLUSIONS, REPO_ROOT, entry_data, write_entry
from masrl.check.validate import load_corpus, validate_project
from masrl.cli import main
from masrl.exports.bibtex import BibtexError, export_bibtex, protect_title
from masrl.exports.json import export_json
from masrl.imports.bibtex import parse_bibtex, plan_bib_import
from masrl.imports.csv import apply_plan
from masrl.model import yamlio
from masrl.model.project import Project
from masrl.model.records import PLACEHOLDER, entry_from_data
from shared_corpus import live_corpus

runner = CliRunner()


@pytest.fixture(scope="module")
def corpus():
    return live_corpus()


@pytest.fixture(scope="module")
def exported(corpus) -> str:
    return export_bibtex(corpus.entries)


def block(text: str, key: str) -> str:
    start = text.index("{" + key + ",")
    return text[text.rindex("@", 0, start) : text.index("\n}\n", start) + 3]


# ---------------------------------------------------------------------------------------------
# Export


def test_export_then_parse_gives_back_every_field_of_every_real_entry(corpus, exported):
    records = {r.bib_key: r for r in parse_bibtex(exported)}
    assert len(corpus.entries) == REAL_ENTRIES and sorted(records) == sorted(
        e.key for e in corpus.entries
    )
    for entry in corpus.entries:
        record = records[entry.key]
        assert record.title == entry.title, entry.key
        assert tuple(record.authors) == entry.authors, entry.key
        assert record.authors_complete == entry.authors_complete, entry.key
        assert record.year == entry.year, entry.key
        assert record.venue == entry.venue, entry.key
        assert record.identifiers == entry.identifiers, entry.key
        assert tuple(record.urls) == entry.urls, entry.key


def test_export_is_sorted_by_key_and_deterministic(corpus, exported):
    keys = [e.key for e in bibtexparser.parse_string(exported).entries]
    assert keys == sorted(keys)
    assert export_bibtex(list(reversed(corpus.entries))) == exported


def test_a_journal_article_in_full(exported):
    assert block(exported, "dec-pomdp2002") == (
        "@article{dec-pomdp2002,\n"
        "  author = {Bernstein, Daniel S. and Givan, Robert and Immerman, Neil and Zilberstein, Shlomo},\n"
        "  title = {The Complexity of Decentralized Control of Markov Decision Processes},\n"
        "  journal = {Mathematics of Operations Research},\n"
        "  year = {2002},\n"
        "  doi = {10.1287/moor.27.4.819.297},\n"
        "  url = {https://pubsonline.informs.org/doi/10.1287/moor.27.4.819.297},\n"
        "}\n"
    )


@pytest.mark.parametrize(
    ("key", "lines"),
    [
        (
            "agentdojo2024",
            [
                "@inproceedings{agentdojo2024,",
                "booktitle = {NeurIPS Datasets and Benchmarks 2024},",
                "Balunovi{\\'c}, Mislav",
                "Tram{\\`e}r, Florian",
                "title = {{AgentDojo}: A Dynamic Environment",
                "for {LLM} Agents}",
            ],
        ),
        (
            "magrpo",
            [
                "@misc{magrpo,",
                "howpublished = {arXiv},",
                "eprint = {2508.04652},",
                "archivePrefix = {arXiv},",
                "url = {https://arxiv.org/abs/2508.04652},",
            ],
        ),
        (
            "kimi-k2-5",
            [
                "@techreport{kimi-k2-5,",
                "author = {{Kimi Team}},",
                "type = {Technical report},",
                "institution = {Moonshot AI},",
                "title = {Kimi {K2.5}: Visual",
            ],
        ),
        (
            "openai-codex",
            [
                "@misc{openai-codex,",
                "author = {{OpenAI}},",
                "howpublished = {Blog},",
                "addendum = {\\url{https://openai.com/index/introducing-the-codex-app/}},",
            ],
        ),
        ("dr-mas", ["author = {Feng, Lang and others},", "title = {Dr. {MAS}: Stable"]),
        (
            "anthropic-c-compiler",
            ["title = {Building a {C} compiler with a team of parallel {Claudes}},"],
        ),
        ("gaia2023", ["Mialon, Gr{\\'e}goire", "Fourrier, Cl{\\'e}mentine"]),
    ],
)
def test_entry_types_fields_and_escapes(exported, key, lines):
    text = block(exported, key)
    for line in lines:
        assert line in text, (line, text)


def synthetic_entry(**overrides):
    data = entry_data(
        "special2025",
        title="Q&A on 50% of a_b: {Braces}, #tags, $5 and the Élan of LLMs",
        authors=["Tramèr, Florian", "Kimi Team", "Ødegaard, Ståle"],
        authors_complete=False,
        urls=["https://example.org/a_b%20c?x=1#frag"],
        identifiers={"arxiv": "2509.99901", "doi": "10.1000/a_b", "openreview": "ur295YVtmt"},
    )
    data.update(overrides)
    return entry_from_data(data)


def test_special_characters_are_escaped_and_links_kept_verbatim():
    text = export_bibtex([synthetic_entry()])
    assert (
        "title = {{Q\\&A} on 50\\% of a\\_b: \\{Braces\\}, \\#tags, \\$5 and the {\\'E}lan of {LLMs}},"
        in text
    )
    assert (
        "author = {Tram{\\`e}r, Florian and {Kimi Team} and {\\O}degaard, St{\\r{a}}le and others},"
        in text
    )
    assert "url = {https://example.org/a_b%20c?x=1#frag}," in text
    assert "doi = {10.1000/a_b}," in text and "openreview = {ur295YVtmt}," in text
    (record,) = parse_bibtex(text)
    assert record.title == "Q&A on 50% of a_b: {Braces}, #tags, $5 and the Élan of LLMs"
    assert record.authors == ["Tramèr, Florian", "Kimi Team", "Ødegaard, Ståle"]
    assert record.authors_complete is False
    assert record.urls == ["https://example.org/a_b%20c?x=1#frag"]
    assert record.identifiers == {
        "arxiv": "2509.99901",
        "doi": "10.1000/a_b",
        "openreview": "ur295YVtmt",
    }


def test_field_order_is_fixed():
    text = export_bibtex([synthetic_entry(venue="ICML 2025", evidence_level="peer_reviewed")])
    names = [line.split(" = ")[0].strip() for line in text.splitlines()[1:-1]]
    assert names == [
        "author",
        "title",
        "booktitle",
        "year",
        "eprint",
        "archivePrefix",
        "doi",
        "openreview",
        "url",
    ]


@pytest.mark.parametrize(
    ("title", "protected"),
    [
        ("LLM-based Agents", "{LLM}-based Agents"),
        ("ReAct: Synergizing Reasoning", "{ReAct}: Synergizing Reasoning"),
        ("The DEC-POMDP (MAS) view", "The {DEC}-{POMDP} ({MAS}) view"),
        (
            "Learning to route messages in Markov games",
            "Learning to route messages in {Markov} games",
        ),
        (
            "Learning To Route Messages In Markov Games",
            "Learning To Route Messages In Markov Games",
        ),
    ],
)
def test_capitals_a_style_must_keep_are_braced(title, protected):
    marked = protect_title(title).replace("\ue000", "{").replace("\ue001", "}")
    assert marked == protected


# ---------------------------------------------------------------------------------------------
# Import


def taxonomy_only(tmp_path: Path) -> Project:
    shutil.copytree(REPO_ROOT / "taxonomy", tmp_path / "taxonomy")
    return Project(tmp_path)


def test_importing_the_export_scaffolds_every_entry_with_tag_placeholders(
    tmp_path, exported, corpus
):
    project = taxonomy_only(tmp_path)
    source = tmp_path / "corpus.bib"
    source.write_text(exported, encoding="utf-8")
    plan = plan_bib_import(source, project)
    assert (plan.count("create"), plan.skipped) == (REAL_ENTRIES, [])
    apply_plan(plan)
    for entry in corpus.entries:
        data = yamlio.loads((project.corpus_dir / f"{entry.key}.yaml").read_text(encoding="utf-8"))
        assert (data["title"], tuple(data["authors"]), data["year"], data["venue"]) == (
            entry.title,
            entry.authors,
            entry.year,
            entry.venue,
        )
        assert data["category"] == data["evidence_level"] == data["summary"] == PLACEHOLDER
    codes = {p.code for p in validate_project(project).errors}
    assert codes == {"placeholder"}  # only the judgements are missing


def test_importing_the_export_into_the_corpus_changes_nothing(repo_copy, exported, tmp_path):
    source = tmp_path / "corpus.bib"
    source.write_text(exported, encoding="utf-8")
    plan = plan_bib_import(source, repo_copy, force=True)
    published = len(
        list((repo_copy.root / "corpus").glob("*.yaml"))
    )  # the copy holds the published entries
    created = REAL_ENTRIES - published  # entries of later rounds are new to it
    assert (plan.count("unchanged"), plan.count("create"), plan.count("update"), plan.skipped) == (
        published,
        created,
        0,
        [],
    )


FOREIGN_BIB = r"""
@article{Tanaka2025When,
  author = {Mei Tanaka and Iyer, Rahul},
  title = {Learning When to Ask: Deliberation Budgets for Teams of Language Agents},
  journal = {arXiv preprint arXiv:2510.99902},
  year = 2025,
}
@inproceedings{liu-magrpo,
  title = {{LLM} Collaboration With Multi-Agent Reinforcement Learning},
  author = {Liu, Shuo and others},
  booktitle = {AAAI 2026},
  year = {2026},
  eprint = {2508.04652v3},
  archivePrefix = {arXiv},
}
@misc{??,
  author = {J{\"u}rgen M{\"u}ller},
  title = {Ein {\"U}berblick},
  howpublished = {\url{https://example.org/ueberblick}},
  doi = {https://doi.org/10.1000/XYZ.1},
}
@misc{again,
  author = {Tanaka, Mei},
  title = {Learning when to ask: deliberation budgets for teams of language agents},
}
"""


def test_a_foreign_bib_file_is_scaffolded_and_known_papers_are_refused(repo_copy, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text(FOREIGN_BIB, encoding="utf-8")
    result = runner.invoke(
        main, ["import", "bib", str(source), "--root", str(repo_copy.root), "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert (
        "skipped liu-magrpo: already recorded in corpus/magrpo.yaml (same identifier arxiv:2508.04652)"
        in result.output
    )
    assert "skipped again: repeats entry 'Tanaka2025When' of this file" in result.output
    assert "would create corpus/tanaka2025when.yaml" in result.output
    assert "would create corpus/muller-2024.yaml" not in result.output
    assert not (repo_copy.corpus_dir / "tanaka2025when.yaml").exists()

    result = runner.invoke(main, ["import", "bib", str(source), "--root", str(repo_copy.root)])
    assert result.exit_code == 0, result.output
    assert (
        "bib: 2 new, 0 updated, 0 unchanged, 0 kept, 2 skipped as already recorded" in result.output
    )
    tanaka = yamlio.loads(
        (repo_copy.corpus_dir / "tanaka2025when.yaml").read_text(encoding="utf-8")
    )
    assert tanaka["authors"] == ["Tanaka, Mei", "Iyer, Rahul"]
    assert (tanaka["venue"], tanaka["identifiers"]["arxiv"]) == ("arXiv", "2510.99902")
    assert tanaka["urls"] == ["https://arxiv.org/abs/2510.99902"]
    (muller_path,) = [p for p in repo_copy.entry_paths() if p.stem.startswith("muller")]
    muller = yamlio.loads(muller_path.read_text(encoding="utf-8"))
    assert muller_path.stem == "muller"  # no year: the surname alone
    assert (muller["title"], muller["authors"], muller["year"]) == (
        "Ein Überblick",
        ["Müller, Jürgen"],
        PLACEHOLDER,
    )
    assert muller["identifiers"]["doi"] == "10.1000/XYZ.1"
    assert muller["urls"] == ["https://example.org/ueberblick"]


def test_force_updates_the_facts_and_keeps_the_tags(repo_copy, tmp_path):
    source = tmp_path / "fix.bib"
    source.write_text(
        "@misc{magrpo, author = {Liu, Shuo and Liang, Zeyu and Lyu, Xueguang and Amato, Christopher},\n"
        " title = {LLM Collaboration With Multi-Agent Reinforcement Learning},\n"
        " howpublished = {AAAI 2026}, year = {2026}, eprint = {2508.04652}, archivePrefix = {arXiv},\n"
        " url = {https://arxiv.org/abs/2508.04652}}\n",
        encoding="utf-8",
    )
    before = (repo_copy.corpus_dir / "magrpo.yaml").read_text(encoding="utf-8")
    kept = runner.invoke(main, ["import", "bib", str(source), "--root", str(repo_copy.root)])
    assert "kept    corpus/magrpo.yaml (differs in venue, year; --force updates)" in kept.output
    assert (repo_copy.corpus_dir / "magrpo.yaml").read_text(encoding="utf-8") == before
    forced = runner.invoke(
        main, ["import", "bib", str(source), "--root", str(repo_copy.root), "--force"]
    )
    assert "updated      corpus/magrpo.yaml (venue, year)" in forced.output
    data = yamlio.loads((repo_copy.corpus_dir / "magrpo.yaml").read_text(encoding="utf-8"))
    assert (data["venue"], data["year"], data["category"], data["topology"]) == (
        "AAAI 2026",
        2026,
        "rl_method",
        "centralized",
    )


def test_a_broken_bib_file_writes_nothing(repo_copy, tmp_path):
    source = tmp_path / "broken.bib"
    source.write_text(
        "@article{x, title = {unclosed\n\n@misc{y, title = {fine}, year = {2020}}\n",
        encoding="utf-8",
    )
    before = sorted(p.name for p in repo_copy.entry_paths())
    with pytest.raises(BibtexError) as caught:
        plan_bib_import(source, repo_copy)
    assert caught.value.problems[0].startswith(
        f"{source}:1: cannot read this block (Unexpected block start"
    )
    result = runner.invoke(main, ["import", "bib", str(source), "--root", str(repo_copy.root)])
    assert result.exit_code == 1 and "nothing was written" in result.output
    assert sorted(p.name for p in repo_copy.entry_paths()) == before


def test_an_entry_without_a_title_is_an_error(tmp_path):
    project = taxonomy_only(tmp_path)
    source = tmp_path / "x.bib"
    source.write_text("@misc{notitle, author = {Doe, Jane}, year = {2020}}\n", encoding="utf-8")
    with pytest.raises(BibtexError, match="entry 'notitle' has no title"):
        plan_bib_import(source, project)


# ---------------------------------------------------------------------------------------------
# Command line and JSON


def test_cli_export_bib_to_a_file(tmp_path, mini_project):
    """`masrl export bib -o` writes the library's export to a file, making its folder (on the
    mini corpus: the real corpus's export is checked above, in the library)."""
    target = tmp_path / "out" / "corpus.bib"
    result = runner.invoke(
        main, ["export", "bib", "--root", str(mini_project.root), "-o", str(target)]
    )
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8") == export_bibtex(load_corpus(mini_project).entries)


def test_json_export_is_one_deterministic_document(corpus):
    text = export_json(corpus)
    document = json.loads(text)
    assert (len(document["entries"]), len(document["exclusions"])) == (
        REAL_ENTRIES,
        REAL_EXCLUSIONS,
    )
    assert [e["key"] for e in document["entries"]] == sorted(e.key for e in corpus.entries)
    assert document["taxonomy"]["categories"]["values"][0]["id"] == "rl_method"
    assert text == json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    result = runner.invoke(main, ["export", "json", "--root", str(REPO_ROOT)])
    assert result.exit_code == 0 and result.output == text


def test_json_export_refuses_a_corpus_with_placeholders(mini_project):
    write_entry(
        mini_project.root, entry_data("delta2025", title="Delta Work", category=PLACEHOLDER)
    )
    result = runner.invoke(main, ["export", "json", "--root", str(mini_project.root)])
    assert result.exit_code == 1 and "still the placeholder TODO" in result.output
