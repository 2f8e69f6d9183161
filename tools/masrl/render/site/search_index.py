"""The search index read from each page's HTML by a quicker reader than mkdocs-material's.

material's search plugin divides each page's HTML into sections (one per heading with an id) by
feeding it to Python's ``html.parser``; that was the largest cost of the build's thousands of
entry pages. ``page_sections`` gives the same sections, text and titles, from a tokenizer of
regular expressions and the same rules as material's ``Parser``, for pages whose HTML it fully
understands: well-formed tags with quoted (or no) attribute values, text, and nothing of what
``html.parser`` or material's parser treats specially (comments, declarations, script, style and
the other raw-text elements, and material's ``data-search-exclude`` and line-number blocks).
Any other page goes to material's own parser, so the index is the same either way. The reader
goes through the page once: it meets whatever it leaves to material's parser on the way, in
the tags and their attributes, rather than looking for it in the whole page first.

material's parser compares elements by tag name only (its ``Element.__eq__``): a heading is
"open" while any element of its tag is, and an end tag counts only when it ends the innermost
open element. The reader keeps that, with tag names in place of elements.
"""

from __future__ import annotations

import re
from html import escape, unescape
from itertools import chain
from types import MethodType

from material.plugins.search import plugin as material_search
from material.plugins.search.plugin import Element, Parser, SearchIndex, SearchPlugin, Section

from masrl.render.site.page_memory import release_free_memory

# The elements html.parser (in any current Python) reads as raw text, and material's parser
# skips: a page with one is left to material's parser. Comments, declarations and processing
# instructions ("<!", "<?") are no tag to the tokenizer below, so they leave the page to it too.
_RAW = frozenset(
    ("script", "style", "object", "textarea", "title", "xmp", "iframe", "noembed")
    + ("noframes", "noscript", "plaintext")
)
# Possessive (never giving back what they took): a tag's parts follow one another with nothing a
# part could give back to the next, so a tag matches as it would otherwise, with no backtracking.
_ATTR = r"""\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*+(?:\s*+=\s*+(?:"[^"]*+"|'[^']*+'))?+"""
# One tag: an end tag, or a start tag (group 4: "/" when it closes itself).
_TAG = re.compile(
    rf"<(?:/([a-zA-Z][-.a-zA-Z0-9:_]*+)\s*+|([a-zA-Z][-.a-zA-Z0-9:_]*+)((?:{_ATTR})*+)\s*+(/?))>"
)
_ATTRS = re.compile(r"""([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'))?""")
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
# As material's parser: tags without an end, and tags kept in the index's text.
_VOID = frozenset(
    ("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param")
    + ("source", "track", "wbr")
)
_KEEP = frozenset(("p", "code", "pre", "li", "ol", "ul", "sub", "sup"))


def _attributes(text: str) -> dict[str, str | None]:
    """As html.parser reads them: names in lower case, values unquoted and unescaped, None for
    a name alone; the last of a repeated name wins (material makes a dict of them)."""
    attrs: dict[str, str | None] = {}
    for match in _ATTRS.finditer(text):
        name, double, single = match.groups()
        value = double if double is not None else single
        attrs[name.lower()] = unescape(value) if value else value
    return attrs


def _skipped(attrs: str) -> bool:
    """Whether material's parser skips an element of these attributes: ``data-search-exclude``,
    or the class ``linenodiv`` (or anything that might be either)."""
    lowered = attrs.lower()
    return (
        "data-search-exclude" in lowered
        or "linenodiv" in lowered
        or ("&" in attrs and _attributes(attrs).get("class") == "linenodiv")
    )


