"""The paper list (awesome-list style), the entry index and one page per entry."""

from __future__ import annotations

import json
from itertools import islice

from masrl.model.records import ARTIFACT_LINKS, Entry
from masrl.render.site.citation_graph import lineage
from masrl.render.site.context import (
    SiteContext,
    browse_page,
    entry_page,
    html_href,
    value_anchor,
)
from masrl.render.site.corrections import entry_corrections, link_see_corrections
from masrl.render.site.escape import (
    external_link,
    front_matter_title,
    html_attr,
    html_text,
    md_text,
    one_line,
)
from masrl.render.site.html_body import HTML_BODY, Body
from masrl.render.site.links import LABELS, code_badge, entry_links, links_html
from masrl.render.site.navigation import nav_file
from masrl.render.site.reports import table_filter_url
from masrl.render.site.search import entry_search_tags

PAPERS_PAGE = "papers.md"
SAME_CELL_SHOWN = 25  # neighbours listed on an entry page; the rest are one click away in the table
# Front matter that keeps a long listing out of the search index: its entries have pages of their own.
SEARCH_EXCLUDED = "---\nsearch:\n  exclude: true\n---"
ENTRIES_INDEX = "entries.md"

DESCRIPTION_CHARS = 300  # search engines show about this much of a page description
ENTRIES_PER_INDEX_PAGE = (
    100  # the by-key index, split so no page is tens of thousands of pixels tall
)


def entry_pages(ctx: SiteContext) -> dict[str, str]:
    pages = {entry_page(entry.key): entry_source(ctx, entry) for entry in ctx.entries}
    pages[PAPERS_PAGE] = papers_markdown(ctx)
    pages.update(entries_index_pages(ctx))
    return pages


# ---------------------------------------------------------------------------------------------
# The paper list.


def listing_item(ctx: SiteContext, page: str, entry: Entry) -> str:
    """One awesome-list line as an HTML list item: linked title, year, venue, first author, chips,
    then our summary."""
    facts = " · ".join(
        html_text(part) for part in (entry.year, entry.venue, ctx.authors_short(entry)) if part
    )
    chips = ctx.chips_html(page, entry)
    links = links_html(entry)
    return (
        f'<li><strong>{ctx.entry_link_html(page, entry.key)}</strong> <span class="masrl-facts">{facts}</span>'
        + (f" {links}" if links else "")
        + (f'<br><span class="masrl-chips">{chips}</span>' if chips else "")
        + f'<br><span class="masrl-summary">{html_text(entry.summary)}</span></li>'
    )


def listing(ctx: SiteContext, page: str, entries: list[Entry]) -> str:
    """A raw HTML list of entries (Markdown does not process it, so text is only HTML-escaped)."""
    return (
        '<ul class="masrl-papers">\n'
        + "\n".join(listing_item(ctx, page, e) for e in entries)
        + "\n</ul>"
    )


def papers_markdown(ctx: SiteContext) -> str:
    page = PAPERS_PAGE
    groups = ctx.entries_with_value("category")
    axis = ctx.taxonomy["categories"]
    jump = " · ".join(
        f"[{md_text(axis.label_of(c))} ({len(keys)})](#{value_anchor(c)})"
        for c, keys in groups.items()
        if keys
    )
    parts = [
        SEARCH_EXCLUDED,
        "",
        "# Papers",
        "",
        (
            f"All {len(ctx.entries)} retained entries, grouped by category and listed newest first. "
            f"Each line links to the entry's page; chips link to the browse pages. "
            f"The [interactive table](table.md) filters and sorts the same list."
        ),
        "",
        f"{jump}\n{{: .masrl-jump }}" if jump else "",
        "",
    ]
    for category, keys in groups.items():
        if not keys:
            continue
        parts += [f"## {md_text(axis.label_of(category))} {{ #{value_anchor(category)} }}", ""]
        parts += [f'<p class="masrl-definition">{md_text(axis.by_id[category].definition)}</p>', ""]
        wanted = set(keys)
        members = [e for e in ctx.entries if e.key in wanted]
        parts += [listing(ctx, page, members), ""]
    return "\n".join(parts)


def index_page(number: int) -> str:
    return ENTRIES_INDEX if number == 1 else f"entries-{number}.md"


