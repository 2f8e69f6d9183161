"""Tag corrections on the site: each entry page's "Corrections" section (the anchor its notes'
"see corrections" links to) and the Corrections page, every correction by round.

A correction (an entry's `corrections` list) names a field, the value the survey published and
the reason it changed, and may name its round; the current value is the entry's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from masrl.check.snapshot import PUBLISHED_SNAPSHOT
from masrl.model.records import Entry
from masrl.render.site.context import (
    NOT_APPLICABLE,
    SiteContext,
    browse_page,
    html_href,
)
from masrl.render.site.escape import anchor_id, html_attr, html_text, md_text
from masrl.render.site.html_body import Body
from masrl.render.site.markdown import html_table
from masrl.screening.rounds import read_rounds

CORRECTIONS_PAGE = "corrections.md"
ENTRY_ANCHOR = "corrections"  # the section of an entry page
NO_ROUND = "not recorded"


@dataclass(frozen=True)
class Correction:
    entry: Entry
    field: str
    published: tuple[str, ...]
    reason: str
    round: str


def corrections_of(entry: Entry) -> list[Correction]:
    found = []
    for item in entry.corrections:
        published = item.get("published")
        if published is None:
            values: tuple[str, ...] = ()
        elif isinstance(published, (list, tuple)):
            values = tuple(str(v) for v in published)
        else:
            values = (str(published),)
        found.append(
            Correction(
                entry,
                str(item.get("field", "")),
                values,
                str(item.get("reason", "")),
                str(item.get("round") or NO_ROUND),
            )
        )
    return found


def round_anchor(round_id: str) -> str:
    return anchor_id("round", round_id)


def _field_html(ctx: SiteContext, page: str, name: str) -> str:
    label = html_text(ctx.field_label(name))
    if name in ctx.browse_fields:
        return f'<a href="{html_attr(html_href(page, browse_page(name)))}">{label}</a>'
    return label


def _values_html(ctx: SiteContext, page: str, name: str, values: tuple[str, ...]) -> str:
    """Chips of the values (each linking to its list), or "not applicable"."""
    if not values:
        return f'<span class="masrl-na">{NOT_APPLICABLE}</span>'
    axis = ctx.fields[name].axis if name in ctx.fields else None
    known = ctx.taxonomy[axis].by_id if axis else {}
    return " ".join(
        ctx.chip_html(page, name, v) if v in known else f"<code>{html_text(v)}</code>"
        for v in values
    )


def _current(ctx: SiteContext, correction: Correction) -> tuple[str, ...]:
    if correction.field not in ctx.fields:
        return ()
    return ctx.values_of(correction.entry, correction.field)


def _cells(ctx: SiteContext, page: str, correction: Correction) -> list[str]:
    return [
        _field_html(ctx, page, correction.field),
        _values_html(ctx, page, correction.field, correction.published),
        _values_html(ctx, page, correction.field, _current(ctx, correction)),
    ]


def entry_corrections(ctx: SiteContext, page: str, entry: Entry, body: Body) -> None:
    """The entry page's Corrections section; nothing for an entry never corrected."""
    found = corrections_of(entry)
    if not found:
        return
    rounds_page = html_href(page, CORRECTIONS_PAGE)
    rows = [
        [
            *_cells(ctx, page, c),
            f'<a href="{html_attr(rounds_page + "#" + round_anchor(c.round))}">{html_text(c.round)}</a>',
            html_text(c.reason),
        ]
        for c in found
    ]
    body.heading(2, "Corrections", ENTRY_ANCHOR)
    body.paragraph(
        f"Tags changed since the survey published them (snapshot <code>{md_text(PUBLISHED_SNAPSHOT)}</code>, "
        "which keeps the published values), with the round that changed them and why. "
        f'<a href="{html_attr(rounds_page)}">All corrections</a>.'
    )
    body.raw(
        _scrolling(
            html_table(
                ["Field", "Published", "Current", "Round", "Reason"], rows, "masrl-corrections"
            )
        )
    )


def _scrolling(table: str) -> str:
    """A table that scrolls sideways inside its own box on a narrow screen."""
    return f'<div class="masrl-scroll">\n{table}\n</div>'


def link_see_corrections(notes: str) -> str:
    """The notes' "see corrections" (escaped text) as a link to the entry's Corrections section."""
    return notes.replace("see corrections", f'<a href="#{ENTRY_ANCHOR}">see corrections</a>')


def by_round(ctx: SiteContext) -> dict[str, list[Correction]]:
    """Every correction, grouped by round: newest round first, rounds without a record last;
    within a round by entry key, in the entry's own order."""
    rounds = [r.id for r in read_rounds(ctx.corpus.project)[0]]
    groups: dict[str, list[Correction]] = {}
    for entry in sorted(ctx.corpus.entries, key=lambda e: e.key):
        for correction in corrections_of(entry):
            groups.setdefault(correction.round, []).append(correction)
    order = [r for r in reversed(rounds) if r in groups]
    order += sorted(r for r in groups if r not in rounds and r != NO_ROUND)
    order += [NO_ROUND] if NO_ROUND in groups else []
    return {r: groups[r] for r in order}


def corrections_markdown(ctx: SiteContext) -> str:
    page = CORRECTIONS_PAGE
    groups = by_round(ctx)
    total = sum(len(items) for items in groups.values())
    entries = len({c.entry.key for items in groups.values() for c in items})
    parts = [
        "# Corrections",
        "",
        (
            "Tags the live corpus changed after the survey published them: per round, newest first, "
            "each correction's entry, field, published value, current value and reason. The frozen "
            f"snapshot <code>{md_text(PUBLISHED_SNAPSHOT)}</code> keeps the published values; each "
            "entry page lists its own corrections. The [Atom feed](feed.xml) announces each round's."
        ),
        "",
    ]
    if not groups:
        parts += [
            "No tag has been corrected since publication: every entry holds the values the "
            "survey published. A correction is recorded in the entry's `corrections` list "
            "(field, published value, reason, round).",
            "",
        ]
        return "\n".join(parts)
    parts += [f"{total} corrections on {entries} entries.", ""]
    for round_id, items in groups.items():
        noun = "correction" if len(items) == 1 else "corrections"
        keys = len({c.entry.key for c in items})
        parts += [
            f"## Round {md_text(round_id)} {{ #{round_anchor(round_id)} }}",
            "",
            f"{len(items)} {noun} on {keys} {'entry' if keys == 1 else 'entries'}.",
            "",
        ]
        rows = [
            [
                ctx.entry_link_html(page, c.entry.key, c.entry.key),
                *_cells(ctx, page, c),
                html_text(c.reason),
            ]
            for c in items
        ]
        parts += [
            _scrolling(
                html_table(
                    ["Entry", "Field", "Published", "Current", "Reason"], rows, "masrl-corrections"
                )
            ),
            "",
        ]
    return "\n".join(parts)


def correction_pages(ctx: SiteContext) -> dict[str, str]:
    return {CORRECTIONS_PAGE: corrections_markdown(ctx)}
