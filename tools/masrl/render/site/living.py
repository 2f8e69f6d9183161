"""The living review on the site: "What's new" (records by round, newest first, and the flow),
the reliability page (agreement between screeners) and the Atom feed of added records."""

from __future__ import annotations

from masrl.render.site.context import (
    SiteContext,
    browse_page,
    html_href,
    page_url,
    relative_link,
)
from masrl.render.site.escape import md_text
from masrl.render.site.reports import SCREENING_PAGE
from masrl.screening.rounds import read_rounds

WHATS_NEW_PAGE = "whats-new.md"
RELIABILITY_PAGE = "reliability.md"


def living_pages(ctx: SiteContext) -> dict[str, str]:
    return {WHATS_NEW_PAGE: whats_new_markdown(ctx), RELIABILITY_PAGE: reliability_markdown(ctx)}


def living_files(ctx: SiteContext) -> dict[str, bytes]:
    from masrl.derive.flow import compute_flow
    from masrl.render.feed import FEED_FILE, atom_feed
    from masrl.render.flow import FLOW_FIGURE, flow_figure
    from masrl.render.site.context import entry_page
    from masrl.render.site.corrections import CORRECTIONS_PAGE, round_anchor

    return {
        FEED_FILE: atom_feed(
            ctx.corpus,
            lambda key: page_url(entry_page(key)),
            lambda round_id: f"{page_url(CORRECTIONS_PAGE)}#{round_anchor(round_id)}",
        ),
        FLOW_FIGURE: flow_figure(compute_flow(ctx.corpus)),
    }


def _search_lines(ctx: SiteContext, screening_round) -> list[str]:
    """What a round searched: dates, sources, query families and, where recorded, their terms."""
    taxonomy = ctx.taxonomy
    window = f"{screening_round.searched_from or 'the beginning'} to {screening_round.searched_until or 'n/a'}"
    sources = ", ".join(taxonomy["source_kinds"].label_of(s) for s in screening_round.sources)
    families = ", ".join(
        taxonomy["query_families"].label_of(f) for f in screening_round.query_families
    )
    lines = [
        f"Searched publications from {md_text(window)} in {md_text(sources)}, with the query families "
        f"{md_text(families)}.",
        "",
    ]
    if screening_round.terms:
        lines += ['??? note "Search terms run in this round"', ""]
        lines += [
            f"    - {md_text(taxonomy['query_families'].label_of(family))}: "
            f"{md_text(', '.join(terms))}"
            for family, terms in screening_round.terms
        ]
        lines.append("")
    return lines


def whats_new_markdown(ctx: SiteContext) -> str:
    from masrl.derive.flow import compute_flow, round_estimates
    from masrl.render.feed import FEED_FILE
    from masrl.render.flow import FLOW_FIGURE, estimate_markdown, flow_markdown, last_screened_line

    page = WHATS_NEW_PAGE
    corpus = ctx.corpus
    flow = compute_flow(corpus)
    parts = [
        "# What's new",
        "",
        f"{md_text(last_screened_line(flow))} Follow new records with the [Atom feed]({FEED_FILE}).",
        "",
    ]
    rounds = {r.id: r for r in read_rounds(corpus.project)[0]}
    for round_flow in reversed(flow.rounds):
        entries = sorted(
            (e for e in corpus.entries if e.round == round_flow.round),
            key=lambda e: (e.added or "", e.key),
            reverse=True,
        )
        excluded = round_flow.excluded_total
        parts += [
            f"## Round {md_text(round_flow.round)}",
            "",
            (
                f"Closed {md_text(round_flow.date or 'n/a')}: {len(entries)} entries added, "
                f"{excluded} records excluded, {round_flow.waiting} waiting in the screening queue."
            ),
            "",
        ]
        if round_flow.round in rounds:
            parts += _search_lines(ctx, rounds[round_flow.round])
        parts += [
            f"- {ctx.entry_link(page, e.key, e.title)} ({md_text(e.added or '')})" for e in entries
        ]
        parts.append("")
    parts += [
        "## Screening flow",
        "",
        (
            "Records per stage, per round and over all rounds (PRISMA 2020 style: records identified by "
            "database search and by citation searching are counted separately)."
        ),
        "",
        f"![Screening flow per round]({FLOW_FIGURE})",
        "",
        flow_markdown(flow, _taxonomy_term(ctx, page)),
    ]
    estimates = round_estimates(flow)
    parts += ["", "## How complete is each round?", "", estimate_markdown(estimates)]
    return "\n".join(parts).rstrip() + "\n"


def _no_readings(round_id: str) -> str:
    """Why a round has no agreement figures."""
    return (
        f"No record of round {md_text(round_id)} has been read by two screeners yet: agreement "
        f"needs a second, independent decision in {md_text(f'screening/decisions/{round_id}.yaml')} "
        f"or a second reading in {md_text(f'screening/tags/{round_id}.yaml')}."
    )