def entries_index_pages(ctx: SiteContext) -> dict[str, str]:
    """The entries by key as a compact one-line-per-entry list, split into pages of
    ENTRIES_PER_INDEX_PAGE so the index stays short on a phone and linear in the corpus."""
    ordered = sorted(ctx.entries, key=lambda e: e.key)
    chunks = [
        ordered[i : i + ENTRIES_PER_INDEX_PAGE]
        for i in range(0, len(ordered), ENTRIES_PER_INDEX_PAGE)
    ] or [[]]
    pages = {}
    for number, chunk in enumerate(chunks, 1):
        page = index_page(number)
        start = (number - 1) * ENTRIES_PER_INDEX_PAGE
        pager = ""
        if len(chunks) > 1:
            links = [
                f'<a href="{html_attr(html_href(page, index_page(n)))}"'
                + (' aria-current="page"' if n == number else "")
                + f">Page {n}: {html_text(c[0].key)} – {html_text(c[-1].key)}</a>"
                for n, c in enumerate(chunks, 1)
            ]
            pager = (
                '<nav class="masrl-pager" aria-label="Index pages">' + " ".join(links) + "</nav>"
            )
        items = [
            f'<li><a href="{html_attr(html_href(page, entry_page(e.key)))}"><code>{html_text(e.key)}</code> '
            f'<span class="masrl-index__title">{html_text(e.title)}</span></a> '
            f'<span class="masrl-facts">{html_text(e.year)} · {html_text(ctx.authors_short(e))}</span></li>'
            for e in chunk
        ]
        pages[page] = "\n".join(
            [
                SEARCH_EXCLUDED,
                "",
                "# All entries by key"
                + (f" ({number} of {len(chunks)})" if len(chunks) > 1 else ""),
                "",
                (
                    f"The {len(ordered)} retained entries in alphabetical order of their key, the name of their file "
                    "in `corpus/` and of their page"
                    + (
                        f": entries {start + 1}–{start + len(chunk)} of {len(ordered)}, on page {number} of "
                        f"{len(chunks)}. The [interactive table](table.md) shows all {len(ordered)} on one page."
                        if len(chunks) > 1
                        else "."
                    )
                ),
                "",
                pager,
                "",
                '<ul class="masrl-index">\n' + "\n".join(items) + "\n</ul>",
                "",
            ]
        )
    # the index's further pages join the Papers menu after the first (which mkdocs.yml names)
    more = [
        (f"All entries by key ({n} of {len(chunks)})", index_page(n))
        for n in range(2, len(chunks) + 1)
    ]
    pages.update(nav_file("Papers", more))
    return pages


# ---------------------------------------------------------------------------------------------
# One entry.


def entry_source(ctx: SiteContext, entry: Entry) -> str:
    """The entry's page: its front matter, then its body as the HTML Markdown would make of it
    (html_body.py), which mkdocs takes as it stands (html_pages.py)."""
    return "\n".join(
        [
            "---",
            front_matter_title(entry.title),
            _description(entry.summary),
            "citation: " + json.dumps(citation_meta(ctx, entry)),
            entry_search_tags(ctx, entry),
            "hide:",
            "  - navigation",
            HTML_BODY,
            "---",
            "",
            entry_body(ctx, entry).html(),
            "",
        ]
    )


def entry_body(ctx: SiteContext, entry: Entry) -> Body:
    page = entry_page(entry.key)
    body = Body()
    body.heading(1, md_text(entry.title))
    body.raw(_byline(ctx, entry))
    body.raw(_facts_line(entry))
    body.raw(_action_links(ctx, entry))
    body.admonition("abstract", "Our summary", md_text(entry.summary))
    body.heading(2, "Tags")
    body.raw(_tags_list(ctx, page, entry))
    body.heading(2, "Identifiers and links")
    links = _links(entry)
    if links:
        body.bullets(links)
    else:
        body.paragraph("No identifier or link is recorded.")
    if entry.notes and entry.notes.strip():
        notes = md_text(entry.notes)
        body.heading(2, "Curator notes")
        body.paragraph(link_see_corrections(notes) if entry.corrections else notes)
    entry_corrections(ctx, page, entry, body)
    body.heading(2, "BibTeX")
    body.code(ctx.bibtex[entry.key], "bibtex")
    lineage(ctx, entry, body)
    body.heading(2, "Same reward × credit cell")
    _same_cell(ctx, page, entry, body)
    tips = ctx.take_tips_html(page)  # its chips' descriptions, last (see builder.generate_docs)
    if tips:
        body.raw(tips)
    return body


def _byline(ctx: SiteContext, entry: Entry) -> str:
    authors = "; ".join(entry.authors) + ("; and others" if not entry.authors_complete else "")
    return f'<p class="masrl-byline">{md_text(authors)}</p>'


def _facts_line(entry: Entry) -> str:
    """Year, venue, affiliation and key on one line under the authors."""
    facts = [html_text(entry.year), html_text(entry.venue)]
    if entry.affiliation:
        facts.append(html_text(entry.affiliation))
    facts.append(f"key <code>{html_text(entry.key)}</code>")
    return f'<p class="masrl-entry-facts">{" · ".join(facts)}</p>'


def _tags_list(ctx: SiteContext, page: str, entry: Entry) -> str:
    """Every axis with the entry's chips, as a compact two-column list (raw HTML)."""
    rows = []
    for name in ctx.tag_fields:
        axis = f'<a href="{html_attr(html_href(page, browse_page(name)))}">{html_text(ctx.field_label(name))}</a>'
        values = ctx.values_of(entry, name)
        chips = (
            " ".join(ctx.chip_html(page, name, v) for v in values)
            or '<span class="masrl-na">not applicable</span>'
        )
        rows.append(f"<dt>{axis}</dt><dd>{chips}</dd>")
    return '<dl class="masrl-tags">\n' + "\n".join(rows) + "\n</dl>"


