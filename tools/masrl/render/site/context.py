"""What every page generator needs: the corpus, its statistics, and how pages link to each other.

Pages are addressed by their Markdown path inside the generated docs folder (``entries/c3.md``).
Links in Markdown are relative links to those paths, which a strict mkdocs build checks (a broken
link or anchor fails the build); links in raw HTML (long listings, where Markdown would be slow)
are relative URLs that mkdocs leaves alone, and the tests check every one of them.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path

from masrl.derive import stats as corpus_stats
from masrl.model.citations import CitationGraph, load_graph
from masrl.model.project import Corpus
from masrl.model.records import Entry
from masrl.render.site.escape import anchor_id, html_attr, html_text, md_text

NOT_APPLICABLE = corpus_stats.NOT_APPLICABLE

# The masrl checkout: its site/, CONTRIBUTING.md and docs_fragments/ serve a project lacking its own.
CHECKOUT_ROOT = Path(__file__).resolve().parents[4]


def browse_page(field_name: str) -> str:
    return f"browse/{field_name}.md"


def entry_page(key: str) -> str:
    return f"entries/{key}.md"


def value_anchor(value: str) -> str:
    return anchor_id(value)


def page_url(page: str) -> str:
    """The URL (relative to the site root) mkdocs gives a page, with directory URLs."""
    if page == "index.md":
        return ""
    stem = page[: -len(".md")]
    stem = stem.removesuffix("/index")
    return f"{stem}/"


def relative_link(from_page: str, to_page: str, anchor: str = "") -> str:
    """A relative Markdown link target from one docs file to another (mkdocs resolves it)."""
    target = posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")
    return f"{target}#{anchor}" if anchor else target


def html_href(from_page: str, to: str, anchor: str = "") -> str:
    """A relative URL for raw HTML to a docs page ("papers.md") or a file ("masrl.bib"): up to the
    site root, then down to the target (cheap; mkdocs does not rewrite raw HTML)."""
    target = page_url(to) if to.endswith(".md") else to
    url = _root_prefix(from_page) + target or "./"
    return f"{url}#{anchor}" if anchor else url


@cache
def _root_prefix(page: str) -> str:
    return "../" * page_url(page).count("/")


@dataclass
class SiteContext:
    corpus: Corpus
    repository: str | None = None  # e.g. https://github.com/owner/name, for edit and suggest links
    site_url: str | None = None  # where the site is published (CITATION.cff url), ending in "/"
    generated_paths: frozenset[str] = (
        frozenset()
    )  # set by the builder once the generated pages exist
    stats: corpus_stats.Stats = field(init=False)

    def __post_init__(self) -> None:
        self.stats = corpus_stats.compute_stats(self.corpus)
        self._groups: dict[str, dict[str, list[str]]] = {}
        self._labels: dict[tuple[str, str], str] = {}
        self._tips: dict[str, dict[str, str]] = {}  # page -> {tip id: what its chips say on hover}

    @property
    def taxonomy(self):
        return self.corpus.taxonomy

    @cached_property
    def snapshot(self) -> Corpus | None:
        """The published snapshot the live numbers stand beside (None in a project without one)."""
        from masrl.check.snapshot import published_snapshot

        return published_snapshot(self.corpus.project)

    @cached_property
    def snapshot_stats(self) -> corpus_stats.Stats | None:
        return corpus_stats.compute_stats(self.snapshot) if self.snapshot is not None else None

    @cached_property
    def fields(self) -> dict[str, corpus_stats.Field]:
        return corpus_stats.countable_fields(self.taxonomy)

    @cached_property
    def entries(self) -> list[Entry]:
        """Entries in a stable reading order: newest first, then by title and key."""
        return sorted(self.corpus.entries, key=lambda e: (-e.year, e.title.casefold(), e.key))

    @cached_property
    def bibtex(self) -> dict[str, str]:
        """Each entry's BibTeX as `masrl export bib` writes it, computed once (pages and table data
        share it) and kept in the render cache: LaTeX-encoding every entry is a sixth of the
        generation time, and the same corpus, writer and libraries give the same text."""
        from masrl.exports import bibtex as writer
        from masrl.render.cache import cached_files, code_fingerprint

        def produce() -> dict[str, bytes]:
            texts = {e.key: writer.export_bibtex([e]) for e in self.corpus.entries}
            return {
                "entries.json": json.dumps(texts, sort_keys=True, ensure_ascii=False).encode(
                    "utf-8"
                )
            }

        inputs = [
            self.corpus_json.encode("utf-8"),
            code_fingerprint(packages=("bibtexparser", "pylatexenc")),
        ]
        return json.loads(cached_files("bibtex", inputs, produce)["entries.json"])

    @cached_property
    def corpus_json(self) -> str:
        """`masrl export json` of the corpus, serialised once: published as data/corpus.json and
        part of the BibTeX's render-cache key."""
        from masrl.exports.json import export_json

        return export_json(self.corpus)

    @cached_property
    def by_key(self) -> dict[str, Entry]:
        return {e.key: e for e in self.corpus.entries}

    @cached_property
    def citations(self) -> CitationGraph:
        """citations/graph.yaml (empty when absent); an InputError names a key that is no entry."""
        return load_graph(self.corpus.project, set(self.by_key))

    @cached_property
    def citations_known(self) -> set[str]:
        """Entries whose reference list is known (from OpenAlex or read by hand)."""
        return self.citations.references_known() & set(self.by_key)

    @cached_property
    def citations_coverage(self) -> tuple[int, int, str | None]:
        """(entries with references known, all entries, retrieval date), computed once: every
        entry page says it."""
        return self.citations.coverage(self.by_key)

    @cached_property
    def lineage(self) -> dict[str, tuple[list[str], list[str]]]:
        """Per entry: (the entries it cites, the entries citing it), each sorted; asked of the
        graph once per entry that has an edge, since the entry pages, the graph page and its
        data all read them."""
        graph = self.citations
        linked = {key for edge in graph.edges for key in edge.pair}
        return {
            key: (graph.builds_on(key), graph.built_upon_by(key)) if key in linked else ([], [])
            for key in self.by_key
        }

    @cached_property
    def reward_credit_cells(self) -> dict[tuple[str, str], list[Entry]]:
        """Entries per (reward type, credit unit) cell, in reading order: one pass, not one per page."""
        cells: dict[tuple[str, str], list[Entry]] = {}
        for entry in self.entries:
            for reward in entry.reward_types:
                for credit in entry.credit_units:
                    cells.setdefault((reward, credit), []).append(entry)
        return cells

    def values_of(self, entry: Entry, field_name: str) -> tuple[str, ...]:
        return corpus_stats.entry_values(entry, field_name, self.taxonomy)

    def column_label(self, field_name: str) -> str:
        axis = self.taxonomy[self.taxonomy.axis_of_field[field_name]]
        return str(axis.show.get("column_heading", axis.label))

    def field_label(self, field_name: str) -> str:
        return self.stats.labels.get(field_name, field_name)

    def value_label(self, field_name: str, value: str) -> str:
        # Memoised: every chip asks, and the lookup walks the field specifications (keeps generation linear).
        known = self._labels.get((field_name, value))
        if known is None:
            known = self._labels[(field_name, value)] = corpus_stats.value_label(
                self.corpus, field_name, value
            )
        return known

    def value_definition(self, field_name: str, value: str) -> str:
        axis = self.fields[field_name].axis
        if axis is None or value not in self.taxonomy[axis].by_id:
            return ""
        return self.taxonomy[axis].by_id[value].definition

    @cached_property
    def browse_fields(self) -> tuple[str, ...]:
        """The fields with a browse page, in the statistics order."""
        return corpus_stats.axis_fields(self.taxonomy)

    def entries_with_value(self, field_name: str) -> dict[str, list[str]]:
        """Entry keys per value of a field (computed once per field; do not modify the result)."""
        if field_name not in self._groups:
            self._groups[field_name] = corpus_stats.entries_with_value(self.corpus, field_name)
        return self._groups[field_name]

    # Links -----------------------------------------------------------------------------------

    def entry_link(self, from_page: str, key: str, text: str | None = None) -> str:
        entry = self.by_key[key]
        label = md_text(entry.title if text is None else text)
        return f"[{label}]({relative_link(from_page, entry_page(key))})"

    def chip(self, from_page: str, field_name: str, value: str) -> str:
        """A tag chip inside Markdown (a table cell, a list): the chip of chip_html, its text
        escaped so that Markdown reads none of it."""
        return self.chip_html(from_page, field_name, value, escape=md_text)

    # The same, as raw HTML (for long listings: Markdown would spend most of a large build on them).

    def entry_link_html(self, from_page: str, key: str, text: str | None = None) -> str:
        entry = self.by_key[key]
        href = html_attr(html_href(from_page, entry_page(key)))
        return f'<a href="{href}">{html_text(entry.title if text is None else text)}</a>'

    def chip_tip(self, field_name: str, value: str) -> str:
        """What a chip says on hover and focus: its axis, then the value's definition."""
        definition = self.value_definition(field_name, value)
        return (
            f"{self.field_label(field_name)}: {definition}"
            if definition
            else self.field_label(field_name)
        )

    def chip_html(
        self, from_page: str, field_name: str, value: str, qualified: bool = False, escape=html_text
    ) -> str:
        """A tag chip linking to the value's section of the browse page of its axis. Its axis and
        definition show on hover and focus (data-tip, drawn by CSS) and reach screen readers as
        its description (aria-describedby names a hidden element of the page: see tips_html)."""
        href = html_attr(html_href(from_page, browse_page(field_name), value_anchor(value)))
        label = self.value_label(field_name, value)
        label = escape(f"{label} ({self.field_label(field_name).lower()})" if qualified else label)
        tip_text = self.chip_tip(field_name, value)
        tip_id = anchor_id("masrl-tip", field_name, value)
        self._tips.setdefault(from_page, {})[tip_id] = tip_text
        return (
            f'<a class="masrl-chip masrl-chip--{field_name}" href="{href}" data-tip="{escape(tip_text)}" '
            f'aria-describedby="{tip_id}">{label}</a>'
        )

    def pages_with_tips(self) -> list[str]:
        return sorted(self._tips)

    def tips_html(self, page: str) -> str:
        """The descriptions the chips of a page point to, once each, hidden from sight (a
        description may live in hidden content); empty for a page without chips."""
        tips = self._tips.get(page)
        if not tips:
            return ""
        spans = "".join(
            f'<span id="{tip_id}">{html_text(text)}</span>' for tip_id, text in sorted(tips.items())
        )
        return f'<div class="masrl-tips" hidden>{spans}</div>'

    def take_tips_html(self, page: str) -> str:
        """``tips_html`` for a page that ends with its descriptions itself (an entry page, written
        as HTML): they are taken, so the builder does not add them again."""
        tips = self.tips_html(page)
        self._tips.pop(page, None)
        return tips

    @property
    def tag_fields(self) -> tuple[str, ...]:
        """Fields entry pages list as tag rows, in the registry's `show.tags` order."""
        return self.taxonomy.shown("tags")

    @cached_property
    def filter_fields(self) -> tuple[str, ...]:
        """Fields the interactive table filters by: its facets, then every other field the site
        links to the table by (a cross-tab's or a count's field, e.g. `verified`), so that no
        link opens a table that ignores part of its query."""
        facets = self.taxonomy.shown("facet")
        linked = (*self.tag_fields, *self.taxonomy.shown("stats"))
        return facets + tuple(dict.fromkeys(n for n in linked if n not in facets))

    def chips_html(
        self, from_page: str, entry: Entry, fields: tuple[str, ...] | None = None
    ) -> str:
        fields = self.taxonomy.shown("chip") if fields is None else fields
        # A label shows once per row: where two axes share one ("Debate" reward and topology),
        # both chips name their axis.
        pairs = [(name, v) for name in fields for v in self.values_of(entry, name)]
        labels = [self.value_label(name, v).casefold() for name, v in pairs]
        return " ".join(
            self.chip_html(from_page, name, v, labels.count(label) > 1)
            for (name, v), label in zip(pairs, labels)
        )

    def authors_short(self, entry: Entry) -> str:
        """First author's surname, with et al. for more authors."""
        first = entry.first_author.split(",")[0].strip() if entry.first_author else ""
        more = len(entry.authors) > 1 or not entry.authors_complete
        return f"{first} et al." if more else first
