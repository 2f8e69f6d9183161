"""The data page's list of releases: each with its files, a "cite this version" BibTeX and what
changed since the release before (added, removed and re-tagged records)."""

from __future__ import annotations

from masrl.render.release import Release, list_releases
from masrl.render.site.citation import citation_file
from masrl.render.site.context import SiteContext, entry_page, relative_link
from masrl.render.site.escape import md_text
from masrl.render.site.markdown import code_block

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
SHOWN_KEYS = 40  # keys listed per change before "and N more"


def release_bibtex(release: Release, title: str, repository: str | None) -> str:
    """BibTeX citing this version of the dataset (a @misc with its version and date)."""
    year, month, _ = release.date.split("-")
    fields = [
        ("title", f"{{{title}}}"),
        ("author", "{masrl contributors}"),
        ("year", year),
        ("month", MONTHS[int(month) - 1]),
        ("version", release.version),
        ("note", f"Data release {release.version}, screening round {release.round}"),
    ]
    if repository:
        fields.append(("url", f"{repository}/tree/main/releases/{release.version}"))
    body = "".join(
        f"  {name} = {value},\n" if name == "month" else f"  {name} = {{{value}}},\n"
        for name, value in fields
    )
    return f"@misc{{masrl{release.version.replace('.', '_')},\n{body}}}\n"


def _keys(ctx: SiteContext, page: str, keys: list[str]) -> str:
    # Keys match KEY_PATTERN (lower-case letters, digits, dashes): nothing to escape.
    known = {e.key for e in ctx.corpus.entries}
    shown = [
        f"[{k}]({relative_link(page, entry_page(k))})" if k in known else md_text(k)
        for k in keys[:SHOWN_KEYS]
    ]
    more = f" and {len(keys) - SHOWN_KEYS} more" if len(keys) > SHOWN_KEYS else ""
    return ", ".join(shown) + more


def _changes(ctx: SiteContext, page: str, release: Release) -> list[str]:
    changes = release.changes
    previous = changes.get("previous")
    added, removed = changes.get("added", []), changes.get("removed", [])
    retagged = changes.get("retagged", [])
    since = f"since {previous}" if previous else "(the first release)"
    lines = [
        f"**Changes {since}:** {len(added)} added, {len(removed)} removed, "
        f"{len(retagged)} re-tagged.",
        "",
    ]
    if added:
        lines += [f"- Added: {_keys(ctx, page, added)}"]
    if removed:
        lines += [f"- Removed: {_keys(ctx, page, removed)}"]
    for item in retagged[:SHOWN_KEYS]:
        fields = ", ".join(f"`{f}`" for f in item["fields"] if f.isidentifier())
        lines += [f"- Re-tagged {_keys(ctx, page, [item['key']])}: {fields}"]
    if len(retagged) > SHOWN_KEYS:
        lines += [f"- and {len(retagged) - SHOWN_KEYS} more re-tagged records"]
    return [*lines, ""]


def releases_fragment(ctx: SiteContext, page: str) -> str:
    """Every release, newest first; an empty state that says how a release is made."""
    releases = list_releases(ctx.corpus.project)
    if not releases:
        return "No release yet: each screening round closes with one (`masrl release YEAR.MONTH`)."
    title = str(citation_file(ctx.corpus.project.root).get("title") or "masrl")
    parts = []
    for release in reversed(releases):
        where = (
            f"[`releases/{release.version}/`]({ctx.repository}/tree/main/releases/{release.version})"
            if ctx.repository
            else f"`releases/{release.version}/`"
        )
        parts += [
            # version, round id and date are checked patterns (digits, dots, dashes): no escaping
            f"### Release {release.version}",
            "",
            f"The corpus when screening round {release.round} closed on "
            f"{release.date}: {release.entries} entries and {release.exclusions} "
            f"excluded records, in {where} as JSON, CSV (masrl's layout and the survey's), "
            "Parquet and BibTeX, with the round's flow and agreement, a Frictionless "
            "`datapackage.json` and `SHA256SUMS`.",
            "",
            *_changes(ctx, page, release),
            "Cite this version:",
            "",
            code_block(release_bibtex(release, title, ctx.repository), "bibtex"),
            "",
        ]
    return "\n".join(parts)
