"""Browse pages (one per axis, entries listed per value, empty values marked as gaps) and the
taxonomy reference (every axis and value, with anchors)."""

from __future__ import annotations

from masrl.render.site.context import (
    NOT_APPLICABLE,
    SiteContext,
    browse_page,
    relative_link,
    value_anchor,
)
from masrl.render.site.entries import SEARCH_EXCLUDED
from masrl.render.site.escape import anchor_id, html_text, md_text
from masrl.render.site.links import links_html
from masrl.render.site.markdown import table
from masrl.render.site.navigation import nav_file
from masrl.render.site.reports import count_link
from masrl.render.site.search import definition_front_matter

BROWSE_INDEX = "browse/index.md"
TAXONOMY_PAGE = "taxonomy.md"


def browse_pages(ctx: SiteContext) -> dict[str, str]:
    listed: dict[str, str] = {}  # an entry's facts and links, shared by every browse page
    pages = {browse_page(name): browse_markdown(ctx, name, listed) for name in ctx.browse_fields}
    pages[BROWSE_INDEX] = browse_index_markdown(ctx)
    pages.update(
        nav_file(
            "Browse", [(ctx.field_label(name), browse_page(name)) for name in ctx.browse_fields]
        )
    )
    pages[TAXONOMY_PAGE] = taxonomy_markdown(ctx)
    return pages


def _gap_count(groups: dict[str, list[str]]) -> int:
    return sum(1 for value, keys in groups.items() if value != NOT_APPLICABLE and not keys)


def browse_index_markdown(ctx: SiteContext) -> str:
    page = BROWSE_INDEX
    rows = []
    for name in ctx.browse_fields:
        groups = ctx.entries_with_value(name)
        values = [v for v in groups if v != NOT_APPLICABLE]
        gaps = _gap_count(groups)
        gap_cell = f'<span class="masrl-gap-text">{gaps}</span>' if gaps else "0"
        link = f"[{md_text(ctx.field_label(name))}]({relative_link(page, browse_page(name))})"
        rows.append([link, f"<code>{md_text(name)}</code>", str(len(values)), gap_cell])
    return "\n".join(
        [
            "# Browse",
            "",
            (
                "One page per axis of the taxonomy: each value with its definition and the entries that hold it. "
                "Values that no entry holds are marked as gaps."
            ),
            "",
            table(["Axis", "Field", "Values", "Empty values (gaps)"], rows, "llrr"),
            "",
        ]
    )


def browse_markdown(ctx: SiteContext, name: str, listed: dict[str, str] | None = None) -> str:
    """listed: what each entry's item says after its title (year, authors, links), by key, kept
    across the browse pages: an entry is listed under every value it holds, on every axis."""
    page = browse_page(name)
    listed = {} if listed is None else listed
    field = ctx.fields[name]
    groups = ctx.entries_with_value(name)
    description = (
        ctx.taxonomy[field.axis].description
        if field.axis
        else "The year of the version the survey cites."
    )
    overview = []
    for value, keys in groups.items():
        label = md_text(ctx.value_label(name, value))
        css = "masrl-count-gap" if not keys and value != NOT_APPLICABLE else "masrl-count"
        count = count_link(page, name, value, len(keys)) if keys else str(len(keys))
        overview.append(
            [f"[{label}](#{value_anchor(value)})", f'<span class="{css}">{count}</span>']
        )
    parts = [
        SEARCH_EXCLUDED,
        "",
        f"# {md_text(ctx.field_label(name))}",
        "",
        md_text(description),
        "",
        f"Field <code>{md_text(name)}</code>. "
        + (
            "An entry may hold several values, so it can appear under more than one. "
            if field.multi
            else ""
        )
        + f"See also the [taxonomy reference]({relative_link(page, TAXONOMY_PAGE, anchor_id(field.axis) if field.axis else '')}).",
        "",
        table(["Value", "Entries"], overview, "lr"),
        "",
    ]
    ordered = {e.key: i for i, e in enumerate(ctx.entries)}
    for value, keys in groups.items():
        parts += [f"## {md_text(ctx.value_label(name, value))} {{ #{value_anchor(value)} }}", ""]
        definition = ctx.value_definition(name, value)
        if value != NOT_APPLICABLE and field.axis:
            parts += [
                f'<p class="masrl-definition"><code>{md_text(value)}</code> · {md_text(definition)}</p>',
                "",
            ]
        if not keys:
            gap = (
                "Gap: no retained entry holds this value."
                if value != NOT_APPLICABLE
                else "No entry."
            )
            parts += [f'<p class="masrl-gap">{gap}</p>', ""]
            continue
        parts += [f"{len(keys)} {'entry' if len(keys) == 1 else 'entries'}:", ""]
        items = [
            f"<li>{ctx.entry_link_html(page, key)} {listed.get(key) or _listed(ctx, key, listed)}</li>"
            for key in sorted(keys, key=ordered.__getitem__)
        ]
        parts += ['<ul class="masrl-entry-list">', *items, "</ul>", ""]
    return "\n".join(parts)


def _listed(ctx: SiteContext, key: str, listed: dict[str, str]) -> str:
    entry = ctx.by_key[key]
    listed[key] = (
        f'<span class="masrl-facts">{html_text(entry.year)} · {html_text(ctx.authors_short(entry))}</span> '
        f"{links_html(entry)}"
    )
    return listed[key]


def taxonomy_markdown(ctx: SiteContext) -> str:
    page = TAXONOMY_PAGE
    browse_of_axis = {
        field.axis: name
        for name, field in ctx.fields.items()
        if field.axis and name in ctx.browse_fields
    }
    parts = [
        definition_front_matter(ctx),
        "",
        "# Taxonomy reference",
        "",
        (
            "Every controlled vocabulary in `taxonomy/`: each axis with its values, labels and definitions. "
            "Every tag in the corpus is one of these values; `masrl validate` rejects anything else. "
            "Each value has an anchor, <code>#&lt;axis&gt;-&lt;value&gt;</code>."
        ),
        "",
    ]
    for axis_name in ctx.taxonomy.axes:
        axis = ctx.taxonomy[axis_name]
        parts += [f"## {md_text(axis.label)} {{ #{anchor_id(axis_name)} }}", ""]
        parts += [f"<code>{md_text(axis_name)}</code> · {md_text(axis.description)}", ""]
        browse_name = browse_of_axis.get(axis_name)
        if browse_name:
            parts += [
                f"[Browse the entries by this axis]({relative_link(page, browse_page(browse_name))})",
                "",
            ]
        extra_keys = sorted({k for v in axis.values for k in v.extra})
        headers = ["Value", "Label", "Definition", *[md_text(k.capitalize()) for k in extra_keys]]
        rows = []
        for value in axis.values:
            anchor = f'<span id="{anchor_id(axis_name, value.id)}"></span>'
            label = md_text(value.label)
            if browse_name:
                label = f"[{label}]({relative_link(page, browse_page(browse_name), value_anchor(value.id))})"
            extras = [
                md_text(
                    ", ".join(map(str, v)) if isinstance(v := value.extra.get(k, ""), list) else v
                )
                for k in extra_keys
            ]
            rows.append(
                [
                    f"{anchor}<code>{md_text(value.id)}</code>",
                    label,
                    md_text(value.definition),
                    *extras,
                ]
            )
        parts += [table(headers, rows), ""]
    return "\n".join(parts)
