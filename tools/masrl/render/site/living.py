"""The living review on the site: "What's new" (records by round, newest first, and the flow),
the reliability page (agreement between screeners) and the Atom feed of added records."""

from __future__ import annotations

from masrl.render.site.context import SiteContext, page_url
from masrl.render.site.escape import md_text

WHATS_NEW_PAGE = "whats-new.md"
RELIABILITY_PAGE = "reliability.md"


def living_pages(ctx: SiteContext) -> dict[str, str]:
    return {WHATS_NEW_PAGE: whats_new_markdown(ctx), RELIABILITY_PAGE: reliability_markdown(ctx)}


def living_files(ctx: SiteContext) -> dict[str, bytes]:
    from masrl.derive.flow import compute_flow
    from masrl.render.feed import FEED_FILE, atom_feed
    from masrl.render.flow import FLOW_FIGURE, flow_figure
    from masrl.render.site.context import entry_page

    return {FEED_FILE: atom_feed(ctx.corpus, lambda key: page_url(entry_page(key))),
            FLOW_FIGURE: flow_figure(compute_flow(ctx.corpus))}


def whats_new_markdown(ctx: SiteContext) -> str:
    from masrl.derive.flow import compute_flow
    from masrl.render.feed import FEED_FILE
    from masrl.render.flow import FLOW_FIGURE, flow_markdown, last_screened_line

    page = WHATS_NEW_PAGE
    corpus = ctx.corpus
    flow = compute_flow(corpus)
    parts = ["# What's new", "",
             f"{md_text(last_screened_line(flow))} Follow new records with the [Atom feed]({FEED_FILE}).", ""]
    for round_flow in reversed(flow.rounds):
        entries = sorted((e for e in corpus.entries if e.round == round_flow.round), key=lambda e: (e.added or "", e.key),
                         reverse=True)
        excluded = round_flow.excluded_total
        parts += [f"## Round {md_text(round_flow.round)}", "",
                  (f"Closed {md_text(round_flow.date or 'n/a')}: {len(entries)} entries added, "
                   f"{excluded} records excluded, {round_flow.waiting} waiting in the screening queue."), ""]
        parts += [f"- {ctx.entry_link(page, e.key, e.title)} ({md_text(e.added or '')})" for e in entries]
        parts.append("")
    parts += ["## Screening flow", "", "Records per stage, per round and over all rounds (PRISMA style).", "",
              f"![Screening flow per round]({FLOW_FIGURE})", "", flow_markdown(flow)]
    return "\n".join(parts).rstrip() + "\n"


def reliability_markdown(ctx: SiteContext) -> str:
    from pathlib import Path

    from masrl.render.agreement import render_markdown
    from masrl.screening.agreement import project_agreement

    project = ctx.corpus.project
    audits = sorted((project.root / "screening" / "audits").glob("*.csv")) if (project.root / "screening" / "audits").is_dir() else []
    results = project_agreement(project, [Path(a) for a in audits])
    return "\n".join([
        "# Reliability", "",
        ("How far independent screeners agree: per screening decision and per tag field, the observed "
         "agreement, Cohen's κ (two raters) and Krippendorff's α (any number of raters, missing ratings "
         "allowed), from `screening/decisions/`, the independent tag readings in `screening/tags/` "
         "and the audits in `screening/audits/`, with the rulings that settled disagreements. "
         "`masrl agreement` prints the same report."), "",
        render_markdown(results, heading_level=2),
    ]).rstrip() + "\n"
