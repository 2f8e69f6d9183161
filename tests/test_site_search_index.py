"""The search index's quicker reader divides a page as material's search parser does."""

from __future__ import annotations

import inspect
import re

import pytest
from masrl.render.site import search_index
from masrl.render.site.builder import SitePaths, mkdocs_config, site_source_dir
from masrl.render.site.search_index import QuickSearchIndex, page_sections
from material.plugins.search.plugin import Parser, SearchIndex, SearchPlugin
from test_site import built_site

# The sample and hostile sites these tests read are the ones the browser tests read: built once
# per run, whichever worker needs them first (``built_site``).


def _material(html: str):
    parser = Parser()
    parser.feed(html)
    parser.close()
    return parser.data


def _shape(sections):
    return [(s.el.tag, s.el.attrs, s.id, s.depth, s.title, s.text) for s in sections]


READ = [
    "",
    "<p>trailing &amp",
    "plain text only &amp; an entity",
    '<h1 id="title">Title<a class="headerlink" href="#title" title="Permanent link">&para;</a></h1>',
    '<p>before any heading</p>\n<h2 id="two">Two</h2>\n<p>text\nover lines</p>',
    '<h1 id="a">A</h1><div><h2 id="b">B <code>x</code></h2><p>in div</p></div><p>after div</p>',
    '<h3 id="deep">No h1 first</h3><ul>\n<li>one</li>\n<li> </li>\n<li><p>two</p></li>\n</ul>',
    "<pre><code>line 1\n  line 2\n\n</code></pre><p>   </p><p>x<sub>2</sub> y<sup>3</sup></p>",
    '<h2 id="x" class="c">Heading <em>em</em></h2><br /><hr/><img alt="a &gt; b" src="i.png" />',
    "<p class='single' data-x=\"1 > 0\" hidden>quoted &gt; attributes</p>",
    '<h2 id="dup" id="dup2">Repeated id</h2><p>t</p><h2>No id</h2><p>u</p>',
    "<span/>self-closing<p>kept</p></span><p>stray end</p></div>",
    '<H2 ID="Upper">Upper case</H2><P>Para</P>',
    '<div class="admonition abstract">\n<p class="admonition-title">Our summary</p>\n<p>A&#45;B&#59;</p>\n</div>',
    '<div class="highlight"><pre><span></span><code><span class="nc">@misc</span>{k,\n}</code></pre></div>',
    '<h1 id="t">T</h1><p>a</p><p>\n</p><p>b</p>  \n  <p>c</p>',
    "<p>text naming data-search-exclude and linenodiv</p><p class='a&amp;b'>x</p>",
    '<h2 id="p">In <code>pre</code></h2><pre><b>  a\n</b>  \n  <i>\n</i>  </pre><p>  \n  </p>',
]
LEFT = [
    '<h1 id="s">S</h1><script>var a = "<p>";</script><p>after</p>',
    '<h1 id="c">C</h1><!-- a <p> comment --><p>after</p>',
    '<h1 id="n">N</h1><noscript><p>no script</p></noscript>',
    '<p>a < b</p><h2 id="lt">lt</h2>',
    "<p data-search-exclude>hidden</p><p>shown</p>",
    '<table class="linenotable"><tr><td class="linenos"><div class="linenodiv"><pre>1</pre></div></td></tr></table>',
    '<div class="&#108;inenodiv"><pre>1</pre></div><p>after</p>',
    "<p>a</p><DIV Data-Search-Exclude><p>hidden</p></DIV><p>b</p>",
    "<p>a</p><STYLE>p { }</STYLE><p>b</p>",
    "<p a=unquoted>x</p>",
    '<p a="1"b="2">no space between attributes</p>',
]


@pytest.mark.parametrize("html", READ + LEFT)
def test_sections_as_materials_parser_divides_them(html):
    assert _shape(page_sections(html)) == _shape(_material(html))


def test_what_the_reader_does_not_know_goes_to_materials_parser(monkeypatch):
    read = []
    monkeypatch.setattr(
        search_index, "_material_sections", lambda html: read.append(html) or _material(html)
    )
    for html in READ:
        page_sections(html)
    assert read == []
    for html in LEFT:
        page_sections(html)
    assert read == LEFT


@pytest.mark.parametrize("kind", ["sample", "hostile"])
def test_every_page_of_a_built_site_divided_as_material_does(kind, tmp_path_factory):
    """Each built page's article: the page's HTML as the search plugin reads it, and more."""
    site = built_site(kind, tmp_path_factory)
    pages = 0
    for path in sorted(site.folder.rglob("index.html")):
        html = path.read_text(encoding="utf-8")
        article = re.search(r"<article[^>]*>(.*)</article>", html, re.S)
        if article:
            pages += 1
            assert _shape(page_sections(article.group(1))) == _shape(_material(article.group(1)))
    assert pages > 10