def page_sections(html: str) -> list[Section]:
    """The sections of a page's HTML, as material's search parser divides it."""
    parts = _TAG.split(html)  # text, then per tag: end tag, start tag, attributes, "/", text
    if html.count("<") != len(parts) // 5:  # a "<" that opens no tag (or one inside a value)
        return _material_sections(html)
    tags: list[str] = []  # the open elements' tags
    pre = 0  # how many of them are "pre"
    permalinks: list[int] = []  # the depths of the open headings' permalinks
    data: list[Section] = []
    section: Section | None = None
    heading = ""  # the tag of the section's element

    chunks = iter(parts)
    # one row per tag, and the text after it; the first row is the text before any tag
    rows = chain(
        ((None, None, None, None, next(chunks)),), zip(chunks, chunks, chunks, chunks, chunks)
    )
    for closing, tag, attrs, closes_itself, chunk in rows:
        if tag is not None:
            tag = tag.lower()
            if tag in _VOID:
                closing = tag if closes_itself else None
            else:
                if tag in _RAW or (attrs and _skipped(attrs)):
                    return _material_sections(html)  # what material's parser skips
                tags.append(tag)
                if tag == "pre":
                    pre += 1
                if tag == "a" and "headerlink" in attrs:
                    if _attributes(attrs).get("class") == "headerlink":
                        permalinks.append(len(tags))
                elif tag in _HEADINGS and attrs:
                    read = _attributes(attrs)
                    if "id" in read:
                        depth = len(tags)
                        if tag != "h1" and not data:
                            data.append(Section(Element("hx"), depth))
                        section = Section(Element(tag, read), depth)
                        heading = tag
                        if data:
                            section.id = read["id"]
                        data.append(section)
                if section is None:
                    section = Section(Element("hx"))
                    heading = "hx"
                    data.append(section)
                if tag in _KEEP:
                    (section.title if heading in tags else section.text).append(f"<{tag}>")
                closing = tag if closes_itself else None
        elif closing is not None:
            closing = closing.lower()
        if closing is not None and tags and tags[-1] == closing:  # an end, as material's
            if section.depth > len(tags):
                for earlier in reversed(data):
                    if earlier.depth <= len(tags):
                        section.depth = float("inf")
                        section = earlier
                        heading = section.el.tag
                        break
            if permalinks and permalinks[-1] == len(tags):
                permalinks.pop()
            tags.pop()
            if closing == "pre":
                pre -= 1
            if closing in _KEEP:
                kept = section.title if heading in tags else section.text
                index = kept.index(f"<{closing}>")
                for i in range(index + 1, len(kept)):
                    if not kept[i].isspace():
                        index = len(kept)
                        break
                if len(kept) > index:
                    del kept[index:]
                else:
                    kept.append(f"</{closing}>")
        if chunk:  # text, as material's
            if "&" in chunk:
                chunk = unescape(chunk)
            if not pre:
                chunk = " " if chunk.isspace() else chunk.replace("\n", " ")
            if section is None:
                section = Section(Element("hx"))
                heading = "hx"
                data.append(section)
            if heading in tags:
                if not permalinks:
                    section.title.append(escape(chunk, quote=False))
            elif chunk.isspace():
                text = section.text
                if not text or not text[-1].isspace() or pre:
                    text.append(chunk)
            else:
                section.text.append(escape(chunk, quote=False))
    return data


def _material_sections(html: str) -> list[Section]:
    parser = Parser()
    parser.feed(html)
    parser.close()
    return parser.data


class QuickSearchIndex(SearchIndex):
    """material's search index, each page divided by ``page_sections`` and its entries made as
    material's ``create_entry_for_section`` makes them, with what is the page's worked out once
    per page: its table of contents by anchor, its tags and its boost."""

    def generate_search_index(self, prev) -> str:
        release_free_memory()  # every page is written: what they freed goes back first
        return super().generate_search_index(prev)

    def add_entry_from_context(self, page) -> None:
        search = page.meta.get("search") or {}
        if search.get("exclude"):
            return
        sections = [s for s in page_sections(page.content) if not s.is_excluded()]
        if material_search.jieba:  # Chinese text segmented: material's own way
            for section in sections:
                self.create_entry_for_section(section, page.toc, page.url, page)
            return
        anchors: dict = {}  # the first item of each id, in the order material looks for it
        _toc_by_id(page.toc, anchors)
        tags = page.meta.get("tags")
        if isinstance(tags, list):
            tags = [str(n) for n in tags if n and isinstance(n, (str, int, float, bool))]
        else:
            tags = None
        url = page.url
        for section in sections:
            item = anchors.get(section.id)
            if item:
                location = url + item.url
            elif section.id:
                location = url + "#" + section.id
            else:
                location = url
            if not section.title:
                section.title = [str(page.meta.get("title", page.title))]
            entry = {
                "location": location,
                "title": "".join(section.title).strip(),
                "text": "".join(section.text).strip(),
            }
            if tags is not None:
                entry["tags"] = list(tags)
            if "boost" in search:
                entry["boost"] = search["boost"]
            self.entries.append(entry)


def _toc_by_id(items, anchors: dict) -> None:
    """Each id's first item, depth first, as material's ``_find_toc_by_id`` finds it."""
    for item in items:
        anchors.setdefault(item.id, item)
        _toc_by_id(item.children, anchors)


def _on_page_context(self, context, *, page, config, nav):
    """material's search ``on_page_context``, which takes its ``data-search-*`` attributes out
    of every page; a page without one is left as it is, unread."""
    if not self.config.enabled:
        return
    self.search_index.add_entry_from_context(page)
    if "data-search-" in page.content:
        page.content = re.sub(r"\s?data-search-\w+=\"[^\"]+\"", "", page.content)


def on_config(config):
    """mkdocs' config event, after the search plugin's: its index reads pages the quicker way."""
    for plugin in config.plugins.values():
        if isinstance(plugin, SearchPlugin) and isinstance(
            getattr(plugin, "search_index", None), SearchIndex
        ):
            plugin.search_index = QuickSearchIndex(**plugin.config)
            _replace_page_context(config.plugins, plugin)
    return config


def _replace_page_context(plugins, plugin: SearchPlugin) -> None:
    """The search plugin's page_context event handled by ``_on_page_context`` in its place."""
    events = plugins.events["page_context"]
    for i, method in enumerate(events):
        if (
            getattr(method, "__self__", None) is plugin
            and getattr(method, "__func__", None) is SearchPlugin.on_page_context
        ):
            events[i] = MethodType(_on_page_context, plugin)
            origins = getattr(plugins, "_event_origins", None)
            if isinstance(origins, dict) and method in origins:
                origins[events[i]] = origins[method]
