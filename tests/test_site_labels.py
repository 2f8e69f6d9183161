"""Pages that say what they mean: fields and values appear as their taxonomy labels, linking to
their lists, and an empty section says why it is empty. In-process, on the real corpus."""

from __future__ import annotations

import pytest
from masrl.render.site.context import SiteContext
from masrl.render.site.living import reliability_markdown
from masrl.render.site.reports import claims_markdown
from shared_corpus import live_corpus


@pytest.fixture(scope="module")
def ctx() -> SiteContext:
    return SiteContext(live_corpus())


def test_reliability_shows_each_round_per_field_by_label_and_says_why_spot_checks_are_empty(ctx):
    page = reliability_markdown(ctx)
    rounds = page.split("\n## ")
    latest = next(part for part in rounds if part.startswith("Round 2026&#45;12"))
    header = "| Field | Pass | Raters | Units | Observed | Cohen's κ | Krippendorff's α |"
    assert header in latest
    assert "| [Credit&#45;bearing unit](browse/credit_units.md) | " in latest
    assert "| [Screening decision](screening.md) | " in latest
    assert "| credit_units |" not in page  # no bare key
    # readers' values as the chips of their labels, linking to their lists
    assert (
        'reader A <a class="masrl-chip masrl-chip--credit_mechanism" href="../browse/credit_mechanism/#'
        in page
    )
    assert "<code>NA</code>" not in page and "`credit_units`" not in page
    spot = next(part for part in rounds if part.startswith("Spot checks"))
    assert "No spot check is recorded yet" in spot and "screening/audits/" in spot


def test_claims_name_their_terms_by_label_with_links_to_their_lists(ctx):
    page = claims_markdown(ctx)
    terms = [line for line in page.splitlines() if line.startswith("- Terms: ")]
    assert len(terms) >= 5
    stop = next(line for line in terms if "#o5" in line)
    assert 'href="../browse/sub_decisions/#o5"' in stop and ">When to stop</a>" in stop
    assert 'href="../browse/is_rl/">RL&#45;trained</a>' in stop


def test_the_screening_flow_names_sources_stages_and_reasons_by_label(ctx):
    from masrl.render.site.living import whats_new_markdown

    flow = whats_new_markdown(ctx).split("## Screening flow", 1)[1].split("\n## ", 1)[0]
    assert '<a href="../taxonomy/#source_kinds-arxiv">arXiv</a>' in flow
    assert (
        '<a href="../taxonomy/#screening_stages-abstract_screen">Abstract screening</a>: '
        '<a href="../taxonomy/#exclusion_reasons-no_rl_component">No RL component</a>'
    ) in flow
    assert "abstract_screen:" not in flow and "no_rl_component |" not in flow
