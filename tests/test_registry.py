"""The axis registry: a new axis is one taxonomy file, and every layer finds it.

A toy axis (`modality`) is added to a copy of the mini corpus's taxonomy; the test then looks for
it in the JSON Schema, in `validate` (accepting and rejecting), in `stats`, in the CSV export and
in the built site's table, with no code changed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import write_entry
from masrl.check.validate import load_corpus, validate_project
from masrl.derive.stats import compute_stats
from masrl.exports.csv import export_csv
from masrl.model.records import entry_model, entry_specs
from masrl.model.schemas import entry_schema
from masrl.model.taxonomy import TaxonomyError, load_taxonomy
from masrl.render.site.builder import build_site

TOY_AXIS = """\
axis: modalities
label: Modality
description: What the agents exchange.
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
  crosstabs:
    - {with: topology, order: 20,
       figure: {name: heatmap-modality-topology, title: 'Modality × topology',
         caption: 'Entries per modality and topology.'}}
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
"""


@pytest.fixture
def toy_project(mini_project):
    (mini_project.root / "taxonomy" / "modalities.yaml").write_text(TOY_AXIS, encoding="utf-8")
    for key, modality in (("alpha2025", "text"), ("beta2024", "latent"), ("gamma2023", None)):
        write_entry(
            mini_project.root,
            {**_loaded(mini_project.corpus_dir / f"{key}.yaml"), "modality": modality},
        )
    return mini_project


def _loaded(path: Path) -> dict:
    from masrl.model import yamlio

    return dict(yamlio.load_file(path))


def test_the_toy_axis_is_a_field_of_the_model_and_the_schema(toy_project):
    taxonomy = toy_project.taxonomy()
    assert "modality" in entry_model(taxonomy).model_fields
    spec = next(s for s in entry_specs(taxonomy) if s.name == "modality")
    assert (spec.kind, spec.axis, spec.nullable) == ("tag", "modalities", True)
    schema = entry_schema(taxonomy)
    assert schema["properties"]["modality"]["enum"] == ["text", "latent", None]
    assert "modality" in schema["required"]


def test_validate_accepts_the_toy_axis_and_rejects_unknown_values(toy_project):
    assert not validate_project(toy_project).errors
    path = toy_project.corpus_dir / "alpha2025.yaml"
    write_entry(toy_project.root, {**_loaded(path), "modality": "txt"})
    messages = [p.as_text() for p in validate_project(toy_project).errors]
    assert any("unknown modality 'txt'" in m and "Did you mean 'text'?" in m for m in messages), (
        messages
    )
    data = _loaded(path)
    del data["modality"]
    write_entry(toy_project.root, data)
    messages = [p.as_text() for p in validate_project(toy_project).errors]
    assert any("missing required field 'modality'" in m for m in messages), messages


def test_stats_and_csv_export_count_and_carry_the_toy_axis(toy_project):
    corpus = load_corpus(toy_project)
    counts = compute_stats(corpus).axis_counts["modality"]
    assert counts.as_dict() == {"text": 1, "latent": 1, "not applicable": 1}
    header = export_csv(corpus, "papers").splitlines()[0].split(",")
    assert (
        "modality" in header[header.index("one_liner") :]
    )  # one of masrl's columns after the artifact's


@pytest.mark.slow
def test_the_built_site_table_has_a_toy_axis_column_and_filter(toy_project, tmp_path):
    build = build_site(toy_project, output=tmp_path / "out", staging=tmp_path / "src")
    data = json.loads((build.paths.output / "data" / "entries.json").read_text(encoding="utf-8"))
    assert data["columns"][-1] == "modality"
    assert {e["key"]: e["tags"]["modality"] for e in data["entries"]}["beta2024"] == ["latent"]
    table = (build.paths.output / "table" / "index.html").read_text(encoding="utf-8")
    assert 'data-sort-key="modality"' in table and 'data-axis="modality"' in table
    assert (
        ".masrl-chip--modality { --masrl-hue: 90; }"
        in (build.paths.output / "assets/css/axes.css").read_text()
    )
    home = (build.paths.output / "index.html").read_text(encoding="utf-8")
    assert 'href="browse/modality/"' in home  # its browse page is in the menu
    statistics = (build.paths.output / "statistics" / "index.html").read_text(encoding="utf-8")
    assert "heatmap-modality-topology.svg" in statistics


def test_the_figures_follow_the_toy_axis_show_block(toy_project):
    from masrl.render.figures import figure_list, overview_fields, render_figures

    corpus = load_corpus(toy_project)
    assert overview_fields(corpus.taxonomy)[-1] == "modality"
    listed = {name: caption for name, _, caption in figure_list(corpus.taxonomy)}
    assert "of ten tagged axes" in listed["axis-counts"]
    assert listed["heatmap-modality-topology"] == "Entries per modality and topology."
    svg = render_figures(corpus, ["heatmap-modality-topology"], formats=("svg",))
    assert b"Latent" in svg["figures/heatmap-modality-topology.svg"]


def test_a_cross_tab_figure_needs_a_name_title_and_caption(mini_project):
    bad = TOY_AXIS.replace("title: 'Modality × topology',", "")
    (mini_project.root / "taxonomy" / "modalities.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(TaxonomyError, match="must give exactly name, title and caption"):
        load_taxonomy(mini_project.root / "taxonomy")


def test_a_malformed_registry_entry_is_one_clear_error(mini_project):
    bad = TOY_AXIS.replace("  many: false", "  many: sometimes")
    (mini_project.root / "taxonomy" / "modalities.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(TaxonomyError, match=r"modalities.yaml:5: field.many must be true or false"):
        load_taxonomy(mini_project.root / "taxonomy")


def test_a_copy_of_the_vocabularies_is_parsed_once_and_a_changed_copy_again(mini_project, tmp_path):
    original = load_taxonomy(mini_project.root / "taxonomy")
    copy = tmp_path / "copied-taxonomy"
    shutil.copytree(mini_project.root / "taxonomy", copy)
    same = load_taxonomy(copy)
    assert same.directory == copy
    assert same.axes == original.axes
    assert all(same.axes[name] is axis for name, axis in original.axes.items())  # not parsed again
    # an axis no taxonomy has yet (the toy axis itself may be there: make test-toy-axis adds it)
    added = TOY_AXIS.replace("axis: modalities", "axis: exchanges").replace(
        "  name: modality", "  name: exchange"
    )
    (copy / "exchanges.yaml").write_text(added, encoding="utf-8")
    changed = load_taxonomy(copy)
    assert (
        "exchanges" in changed.axes
        and "exchanges" not in load_taxonomy(mini_project.root / "taxonomy").axes
    )


def test_the_committed_schema_agrees_with_the_pydantic_model():
    """bioregistry's rule: the model is the schema; the committed file is checked against it."""
    taxonomy = load_taxonomy()
    model_schema = entry_model(taxonomy).model_json_schema()
    committed = entry_schema(taxonomy)
    assert list(model_schema["properties"]) == list(committed["properties"])
    assert sorted(model_schema["required"]) == sorted(committed["required"])


def test_trace_import_offers_exactly_the_importer_registry():
    """A new importer is one module and one line in FORMATS: the CLI's choices follow it."""
    from click.testing import CliRunner
    from masrl.cli import main
    from masrl.traces.importers import FORMATS

    help_text = CliRunner().invoke(main, ["trace", "import", "--help"]).output
    assert "[" + "|".join(FORMATS) + "]" in " ".join(help_text.split())
