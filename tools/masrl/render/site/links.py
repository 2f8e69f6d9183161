"""Links out of the site for one entry: arXiv abstract and PDF, DOI, OpenReview, and the
artifacts (code, project page, data, weights).

One definition, used by every list, the table data and the entry pages, so a row in any view
leads to the same places.
"""

from __future__ import annotations

from urllib.parse import quote

from masrl.model.records import ARTIFACT_LINKS, Entry
from masrl.render.site.escape import html_attr, html_text, safe_url

# (kind, label, URL from the identifier), in the order a reader wants them.
IDENTIFIER_LINKS = (
    ("arxiv", "arXiv", lambda value: f"https://arxiv.org/abs/{quote(value, safe='/.')}"),
    ("pdf", "PDF", None),  # from the arXiv id
    ("doi", "DOI", lambda value: f"https://doi.org/{quote(value, safe='/.;()-_')}"),
    (
        "openreview",
        "OpenReview",
        lambda value: f"https://openreview.net/forum?id={quote(value, safe='-_')}",
    ),
)


def entry_links(entry: Entry) -> dict[str, str]:
    """{kind: URL} for arxiv, pdf, doi, openreview and each artifact kind (its first link), where known."""
    links: dict[str, str] = {}
    arxiv = entry.identifiers.get("arxiv")
    for kind, _, url_of in IDENTIFIER_LINKS:
        if kind == "pdf":
            if arxiv:
                links["pdf"] = f"https://arxiv.org/pdf/{quote(arxiv, safe='/.')}"
            continue
        value = entry.identifiers.get(kind)
        if value:
            links[kind] = url_of(value)
    for kind in ARTIFACT_LINKS:
        found = [link["url"] for link in getattr(entry, kind, ()) if safe_url(link["url"])]
        if found:
            links[kind] = found[0]
    return links


ARTIFACT_LABELS = {"code": "Code", "project_page": "Project", "data": "Data", "weights": "Weights"}
LABELS = {kind: label for kind, label, _ in IDENTIFIER_LINKS} | ARTIFACT_LABELS


def links_html(entry: Entry) -> str:
    """The links as a compact inline list (raw HTML) for listings; empty when there is none."""
    items = [
        f'<a class="masrl-out masrl-out--{kind}" href="{html_attr(url)}" rel="noopener">{html_text(LABELS[kind])}</a>'
        for kind, url in entry_links(entry).items()
    ]
    return f'<span class="masrl-links">{" ".join(items)}</span>' if items else ""


def code_badge(links: dict[str, str]) -> str:
    """The badge an entry with released code carries (raw HTML), linking to the code."""
    return (
        f'<a class="masrl-badge masrl-badge--code" href="{html_attr(links["code"])}" rel="noopener" '
        'title="The authors released code">Code available</a>'
    )
