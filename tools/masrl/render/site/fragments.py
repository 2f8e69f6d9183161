"""Generated fragments that hand-written pages pull in with a marker line.

A hand-written page in site/docs/ may hold lines such as ``<!-- masrl:headline -->``; the
builder replaces each with the fragment of that name, rendered for that page. An unknown
marker stops the build, so a typo cannot silently leave a hole in the home page.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from masrl.render.site.citation import citation_file
from masrl.render.site.context import (
    CHECKOUT_ROOT,
    SiteContext,
    browse_page,
    html_href,
    relative_link,
    value_anchor,
)
from masrl.render.site.entries import listing
from masrl.render.site.errors import SiteError
from masrl.render.site.escape import html_attr, md_text
from masrl.render.site.markdown import code_block, table
from masrl.render.site.reports import figure_markdown

MARKER = re.compile(r"^<!--[ \t]*masrl:([a-z0-9-]+)[ \t]*-->[ \t]*$", re.MULTILINE)

# Figures shown on the home page, by name in plots.figure_list.
HOME_FIGURES = ("heatmap-reward-family-credit-unit", "entries-per-year")


class UnknownMarker(SiteError):
    """A hand-written page names a fragment that does not exist."""


def headline(ctx: SiteContext, page: str) -> str:
    counts = [
        (len(ctx.corpus.entries), "retained entries", html_href(page, "papers.md")),
        (
            len(ctx.corpus.exclusions),
            "excluded records, each with a reason",
            html_href(page, "screening.md"),
        ),
        # no page lists every audited record (entries and exclusions), so this count links nowhere
        (ctx.corpus.audited, "records audited", None),
        (
            len({e.year for e in ctx.corpus.entries}),
            "publication years",
            html_href(page, "browse/year.md"),
        ),
    ]
    cards = [
        (f'<a class="masrl-stat" href="{link}">' if link else '<div class="masrl-stat">')
        + f'<span class="masrl-stat__n">{n}</span>'
        + f'<span class="masrl-stat__label">{md_text(label)}</span>'
        + ("</a>" if link else "</div>")
        for n, label, link in counts
    ]
    return '<div class="masrl-stats">\n' + "\n".join(cards) + "\n</div>"


def _value_table(ctx: SiteContext, page: str, field_name: str, show_id: bool = True) -> str:
    groups = ctx.entries_with_value(field_name)
    rows = []
    for value in ctx.taxonomy[ctx.fields[field_name].axis].ids:
        count = len(groups.get(value, []))
        label = f"[{md_text(ctx.value_label(field_name, value))}]({relative_link(page, browse_page(field_name), value_anchor(value))})"
        shown = f'<span class="masrl-count-gap">{count}</span>' if not count else str(count)
        row = [f"<code>{md_text(value)}</code>"] if show_id else []
        rows.append(row + [label, md_text(ctx.value_definition(field_name, value)), shown])
    headers = (["Id"] if show_id else []) + ["Value", "Definition", "Entries"]
    return table(headers, rows, ("l" if show_id else "") + "llr")


def credit_scale(ctx: SiteContext, page: str) -> str:
    """The credit units as an ordered scale from the finest to the coarsest."""
    groups = ctx.entries_with_value("credit_units")
    steps = []
    for value in ctx.taxonomy["credit_units"].ids:
        count = len(groups.get(value, []))
        css = "masrl-scale__step" + (" masrl-scale__step--gap" if not count else "")
        href = html_href(page, browse_page("credit_units"), value_anchor(value))
        steps.append(
            f'<li class="{css}"><a href="{href}"><span class="masrl-scale__label">'
            f"{md_text(ctx.value_label('credit_units', value))}</span>"
            f'<span class="masrl-scale__n">{count}</span></a></li>'
        )
    return (
        '<ol class="masrl-scale" aria-label="Credit-bearing units from the finest (token) to the coarsest (team)">\n'
        + "\n".join(steps)
        + "\n</ol>"
    )


def taxonomy_glance(ctx: SiteContext, page: str) -> str:
    parts = [
        "### Reward families (R1–R8)",
        "",
        _value_table(ctx, page, "reward_families"),
        "",
        "### Credit-bearing units, from token to team",
        "",
        credit_scale(ctx, page),
        "",
        "### The five orchestration sub-decisions",
        "",
        _value_table(ctx, page, "sub_decisions"),
        "",
        "### The six topologies",
        "",
        _value_table(ctx, page, "topology", show_id=False),
    ]
    return "\n".join(parts)


def main_figures(ctx: SiteContext, page: str) -> str:
    return "\n\n".join(figure_markdown(ctx.corpus.taxonomy, page, name) for name in HOME_FIGURES)


def newest(ctx: SiteContext, page: str, count: int = 5) -> str:
    return listing(ctx, page, ctx.entries[:count])


def downloads(ctx: SiteContext, page: str) -> str:
    from masrl.render.site import downloads as files
    from masrl.render.site.citation_graph import GRAPH_DATA

    rows = [
        [
            f'<a href="{html_href(page, files.BIB_FILE)}" download>masrl.bib</a>',
            "BibTeX of every entry (`masrl export bib`)",
        ],
        [
            f'<a href="{html_href(page, files.RIS_FILE)}" download>masrl.ris</a>',
            "RIS of every entry, for reference managers",
        ],
        [
            f'<a href="{html_href(page, files.CORPUS_JSON)}" download>corpus.json</a>',
            "Every entry and exclusion record as JSON (`masrl export json`)",
        ],
        [
            f'<a href="{html_href(page, files.PAPERS_CSV)}" download>papers.csv</a>',
            "Entries in the survey's CSV layout, which the survey's scripts read (`masrl export csv`)",
        ],
        [
            f'<a href="{html_href(page, files.MASRL_CSV)}" download>masrl.csv</a>',
            "Entries in masrl's CSV layout: every field under its name, lists as JSON "
            "(`masrl export csv --kind masrl`)",
        ],
        [
            f'<a href="{html_href(page, files.EXCLUSIONS_CSV)}" download>exclusions.csv</a>',
            "The screening log in the survey's CSV layout",
        ],
        [
            f'<a href="{html_href(page, files.STATS_JSON)}" download>stats.json</a>',
            "Every count of the statistics page (`masrl stats --format json`)",
        ],
        [
            f'<a href="{html_href(page, files.TABLE_DATA)}" download>entries.json</a>',
            "The data behind the interactive table",
        ],
        [
            f'<a href="{html_href(page, GRAPH_DATA)}" download>citations.json</a>',
            "The citation graph among entries (nodes, edges, coverage), as its page draws it",
        ],
    ]
    return table(["File", "What it holds"], rows)


def releases(ctx: SiteContext, page: str) -> str:
    from masrl.render.site.releases import releases_fragment

    return releases_fragment(ctx, page)


def contributing_guide(ctx: SiteContext, page: str) -> str:
    """CONTRIBUTING.md of the project (else of the checkout), without its title: one guide, two places."""
    for root in (ctx.corpus.project.root, CHECKOUT_ROOT):
        guide = root / "CONTRIBUTING.md"
        if guide.is_file():
            text = guide.read_text(encoding="utf-8")
            return re.sub(r"\A# [^\n]*\n", "", text.lstrip()).strip()
    return "See CONTRIBUTING.md in the repository."


def _preferred_citation(ctx: SiteContext) -> dict | None:
    cited = citation_file(ctx.corpus.project.root).get("preferred-citation")
    return cited if isinstance(cited, dict) else None


def _bib_value(value: object) -> str:
    """A BibTeX field value in braces; braces inside are dropped (the citation is our own data)."""
    return "{" + str(value).replace("{", "").replace("}", "") + "}"


def survey_bibtex(ctx: SiteContext, page: str) -> str:
    """The survey's own BibTeX, from CITATION.cff's preferred citation, in a copyable block."""
    cited = _preferred_citation(ctx)
    if not cited:
        return ""
    authors = " and ".join(
        f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", ")
        for a in cited.get("authors", [])
        if isinstance(a, dict)
    )
    first = (cited.get("authors") or [{}])[0].get("family-names", "survey").lower()
    arxiv = next(
        (
            str(i.get("value", "")).removeprefix("arXiv:")
            for i in cited.get("identifiers", [])
            if isinstance(i, dict) and str(i.get("value", "")).startswith("arXiv:")
        ),
        "",
    )
    fields = [
        ("title", cited.get("title")),
        ("author", authors),
        ("journal", f"arXiv preprint arXiv:{arxiv}" if arxiv else cited.get("journal")),
        ("year", cited.get("year")),
        ("doi", cited.get("doi")),
        ("url", cited.get("url")),
    ]
    body = "".join(f"  {name} = {_bib_value(value)},\n" for name, value in fields if value)
    return code_block(f"@article{{{first}{cited.get('year', '')}masrl,\n{body}}}\n", "bibtex")


def follow_links(ctx: SiteContext, page: str) -> str:
    """What's new and its feed (when the build has them), and the suggest-a-paper form."""
    links = []
    if "whats-new.md" in ctx.generated_paths:
        links.append(f"[What's new]({relative_link(page, 'whats-new.md')})")
    if "feed.xml" in ctx.generated_paths:
        links.append(
            f'<a href="{html_href(page, "feed.xml")}" type="application/atom+xml">Atom feed of new entries</a>'
        )
    if ctx.repository:
        links.append(
            f'<a href="{html_attr(ctx.repository)}/issues/new?template=suggest-paper.yml" rel="noopener">Suggest a paper</a>'
        )
    return " · ".join(links)


FRAGMENTS: dict[str, Callable[[SiteContext, str], str]] = {
    "survey-bibtex": survey_bibtex,
    "follow": follow_links,
    "contributing-guide": contributing_guide,
    "headline": headline,
    "taxonomy-glance": taxonomy_glance,
    "credit-scale": credit_scale,
    "main-figures": main_figures,
    "newest": newest,
    "downloads": downloads,
    "releases": releases,
}


def fill_markers(ctx: SiteContext, page: str, text: str) -> str:
    """The page with every marker line replaced by its fragment."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in FRAGMENTS:
            raise UnknownMarker(
                f"site/docs/{page}: unknown marker masrl:{name}; known: {', '.join(sorted(FRAGMENTS))}"
            )
        # Blank lines around the fragment keep it a block of its own (a table must not run on).
        return f"\n{FRAGMENTS[name](ctx, page)}\n"

    return MARKER.sub(replace, text)