def _description(text: str) -> str:
    """A front-matter description line (material writes it into <meta> unescaped, so escape it)."""
    value = one_line(text)
    if len(value) > DESCRIPTION_CHARS:
        value = value[: DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return "description: " + json.dumps(html_text(value))


def citation_meta(ctx: SiteContext, entry: Entry) -> list[list[str]]:
    """Highwire Press citation_* tags (what Zotero and Google Scholar read), as (name, content)
    pairs; the page template writes them into <head>, escaped."""
    tags = [["citation_title", one_line(entry.title)]]
    tags += [["citation_author", one_line(author)] for author in entry.authors]
    tags.append(["citation_publication_date", str(entry.year)])
    links = entry_links(entry)
    venue = one_line(entry.venue)
    if venue and venue.lower() != "arxiv":
        tags.append(["citation_conference_title", venue])
    if entry.identifiers.get("arxiv"):
        tags.append(["citation_arxiv_id", entry.identifiers["arxiv"]])
        tags.append(["citation_technical_report_institution", "arXiv"])
    if entry.identifiers.get("doi"):
        tags.append(["citation_doi", entry.identifiers["doi"]])
    if "pdf" in links:
        tags.append(["citation_pdf_url", links["pdf"]])
    if "arxiv" in links:
        tags.append(["citation_abstract_html_url", links["arxiv"]])
    return tags


def _action_links(ctx: SiteContext, entry: Entry) -> str:
    """Links out (paper, PDF, code), copy-the-BibTeX, and edit-this-entry, as one row of buttons."""
    links = entry_links(entry)
    parts = [code_badge(links)] if "code" in links else []
    parts += [
        f'<a class="md-button masrl-out masrl-out--{kind}" href="{html_attr(url)}" rel="noopener">{html_text(LABELS[kind])}</a>'
        for kind, url in links.items()
        if kind != "code"  # the badge is the code link
    ]
    parts.append(
        '<button type="button" class="md-button masrl-copy-bib" data-copy-target=".language-bibtex code">'
        "Copy BibTeX</button>"
    )
    if ctx.repository:
        edit = f"{ctx.repository}/edit/main/corpus/{entry.key}.yaml"
        parts.append(
            f'<a class="md-button masrl-edit" href="{html_attr(edit)}" rel="noopener">Edit this entry</a>'
        )
    return '<p class="masrl-actions">' + " ".join(parts) + "</p>"


def _links(entry: Entry) -> list[str]:
    """The list's items: identifiers, artifact links with their sources, other links, extras."""
    lines = []
    for kind, url in entry_links(entry).items():
        if kind in ARTIFACT_LINKS:
            continue  # listed below, every one with the page that names it
        value = entry.identifiers.get(kind) or url
        lines.append(f"{LABELS[kind]}: {external_link(url, value)}")
    for kind in ARTIFACT_LINKS:
        for link in getattr(entry, kind, ()):
            source = external_link(link["source"], "source")
            lines.append(f"{LABELS[kind]}: {external_link(link['url'])} ({source})")
    lines += [f"Link: {external_link(url)}" for url in entry.urls]
    extras = (
        ("Journal reference", entry.journal_ref),
        ("Latest arXiv version seen", entry.latest_version),
        ("arXiv primary category", entry.primary_category),
    )
    lines += [f"{label}: {md_text(value)}" for label, value in extras if value]
    return lines


def _same_cell(ctx: SiteContext, page: str, entry: Entry, body: Body) -> None:
    """The other entries in each reward type × credit unit cell this entry occupies (the first
    few, then a link to the interactive table filtered to the cell)."""
    cells = [(r, c) for r in entry.reward_types for c in entry.credit_units]
    if not cells:
        body.paragraph(
            "This entry has no reward type or no credit unit, so it sits in no reward × credit cell."
        )
        return
    items = []
    for reward, credit in cells:
        members = ctx.reward_credit_cells[(reward, credit)]
        # The entry is in the cell once per time its lists name the pair; counted, not filtered,
        # so a page costs the entries it shows rather than the size of its cell.
        count = len(members) - entry.reward_types.count(reward) * entry.credit_units.count(credit)
        others = list(islice((e for e in members if e.key != entry.key), SAME_CELL_SHOWN))
        cell = f"{ctx.chip_html(page, 'reward_types', reward)} × {ctx.chip_html(page, 'credit_units', credit)}"
        if not others:
            items.append(
                f'<li>{cell}: <span class="masrl-gap-text">no other entry (this entry is alone in the cell)</span></li>'
            )
            continue
        links = [
            f'<li>{ctx.entry_link_html(page, e.key)} <span class="masrl-facts">{html_text(e.year)}</span></li>'
            for e in others
        ]
        if count > SAME_CELL_SHOWN:
            href = html_attr(
                table_filter_url(page, {"reward_types": reward, "credit_units": credit})
            )
            links.append(
                f'<li><a href="{href}">all {count + 1} entries of the cell in the table</a></li>'
            )
        noun = "entry" if count == 1 else "entries"
        items.append(f"<li>{cell}: {count} other {noun}<ul>{''.join(links)}</ul></li>")
    body.raw('<ul class="masrl-cells">\n' + "\n".join(items) + "\n</ul>")