def test_the_built_site_uses_the_quicker_index(tmp_path_factory):
    site = built_site("sample", tmp_path_factory)
    paths = SitePaths(site_source_dir(site.project), site.docs, site.folder)
    config = mkdocs_config(paths)
    config.plugins.on_config(config)
    assert any(
        isinstance(getattr(plugin, "search_index", None), QuickSearchIndex)
        for plugin in config.plugins.values()
    )


class _Page:
    """What the search index reads of a page."""

    def __init__(self, content, toc, meta, title="Page title", url="entries/x/"):
        self.content, self.toc, self.meta, self.title, self.url = content, toc, meta, title, url


def _toc():
    from mkdocs.structure.toc import AnchorLink

    top, inner, again = AnchorLink("T", "t", 1), AnchorLink("In", "in", 2), AnchorLink("I", "in", 1)
    top.children.append(inner)
    return [top, again, AnchorLink("Other", "other", 1)]


PAGES = [
    ('<h1 id="t">T</h1><p>a</p><h2 id="in">In</h2><p>b</p><h2 id="gone">Gone</h2>', {}),
    ("<p>no heading</p>", {"title": "Meta title", "tags": ["x", 3, None, "", {"no": 1}]}),
    ('<h2 id="other">Other first</h2><p>t</p>', {"search": {"boost": 2}, "tags": "not a list"}),
    ('<h1 id="t">T</h1><h3 id="in">x</h3>', {"search": {"exclude": True}}),
    ('<h1 id="t">T</h1><p data-search-exclude>hidden</p><h2>No id</h2>', {"tags": []}),
]


@pytest.mark.parametrize(("content", "meta"), PAGES)
def test_index_entries_as_materials_index_makes_them(content, meta):
    ours, theirs = QuickSearchIndex(), SearchIndex()
    ours.add_entry_from_context(_Page(content, _toc(), meta))
    theirs.add_entry_from_context(_Page(content, _toc(), meta))
    assert ours.entries == theirs.entries
    assert [list(entry) for entry in ours.entries] == [list(entry) for entry in theirs.entries]


def test_page_context_event_as_materials_own(tmp_path_factory):
    """The search plugin's page_context event is ours after on_config, and does what material's
    does: index the page, then take its data-search-* attributes out."""
    # the event replaced is this one: a new mkdocs-material must be looked at again
    assert inspect.getsource(SearchPlugin.on_page_context) == MATERIAL_PAGE_CONTEXT
    site = built_site("sample", tmp_path_factory)
    config = mkdocs_config(SitePaths(site_source_dir(site.project), site.docs, site.folder))
    config.plugins.on_config(config)
    (plugin,) = [p for p in config.plugins.values() if isinstance(p, SearchPlugin)]
    handlers = config.plugins.events["page_context"]
    assert [h.__func__ for h in handlers if getattr(h, "__self__", None) is plugin] == [
        search_index._on_page_context
    ]
    for content in ('<p data-search-exclude="">x</p><p  data-search-boost="2">y</p>', "<p>z</p>"):
        ours, theirs = _Page(content, [], {}), _Page(content, [], {})
        theirs_plugin = SearchPlugin()
        theirs_plugin.load_config({})
        theirs_plugin.search_index = SearchIndex()
        search_index._on_page_context(plugin, {}, page=ours, config=config, nav=None)
        theirs_plugin.on_page_context({}, page=theirs, config=config, nav=None)
        assert ours.content == theirs.content
        assert plugin.search_index.entries[-len(theirs_plugin.search_index.entries) :] == (
            theirs_plugin.search_index.entries
        )


MATERIAL_PAGE_CONTEXT = """    def on_page_context(self, context, *, page, config, nav):
        if not self.config.enabled:
            return

        # Index page
        self.search_index.add_entry_from_context(page)
        page.content = re.sub(
            r"\\s?data-search-\\w+=\\"[^\\"]+\\"",
            "",
            page.content
        )
"""


TAGS = [
    '<a b = "x" c>t</a>',
    "<br/ ><br / ><img src='>' alt=\"<\" />",
    '<p a="1"b="2">x</p><p a=unquoted>y</p><p a= >z</p>',
    "<h2 id='x'\n class=\"y\"  >h</h2><p\t>t</p  ><p/p>",
    '<x-y:z.w q:r="1" _s>t</x-y:z.w>< p>',
]


@pytest.mark.parametrize("html", READ + LEFT + TAGS)
def test_tags_read_as_without_possessive_quantifiers(html):
    """The tokenizer's possessive quantifiers never change where a tag is found or ends."""
    greedy = re.compile(search_index._TAG.pattern.replace("*+", "*").replace("?+", "?"))
    assert "+" not in greedy.pattern.replace("\\s+", "")
    assert search_index._TAG.split(html) == greedy.split(html)
    assert _shape(page_sections(html)) == _shape(_material(html))
