"""Entry pages are written as the HTML Markdown makes of them (render/site/html_body.py) and handed
to mkdocs without Markdown (html_pages.py). Proved here against mkdocs' own Markdown conversion,
with the extensions of site/mkdocs.yml, of the same page written as Markdown: the HTML, the table
of contents, the title and the anchors are the same, for every entry of the real corpus and for
entries full of hostile strings."""

from __future__ import annotations

import os

import pytest
from conftest import REPO_ROOT
from masrl.check.validate import load_corpus
from masrl.model.project import Corpus
from masrl.render.site.context import SiteContext, entry_page
from masrl.render.site.entries import entry_body, entry_source
from masrl.render.site.html_body import HTML_BODY_KEY, Body
from masrl.render.site.html_pages import HtmlBodyPage, on_pre_page
from masrl.render.site.markdown import code_block
from shared_corpus import live_corpus
from test_site import HOSTILE_KEY, HOSTILE_TITLE, make_hostile_project

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


def as_markdown(body: Body) -> str:
    """The page the body stands for, written as Markdown (as entry pages once were)."""
    blocks = []
    for kind, *args in body.parts:
        if kind == "heading":
            level, text, anchor = args
            blocks.append("#" * level + f" {text}" + (f" {{ #{anchor} }}" if anchor else ""))
        elif kind in ("raw", "paragraph"):
            blocks.append(args[0])
        elif kind == "bullets":
            blocks.append("\n".join(f"- {item}" for item in args[0]))
        elif kind == "admonition":
            admonition, title, text = args
            blocks.append(f'!!! {admonition} "{title}"\n\n    {text}')
        else:
            blocks.append(code_block(*args))
    return "\n\n".join(blocks) + "\n"


@pytest.fixture(scope="module")
def mkdocs(tmp_path_factory):
    from mkdocs.config import load_config

    docs = tmp_path_factory.mktemp("docs")
    config = load_config(str(REPO_ROOT / "site" / "mkdocs.yml"), docs_dir=str(docs))
    return config


def _page(config, path: str, markdown: str, meta: dict):
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page

    file = File(path, config["docs_dir"], config["site_dir"], use_directory_urls=True)
    page = Page(None, file, config)
    page = on_pre_page(page, config, Files([file]))
    page.markdown, page.meta = markdown, meta
    page.render(config, Files([file]))
    return page


def _toc(items) -> list:
    return [(i.title, i.id, i.level, _toc(i.children)) for i in items]


def assert_same_page(config, ctx: SiteContext, entry) -> None:
    path = entry_page(entry.key)
    body = entry_body(ctx, entry)
    direct = _page(config, path, body.html(), {HTML_BODY_KEY: False})
    converted = _page(config, path, as_markdown(body), {})
    assert isinstance(direct, HtmlBodyPage)
    assert direct.content == converted.content, entry.key
    assert _toc(direct.toc.items) == _toc(converted.toc.items), entry.key
    assert direct._title_from_render == converted._title_from_render, entry.key
    assert direct.present_anchor_ids == converted.present_anchor_ids, entry.key
    converted_links = (converted.links_to_anchors or {}).get(converted.file, {})
    direct_links = (direct.links_to_anchors or {}).get(direct.file, {})
    assert converted_links.items() <= direct_links.items(), entry.key
    assert set(direct_links) <= direct.present_anchor_ids, entry.key


@pytest.fixture(scope="module")
def live_ctx() -> SiteContext:
    return SiteContext(live_corpus())


def test_every_real_entry_page_is_the_html_markdown_makes(mkdocs, live_ctx):
    ctx = live_ctx
    for entry in ctx.entries:
        assert_same_page(mkdocs, ctx, entry)


HOSTILE_TEXTS = [
    HOSTILE_TITLE,
    "Tags",  # the title's id must yield to the sections' ids
    "Corrections",
    "BibTeX: a *title* with _emphasis_, `code`, [a link](https://x.example) and <b>bold</b>",
    "# Not a heading ## and {: .attr } {{ config }} :smile: --8<-- /etc/passwd",
    "&amp; &#58; &nbsp; &lt;tag&gt; & < > \" ' \\ \\* 1. 2) - + > | a | b |",
    "Ünïcödé ταυ 漢字 עברית 🙂 e\u0301 \u200b zero\u2028line \ufeff",
    "!!!",  # no letter for a slug
    "Tabs\tand  runs   of\r\nspaces\n\n    and an indented line",
    "a\x02b\x03c\x00d",
    "see corrections, then see corrections again",
    "```bibtex\n@misc{x,}\n```",
]


def hostile_entries(base):
    """Variants of one entry carrying each hostile text in every free-text field, each once
    without corrections and once with (which adds a section with an explicit id)."""
    corrected = [
        {
            "field": "category",
            "published": "survey",
            "reason": "r <b>&amp;</b> [x](y)",
            "round": "2026-11",
        }
    ]
    for number, text in enumerate(HOSTILE_TEXTS):
        for corrections in ([], corrected):
            yield base.model_copy(
                update={
                    "key": f"hostile{number}{'c' if corrections else ''}",
                    "title": text,
                    "summary": text,
                    "notes": text,
                    "authors": [text, "Doe, Jane"],
                    "affiliation": text,
                    "journal_ref": text,
                    "corrections": corrections,
                }
            )


def test_hostile_entry_pages_are_the_html_markdown_makes(mkdocs, tmp_path):
    corpus = load_corpus(make_hostile_project(tmp_path, url="https://example.org/hostile"))
    base = next(e for e in corpus.entries if e.key == HOSTILE_KEY)
    entries = [*corpus.entries, *hostile_entries(base)]
    ctx = SiteContext(Corpus(corpus.project, corpus.taxonomy, entries, corpus.exclusions))
    for entry in ctx.entries:
        assert_same_page(mkdocs, ctx, entry)


def test_an_entry_page_says_its_body_is_html(live_ctx):
    entry = live_ctx.entries[0]
    front, body = entry_source(live_ctx, entry).split("\n---\n", 1)
    assert f"\n{HTML_BODY_KEY}: false" in front
    assert body.strip() == entry_body(live_ctx, entry).html()