def reliability_markdown(ctx: SiteContext) -> str:
    from pathlib import Path

    from masrl.render.agreement import render_markdown
    from masrl.screening.agreement import agreement_report

    project = ctx.corpus.project
    audits = (
        sorted((project.root / "screening" / "audits").glob("*.csv"))
        if (project.root / "screening" / "audits").is_dir()
        else []
    )
    parts = [
        "# Reliability",
        "",
        (
            "How far independent screeners agree: per screening decision and per tag field, the observed "
            "agreement, Cohen's κ (two raters) and Krippendorff's α (any number of raters, missing ratings "
            "allowed), from `screening/decisions/`, the independent tag readings in `screening/tags/` "
            "and the audits in `screening/audits/`, with the rulings that settled disagreements and "
            "their reasons. Where definitions changed and every reader read a field again (a later "
            "pass), the latest pass is reported and the figures it superseded stand beside it. Each "
            "round is shown on its own (`masrl agreement --round ROUND`), then all rounds together "
            "(`masrl agreement`)."
        ),
        "",
    ]
    rounds = [r.id for r in read_rounds(project)[0]]
    by_round, overall = agreement_report(project, rounds, [Path(a) for a in audits], ctx.corpus)
    shown = _field_shown(ctx, RELIABILITY_PAGE)
    value = _value_shown(ctx, RELIABILITY_PAGE)
    for round_id in reversed(rounds):
        results = by_round[round_id]
        parts += [f"## Round {md_text(round_id)}", ""]
        if any(r.units or r.rereads for r in results):
            parts.append(
                render_markdown(results, heading_level=3, field_name=shown, value_shown=value)
            )
        else:
            parts += [_no_readings(round_id), ""]
    parts += ["## Spot checks", ""]
    if audits:
        parts += [
            "Second-annotator audits in `screening/audits/`: "
            + ", ".join(f"`{md_text(a.name)}`" for a in audits)
            + "; their ratings join the figures of all rounds below.",
            "",
        ]
    else:
        parts += [
            "No spot check is recorded yet: a spot check is a second annotator's audit of a "
            "sample of records, a CSV in the survey's spot-check layout in `screening/audits/` "
            "(`masrl agreement --audit FILE` reads one). Until one is added, agreement rests on "
            "the independent readings of each round above.",
            "",
        ]
    parts += [
        "## All rounds and audits",
        "",
        render_markdown(
            overall,
            heading_level=3,
            field_name=shown,
            value_shown=value,
            empty=(
                "No record has been read by two screeners and no audit is recorded, so there is "
                "no agreement to report yet."
            ),
        ),
    ]
    return "\n".join(parts).rstrip() + "\n"


def _field_shown(ctx: SiteContext, page: str):
    """A field of the agreement tables as its label, linking to its list (the decision: the
    screening log)."""

    def shown(name: str) -> str:
        if name in ctx.browse_fields:
            target = relative_link(page, browse_page(name))
            return f"[{md_text(ctx.field_label(name))}]({target})"
        if name == "decision":
            return f"[Screening decision]({relative_link(page, SCREENING_PAGE)})"
        return md_text(name)

    return shown


def _value_shown(ctx: SiteContext, page: str):
    """A reader's value of a field as the chips of its labels, each linking to its list (a value
    outside the taxonomy, e.g. a decision, as code); "a, b" is a multi-valued reading."""

    def shown(name: str, value: str) -> str:
        axis = ctx.fields[name].axis if name in ctx.fields else None
        known = ctx.taxonomy[axis].by_id if axis else {}
        if str(value).strip() in ("", "NA", "-", "[]"):  # how readings write an empty field
            return '<span class="masrl-na">not applicable</span>'
        parts = [v.strip() for v in str(value).split(",")]
        if not parts or not all(v in known for v in parts):
            return f"<code>{md_text(value)}</code>"
        return " ".join(ctx.chip(page, name, v) for v in parts)

    return shown


def _taxonomy_term(ctx: SiteContext, page: str):
    """A value of a taxonomy axis as its label, linking to its definition on the taxonomy page
    (an id the axis does not know stays as it is)."""
    from masrl.render.site.browse import TAXONOMY_PAGE
    from masrl.render.site.escape import anchor_id, html_attr

    def term(axis: str, value: str) -> str:
        if axis not in ctx.taxonomy.axes or value not in ctx.taxonomy[axis].by_id:
            return md_text(value)
        href = html_attr(html_href(page, TAXONOMY_PAGE, anchor_id(axis, value)))
        return f'<a href="{href}">{md_text(ctx.taxonomy[axis].label_of(value))}</a>'

    return term
