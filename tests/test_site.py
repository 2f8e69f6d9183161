"""The awesome-list site, checked on the built files: strict build, pages, links, data, escaping.

The real site, a sample of it and a site built from a corpus full of hostile strings are each
built at most once per run into a temporary folder shared by the xdist workers, and served on
127.0.0.1 by each worker that reads it (``built_site``). The checks here read the real site (this
file is one xdist group, so one worker reads it); test_site_browser.py drives the sample and the
hostile one in Chromium.
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import html
import json
import os
import posixpath
import re
import shutil
import signal
import threading
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import markdown
import pytest
import yaml
from click.testing import CliRunner
from conftest import REPO_ROOT, entry_data, examples, exclusion_data, write_entry, write_exclusion
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from masrl.check.validate import load_corpus, validate_project
from masrl.cli import main
from masrl.exports.bibtex import export_bibtex
from masrl.exports.json import export_json
from masrl.model.project import Project
from masrl.render.site import SiteError, build_site, builder
from masrl.render.site.builder import generate_docs, sync_tree
from masrl.render.site.escape import external_link, front_matter_title, html_text, md_text, safe_url
from masrl.render.site.templates import COMPILED_TEMPLATES
from shared_corpus import live_corpus

pytestmark = pytest.mark.xdist_group("site")

# The entries whose credit is assigned per message, read from the live corpus (it grows by rounds).
MESSAGE_LEVEL_KEYS = {
    path.stem
    for path in (REPO_ROOT / "corpus").glob("*.yaml")
    if "message"
    in (yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader).get("credit_units") or [])
}

# A title that would run script, add an image with an onerror handler, make a Markdown link and
# expand a template if any of them were interpreted.
HOSTILE_TITLE = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1"> '
    "[click](https://evil.example) {{ config }}"
)
HOSTILE_KEY = "hostile2025"
EXCLUDED_HOSTILE_TITLE = (
    '<img src=y onerror="window.__pwned=2"> An excluded record *about* {{ page }}'
)


# ---------------------------------------------------------------------------------------------
# Building and serving, once per process.


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@dataclass
class BuiltSite:
    folder: Path  # the built site
    docs: Path  # the generated docs folder
    url: str  # where it is served, with a trailing slash
    seconds: float
    warnings: list[str]
    project: Project  # what it was built from

    def html(self, url_path: str) -> str:
        path = self.folder / url_path
        if url_path.endswith("/") or not url_path:
            path = path / "index.html"
        return path.read_text(encoding="utf-8")


_SITES: dict[str, BuiltSite] = {}
_LOCK = threading.Lock()


def _serve(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder))
    )
    # Polled every 50 ms, not 500: shutdown() waits for the next poll, and the worker's exit for it.
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    atexit.register(server.shutdown)
    return f"http://127.0.0.1:{server.server_address[1]}/"


def _build(project: Project, scratch: Path, corpus=None) -> BuiltSite:
    # Serve first: the port goes into site_url, which mkdocs-material's instant loading needs.
    folder = scratch / "site"
    url = _serve(folder)
    result = build_site(
        project, output=folder, staging=scratch / "site-src", site_url=url, corpus=corpus
    )
    return BuiltSite(folder, result.paths.staging, url, result.seconds, result.warnings, project)


def make_hostile_project(root: Path, url: str = "javascript:window.__pwned=1") -> Project:
    """The mini corpus plus one entry and one exclusion carrying hostile strings everywhere."""
    shutil.copytree(REPO_ROOT / "taxonomy", root / "taxonomy")
    write_entry(root, entry_data("alpha2025"))
    write_entry(
        root,
        entry_data(
            "beta2024",
            title="Beta Routing of Subtasks",
            year=2024,
            credit_units=["message"],
            credit_mechanism="explicit",
        ),
    )
    write_entry(
        root,
        entry_data(
            HOSTILE_KEY,
            title=HOSTILE_TITLE,
            authors=[
                '<b onmouseover="window.__pwned=1">Evil</b>, {{ config.site_name }}',
                "*Star*, `Tick`",
            ],
            # venues are a vocabulary (validate refuses others), so the venue's old hostile string
            # travels in the affiliation, a free-text field the entry page shows
            affiliation="[aff](javascript:window.__pwned=1) {: onclick=window.__pwned=1 } <i>Venue</i> :smile: |pipe|",
            summary=f"{HOSTILE_TITLE} {{: .evil onclick=window.__pwned=1 }}",
            notes="# Not a heading\n\n<iframe src=javascript:window.__pwned=1></iframe>\n--8<-- /etc/passwd",
            urls=[url],
        ),
    )
    write_exclusion(
        root,
        exclusion_data(
            "E001",
            title=EXCLUDED_HOSTILE_TITLE,
            rationale="<svg onload=window.__pwned=1> [x](y) {{ config }}",
        ),
    )
    return Project(root)


# Entries the browser tests open by name.
BROWSED_KEYS = {"c3", "debate-as-reward", "halo", "puppeteer"} | MESSAGE_LEVEL_KEYS
# What the browser tests look for beyond one entry per tag value: how many entries of which kind.
BROWSED_KINDS = [
    # search lists more than two entries tagged with a sub-decision after its definition
    (3, lambda entry: "O5" in (entry.sub_decisions or ())),
    # the table's filters combine two credit units, a topology and years
    (
        2,
        lambda entry: (
            {"agent", "role"} & set(entry.credit_units or ())
            and entry.topology == "centralized"
            and 2025 <= entry.year <= 2026
        ),
    ),
]
SAMPLE_EXCLUSIONS = 4


def _tag_values(entry, fields: list[str]) -> set[tuple[str, object]]:
    values = set()
    for field in fields:
        value = getattr(entry, field)
        values |= {
            (field, v)
            for v in (value if isinstance(value, (list, tuple)) else [value])
            if v is not None
        }
    return values


def sampled_fields(corpus) -> list[str]:
    """The fields whose every value the sample shows: each tag field of an entry, and the year."""
    return [axis.field_name for axis in corpus.taxonomy.record_axes("entry") if axis.field_name] + [
        "year"
    ]


def sample_keys(corpus) -> list[str]:
    """The entries the browser tests name, the first entries (by key) of each kind they look
    for, then, greedily, the entry that adds most tag values (and years) not yet shown, until
    every value the real corpus uses is shown at least once."""
    fields = sampled_fields(corpus)
    by_key = {entry.key: entry for entry in corpus.entries}
    values = {key: _tag_values(entry, fields) for key, entry in by_key.items()}
    chosen = sorted(BROWSED_KEYS & values.keys())
    for count, of_kind in BROWSED_KINDS:
        missing = count - sum(1 for key in chosen if of_kind(by_key[key]))
        more = [key for key in sorted(by_key) if key not in chosen and of_kind(by_key[key])]
        chosen += more[: max(missing, 0)]
    shown = set().union(*(values[key] for key in chosen))
    while True:
        gain, key = max(
            ((len(values[key] - shown), key) for key in values if key not in chosen),
            default=(0, ""),
        )
        if not gain:
            return chosen
        chosen.append(key)
        shown |= values[key]


def make_sample_project(root: Path) -> Project:
    """The real project with a sample of its records (``sample_keys`` and the first exclusions):
    every template of the real site, at a fraction of its pages and table rows."""
    for name in ("taxonomy", "screening", "claims", "snapshots"):
        # tag readings name corpus entries, most of which the sample leaves out
        shutil.copytree(REPO_ROOT / name, root / name, ignore=shutil.ignore_patterns("tags"))
    shutil.copy(REPO_ROOT / "CITATION.cff", root / "CITATION.cff")
    (root / "corpus").mkdir()
    for key in sample_keys(live_corpus()):
        shutil.copy(REPO_ROOT / "corpus" / f"{key}.yaml", root / "corpus")
    (root / "exclusions").mkdir()
    for path in Project(REPO_ROOT).exclusion_paths()[:SAMPLE_EXCLUSIONS]:
        shutil.copy(path, root / "exclusions")
    return Project(root)


def _shared_root(tmp_path_factory) -> Path:
    """A folder every xdist worker of this run sees (the parent of each worker's own base
    temporary folder); the process's own base folder when xdist is not running."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _text_files(folder: Path):
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".xml", ".json", ".js", ".txt", ".css"):
            yield path


def _served_elsewhere(built: BuiltSite, scratch: Path) -> BuiltSite:
    """Another worker's build of a site, copied and served by this worker: the site's address
    (mkdocs writes it into the pages and the sitemap, which material's instant loading reads) is
    this server's, byte for byte what a build at this address writes."""
    folder = scratch / "site"
    shutil.copytree(built.folder, folder)
    url = _serve(folder)
    old, new = built.url.encode(), url.encode()
    for path in _text_files(folder):
        content = path.read_bytes()
        if old in content:
            path.write_bytes(content.replace(old, new))
    return BuiltSite(folder, built.docs, url, built.seconds, list(built.warnings), built.project)


def built_site(kind: str, tmp_path_factory) -> BuiltSite:
    """The real site ("real"), its sample ("sample") or the hostile one ("hostile"), built on first
    use: once per run, by the first worker that needs it (a file lock keeps the others waiting),
    and served by each worker that reads it."""
    with _LOCK:
        if kind in _SITES:
            return _SITES[kind]
        shared = _shared_root(tmp_path_factory) / f"site-{kind}"
        shared.mkdir(exist_ok=True)
        record = shared / "built.json"
        with (shared / "lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if record.is_file():
                done = json.loads(record.read_text(encoding="utf-8"))
                built = BuiltSite(
                    Path(done["folder"]),
                    Path(done["docs"]),
                    done["url"],
                    done["seconds"],
                    done["warnings"],
                    Project(Path(done["project"])),
                )
                _SITES[kind] = _served_elsewhere(built, tmp_path_factory.mktemp(f"site-{kind}"))
                return _SITES[kind]
            corpus = None
            if kind == "real":
                # the corpus the real site's checks read as well (``corpus``): loaded once
                corpus = live_corpus()
                project = corpus.project
            elif kind == "sample":
                project = make_sample_project(shared / "corpus-root")
            else:
                project = make_hostile_project(
                    shared / "corpus-root", url="https://example.org/hostile"
                )
            built = _build(project, shared, corpus)
            record.write_text(
                json.dumps(
                    {
                        "folder": str(built.folder),
                        "docs": str(built.docs),
                        "url": built.url,
                        "seconds": built.seconds,
                        "warnings": built.warnings,
                        "project": str(built.project.root),
                    }
                ),
                encoding="utf-8",
            )
            _SITES[kind] = built
            return built


@pytest.fixture(scope="session")
def real_site(tmp_path_factory) -> BuiltSite:
    return built_site("real", tmp_path_factory)


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory) -> BuiltSite:
    return built_site("hostile", tmp_path_factory)


@pytest.fixture(scope="module")
def corpus():
    return live_corpus()


# ---------------------------------------------------------------------------------------------
# Reading the built HTML.


class _Collected:
    """Every start tag with its attributes, every id, and the text outside script/style (what
    both readers below collect)."""

    def __init__(self):
        self.tags: list[tuple[str, dict]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.scripts: list[str] = []  # the content of script and style elements

    def _started(self, tag: str, attributes: dict) -> bool:
        """Records a start tag; whether it opens a script or style element."""
        self.tags.append((tag, attributes))
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "a" and "name" in attributes:
            self.ids.add(attributes["name"])
        return tag in ("script", "style")


class _Elements(_Collected, HTMLParser):
    """A fragment read by html.parser (Markdown's output, in the escaping tests)."""

    def __init__(self):
        _Collected.__init__(self)
        HTMLParser.__init__(self, convert_charrefs=True)
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if self._started(tag, {k: (v or "") for k, v in attrs}):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        (self.scripts if self._skip else self.text).append(data)


class _PageElements(_Collected):
    """What _Elements reads from a whole page, read by libxml2's HTML parser, in C: the real
    site's hundreds of pages are a lot of text for the pure-Python html.parser. The same start
    tags, attributes and ids, and the same text pieces, one per run of text between two tags
    (libxml2 hands a run over in several parts, at each character reference, so the parts are
    joined here). The one difference: libxml2 passes over the whitespace around the doctype,
    which html.parser gives as text."""

    def __init__(self):
        super().__init__()
        self._into = self.text
        self._run: list[str] = []

    def _end_run(self):
        if self._run:
            self._into.append("".join(self._run))
            self._run = []

    def start(self, tag, attributes):  # a new dict per tag, valueless attributes given as ""
        self._end_run()
        # a dict for a tag without attributes too, not lxml's mapping
        if self._started(tag, attributes or {}):
            self._into = self.scripts

    def end(self, tag):
        self._end_run()
        if tag in ("script", "style"):
            self._into = self.text

    def data(self, data):
        self._run.append(data)

    def comment(self, text):  # html.parser ends a run of text at a comment too
        self._end_run()

    def close(self):
        self._end_run()
        return self


@functools.cache
def parse(path: Path) -> _PageElements:
    # huge_tree: no limit on a text's length or the nesting (html.parser has none); past the
    # limits libxml2 would stop reading the page without an error
    return etree.fromstring(
        path.read_text(encoding="utf-8"), etree.HTMLParser(target=_PageElements(), huge_tree=True)
    )


def html_pages(site: BuiltSite) -> list[Path]:
    return sorted(site.folder.rglob("*.html"))


def page_url_path(site: BuiltSite, path: Path) -> str:
    """The URL path ("/entries/c3/") a built file is served at."""
    rel = path.relative_to(site.folder).as_posix()
    return "/" + (rel.removesuffix("index.html"))


def target_file(site: BuiltSite, url_path: str) -> Path:
    path = site.folder / unquote(url_path).lstrip("/")
    return path / "index.html" if url_path.endswith("/") or path.is_dir() else path


# ---------------------------------------------------------------------------------------------
# The real site.


def test_the_sample_shows_every_tag_value_and_year_the_corpus_uses(corpus):
    """Each value of a list field counts on its own (not each combination of values), so the
    sample stays a small part of the corpus while every chip and facet still has an entry."""
    by_key = {entry.key: entry for entry in corpus.entries}
    keys = sample_keys(corpus)
    for field in sampled_fields(corpus):
        used = set().union(*(_tag_values(entry, [field]) for entry in corpus.entries))
        shown = set().union(*(_tag_values(by_key[key], [field]) for key in keys))
        assert shown == used, f"{field}: {sorted(map(str, used - shown))} not in the sample"
        assert all(not isinstance(value, (list, tuple)) for _, value in used), field
    assert BROWSED_KEYS <= set(keys)
    for count, of_kind in BROWSED_KINDS:
        assert sum(1 for key in keys if of_kind(by_key[key])) >= count
    assert len(keys) < len(corpus.entries) / 4


def test_real_site_builds_in_strict_mode_without_warnings(real_site, corpus):
    assert real_site.warnings == []
    for entry in corpus.entries:
        assert (real_site.folder / "entries" / entry.key / "index.html").is_file(), entry.key
    for page in (
        "papers",
        "table",
        "statistics",
        "gaps",
        "claims",
        "screening",
        "taxonomy",
        "traces",
        "traces/schema",
        "traces/examples",
        "contributing",
        "data",
        "about",
        "browse",
        "browse/credit_units",
    ):
        assert (real_site.folder / page / "index.html").is_file(), page
    for download in (
        "masrl.bib",
        "data/entries.json",
        "data/corpus.json",
        "data/stats.json",
        "data/papers.csv",
    ):
        assert (real_site.folder / download).is_file(), download


def test_site_loads_nothing_from_other_hosts(real_site):
    """No web fonts, no CDN: every script, stylesheet, image and icon comes from the site."""
    site_host = urlsplit(real_site.url).netloc
    offenders = []
    for path in html_pages(real_site):
        for tag, attributes in parse(path).tags:
            for name in ("src", "href", "srcset", "data-src"):
                value = attributes.get(name)
                if not value:  # most tags have none of these: no address, no host
                    continue
                is_resource = name != "href" or tag in ("link", "script", "img", "iframe", "source")
                parsed = _split(value)
                points_to_itself = tag == "link" and attributes.get("rel") in (
                    "canonical",
                    "alternate",
                )
                if (
                    is_resource
                    and parsed.netloc
                    and parsed.netloc != site_host
                    and not points_to_itself
                ):
                    offenders.append(
                        f"{path.relative_to(real_site.folder)}: <{tag} {name}={value}>"
                    )
            if tag == "a" and "md-source" in attributes.get("class", ""):
                offenders.append(f"{path}: repository widget fetches from GitHub")
        # a link to a page on a CDN host (an entry's source page) is not a load: look past <a>
        text = re.sub(r"<a\b[^>]*>", "<a>", path.read_text(encoding="utf-8"))
        for cdn in (
            "fonts.googleapis",
            "fonts.gstatic",
            "cdn.jsdelivr",
            "unpkg.com",
            "cdnjs",
            'class="mermaid"',
        ):
            if cdn in text:
                offenders.append(f"{path.relative_to(real_site.folder)}: mentions {cdn}")
    for css in real_site.folder.rglob("*.css"):
        if "url(http" in css.read_text(encoding="utf-8").replace('"', "").replace("'", ""):
            offenders.append(f"{css}: loads a remote url()")
    assert offenders == []


@functools.cache
def _split(url: str):
    """urlsplit, once per address: the same links (menu, footer, chips) recur on page after page."""
    return urlsplit(url)


def internal_target(site: BuiltSite, page_path: str, value: str) -> tuple[str, str] | None:
    """(URL path, fragment) of a link on the page at ``page_path``; None for other sites and schemes."""
    if value.startswith(("mailto:", "data:", "javascript:", "blob:")):
        return None
    parsed = _split(value)
    if parsed.netloc:
        if parsed.netloc != _split(site.url).netloc:
            return None
        return parsed.path or "/", parsed.fragment
    if not parsed.path:
        return page_path, parsed.fragment
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page_path), parsed.path))
    return joined + ("/" if parsed.path.endswith("/") and joined != "/" else ""), parsed.fragment


def test_every_internal_link_and_anchor_resolves(real_site):
    broken, checked = [], 0
    files: dict[str, Path | None] = {}  # by URL path: the file there, None for none
    for path in html_pages(real_site):
        page_path = page_url_path(real_site, path)
        for tag, attributes in parse(path).tags:
            for name in ("href", "src", "data-src"):
                value = attributes.get(name)
                target = internal_target(real_site, page_path, value) if value else None
                if target is None:
                    continue
                checked += 1
                url_path, fragment = target
                if url_path not in files:  # most pages link the same pages: look each up once
                    file = target_file(real_site, url_path)
                    files[url_path] = file if file.is_file() else None
                file = files[url_path]
                if file is None:
                    broken.append(f"{page_path}: <{tag} {name}={value}> -> no file for {url_path}")
                elif (
                    fragment and file.suffix == ".html" and unquote(fragment) not in parse(file).ids
                ):
                    broken.append(
                        f"{page_path}: <{tag} {name}={value}> -> no element with id {fragment!r}"
                    )
    assert broken == []
    assert checked > 10_000  # every page's navigation, chips and links were looked at


def test_search_index_holds_titles_authors_keys_and_tags(real_site):
    index = json.loads(
        (real_site.folder / "search" / "search_index.json").read_text(encoding="utf-8")
    )
    texts = {}
    for doc in index["docs"]:
        page = doc["location"].split("#")[0]
        texts[page] = texts.get(page, "") + " " + doc["title"] + " " + doc["text"]
    puppeteer = texts["entries/puppeteer/"]
    for word in (
        "Multi-Agent Collaboration via Evolving Orchestration",
        "puppeteer",
        "Dang",
        "Orchestrator",
        "Centralized",
    ):
        assert word in puppeteer


def test_entry_page_has_tags_links_bibtex_and_cell_neighbours(real_site, corpus):
    page = parse(real_site.folder / "entries" / "c3" / "index.html")
    text = " ".join(page.text)
    assert "Contextual Counterfactual Credit Assignment" in text
    hrefs = [a.get("href", "") for tag, a in page.tags if tag == "a"]
    assert "../../browse/credit_units/#message" in hrefs
    assert "../../browse/reward_types/#shared" in hrefs
    assert "https://arxiv.org/abs/2603.06859" in hrefs
    # BibTeX in a highlighted code block (material adds the copy button to those in the browser)
    assert re.search(r"@(article|misc|inproceedings)\{c3,", "".join(page.text))
    assert any(tag == "div" and "language-bibtex" in a.get("class", "") for tag, a in page.tags)
    # an entry alone in one of its reward type x credit unit cells says so
    cells = {}
    for e in corpus.entries:
        for cell in ((r, c) for r in e.reward_types for c in e.credit_units):
            cells.setdefault(cell, []).append(e.key)
    lonely = min(keys[0] for keys in cells.values() if len(keys) == 1)
    lonely_page = parse(real_site.folder / "entries" / lonely / "index.html")
    assert "alone in the cell" in " ".join(lonely_page.text)
    # puppeteer shares its orchestration x orchestrator cell with other entries, all linked
    neighbours = {
        e.key
        for e in corpus.entries
        if "orchestration" in e.reward_types and "orchestrator" in e.credit_units
    }
    puppeteer = parse(real_site.folder / "entries" / "puppeteer" / "index.html")
    linked = {
        a["href"].split("/")[-2]
        for tag, a in puppeteer.tags
        if tag == "a" and "/entries/" in a.get("href", "")
    }
    # the first few are linked, the rest are reached through the table filtered to the cell
    shown = linked & {e.key for e in corpus.entries}
    assert len(neighbours) > 2 and len(shown & neighbours) >= 3


def test_papers_page_lists_every_entry_by_category(real_site, corpus):
    page = parse(real_site.folder / "papers" / "index.html")
    hrefs = {a.get("href") for tag, a in page.tags if tag == "a"}
    assert {f"../entries/{e.key}/" for e in corpus.entries} <= hrefs
    headings = {a.get("id") for tag, a in page.tags if tag == "h2"}
    assert {
        "rl_method",
        "benchmark",
        "classical_marl",
        "industry",
        "survey",
        "framework",
    } <= headings


def test_browse_pages_mark_empty_values_as_gaps(real_site, corpus):
    used = {unit for e in corpus.entries for unit in e.credit_units}
    unused = [u for u in corpus.taxonomy["credit_units"].ids if u not in used]
    page = (real_site.folder / "browse" / "credit_units" / "index.html").read_text(encoding="utf-8")
    assert page.count('class="masrl-gap"') == len(unused)
    sub_decisions = (real_site.folder / "browse" / "sub_decisions" / "index.html").read_text(
        encoding="utf-8"
    )
    assert 'id="o5"' in sub_decisions


def test_table_data_filters_like_the_table(real_site, corpus):
    data = json.loads((real_site.folder / "data" / "entries.json").read_text(encoding="utf-8"))
    assert len(data["entries"]) == len(corpus.entries)
    message = {e["key"] for e in data["entries"] if "message" in e["tags"]["credit_units"]}
    assert message == MESSAGE_LEVEL_KEYS
    axes = {axis["field"] for axis in data["axes"]}
    assert {
        "credit_units",
        "reward_types",
        "reward_families",
        "topology",
        "sub_decisions",
        "category",
        "verified",  # cross-tabbed on the statistics page, so linked to the table by it
    } <= axes
    table = parse(real_site.folder / "table" / "index.html")
    boxes = {
        (a.get("data-axis"), a.get("value"))
        for tag, a in table.tags
        if tag == "input" and a.get("type") == "checkbox"
    }
    assert ("credit_units", "message") in boxes and ("credit_units", "-") in boxes
    sortable = [a for tag, a in table.tags if tag == "th" and "data-sort-key" in a]
    assert sortable and all(a.get("aria-sort") for a in sortable)
    labelled = {a.get("for") for tag, a in table.tags if tag == "label"}
    assert {"masrl-filter-text", "masrl-year-min", "masrl-year-max"} <= labelled


def test_entry_page_carries_citation_tags_matching_its_yaml(real_site, corpus):
    import yaml

    data = yaml.safe_load((REPO_ROOT / "corpus" / "halo.yaml").read_text(encoding="utf-8"))
    page = parse(real_site.folder / "entries" / "halo" / "index.html")
    meta = [
        (a["name"], a.get("content", ""))
        for tag, a in page.tags
        if tag == "meta" and a.get("name", "").startswith("citation_")
    ]
    assert ("citation_title", data["title"]) in meta
    assert [c for n, c in meta if n == "citation_author"] == data["authors"]
    assert ("citation_publication_date", str(data["year"])) in meta
    assert ("citation_arxiv_id", data["identifiers"]["arxiv"]) in meta
    assert ("citation_pdf_url", f"https://arxiv.org/pdf/{data['identifiers']['arxiv']}") in meta
    description = [
        a["content"] for tag, a in page.tags if tag == "meta" and a.get("name") == "description"
    ]
    assert description and description[0].startswith(data["summary"].split()[0])
    hrefs = {a.get("href") for tag, a in page.tags if tag == "a"}
    assert data["code"][0]["url"] in hrefs  # links out: code, arXiv abstract and PDF
    assert {
        f"https://arxiv.org/abs/{data['identifiers']['arxiv']}",
        f"https://arxiv.org/pdf/{data['identifiers']['arxiv']}",
    } <= hrefs
    assert any(h and h.endswith("/edit/main/corpus/halo.yaml") for h in hrefs)


def test_the_data_page_lists_the_releases_with_a_citation_per_version(real_site):
    import html as html_module

    from masrl.render.release import list_releases

    markup = (real_site.folder / "data" / "index.html").read_text(encoding="utf-8")
    page = html_module.unescape(re.sub(r"<[^>]+>", "", markup))  # the text, highlighting removed
    for release in list_releases(Project(REPO_ROOT)):
        assert f"Release {release.version}" in page
        assert f"@misc{{masrl{release.version.replace('.', '_')}," in page
        assert f"version = {{{release.version}}}" in page
    assert "re-tagged" in page


def test_every_page_has_its_own_description_and_the_sitemap_lists_every_page(real_site):
    descriptions = {}
    for path in html_pages(real_site):
        if path.name == "404.html":
            continue
        found = [
            a.get("content")
            for tag, a in parse(path).tags
            if tag == "meta" and a.get("name") == "description"
        ]
        descriptions[path] = found[0] if found else None
    entries = {
        p: d
        for p, d in descriptions.items()
        if "/entries/" in p.as_posix() and p.parent.name != "entries"
    }
    assert all(entries.values()) and len(set(entries.values())) == len(entries)
    sitemap = (real_site.folder / "sitemap.xml").read_text(encoding="utf-8")
    for path in descriptions:
        url_path = page_url_path(real_site, path)
        assert f"<loc>{real_site.url.rstrip('/')}{url_path}</loc>" in sitemap, url_path


def test_table_data_ships_the_exporters_output_per_entry(real_site, corpus):
    """Joined in key order, the per-entry strings are exactly `masrl export` of any selection."""
    from dataclasses import replace

    from masrl.exports.csv import export_csv

    data = json.loads((real_site.folder / "data" / "entries.json").read_text(encoding="utf-8"))
    rows = sorted(
        (e for e in data["entries"] if "message" in e["tags"]["credit_units"]),
        key=lambda e: e["key"],
    )
    chosen = [e for e in corpus.entries if e.key in {r["key"] for r in rows}]
    assert "\n".join(r["bibtex"] for r in rows) == export_bibtex(chosen)
    assert data["csv_header"] + "".join(r["csv"] for r in rows) == export_csv(
        replace(corpus, entries=chosen, exclusions=[]), "papers"
    )
    from masrl.exports.csv import masrl_csv
    from masrl.exports.json import entries_document_text
    from masrl.exports.ris import export_ris

    assert data["masrl_csv_header"] + "".join(r["masrl_csv"] for r in rows) == masrl_csv(
        chosen, corpus.taxonomy
    )
    assert "\n".join(r["ris"] for r in rows) == export_ris(sorted(chosen, key=lambda e: e.key))
    document = json.loads(data["json_head"] + "\n" + ",\n".join(r["json"] for r in rows) + "\n]}")
    assert document == json.loads(entries_document_text([r["json"] for r in rows]))
    assert [r["key"] for r in document["entries"]] == [r["key"] for r in rows]
    halo = next(e for e in data["entries"] if e["key"] == "halo")
    assert set(halo["links"]) == {"arxiv", "pdf", "code"}
    assert "reward_families" in data["columns"]


def test_chips_name_their_axis_and_no_label_repeats_in_a_row(real_site):
    page = (real_site.folder / "papers" / "index.html").read_text(encoding="utf-8")
    for row in re.findall(r'<span class="masrl-chips">(.*?)</span>', page):
        labels = re.findall(r'class="masrl-chip[^"]*"[^>]*>([^<]*)</a>', row)
        assert len(labels) == len(set(labels)), labels
        assert all('data-tip="' in chip for chip in row.split("<a ")[1:])
    assert "Debate (reward type)" in page or "Debate (reward types)" in page or "(topology)" in page


def test_every_chip_is_described_for_screen_readers_by_an_element_of_its_page(real_site):
    """aria-describedby of each chip names one element of the same page that holds the chip's
    axis and definition (the hover text is CSS, which assistive technology does not read)."""
    pages = [
        real_site.folder / "papers" / "index.html",
        real_site.folder / "entries" / "halo" / "index.html",
        real_site.folder / "gaps" / "index.html",
    ]
    for path in pages:
        html_text = path.read_text(encoding="utf-8")
        chips = re.findall(r'<a class="masrl-chip[^"]*"[^>]*>', html_text)
        assert chips, path
        tips = dict(re.findall(r'<span id="(masrl-tip-[^"]+)">([^<]*)</span>', html_text))
        assert '<div class="masrl-tips" hidden>' in html_text
        for tag in chips:
            described = re.search(r'aria-describedby="([^"]+)"', tag)
            assert described and described.group(1) in tips, (path.name, tag)
            assert html.unescape(re.search(r'data-tip="([^"]*)"', tag).group(1)) == html.unescape(
                tips[described.group(1)]
            )
    halo = (real_site.folder / "entries" / "halo" / "index.html").read_text(encoding="utf-8")
    assert "Topology: A lead agent delegates to sub-agents" in halo


def test_each_example_trace_opens_in_perfetto_from_the_traces_page(real_site):
    """Every example ships as a trace-event file beside its figure; the page links the file and,
    the site being published over https, opens it in the Perfetto UI by its address."""
    from masrl.traces import examples_directory

    page = (real_site.folder / "traces" / "examples" / "index.html").read_text(encoding="utf-8")
    examples = sorted(examples_directory().glob("*.json"))
    assert examples
    for example in examples:
        shipped = real_site.folder / "figures" / "traces" / f"{example.stem}.perfetto.json"
        document = json.loads(shipped.read_text(encoding="utf-8"))
        assert document["traceEvents"] and document["displayTimeUnit"]
        assert f'href="../../figures/traces/{example.stem}.perfetto.json" download' in page
        assert (
            f'href="https://ui.perfetto.dev/#!/?url=https://masrl.github.io/masrl/figures/traces/'
            f'{example.stem}.perfetto.json"'
        ) in page


def test_figures_keep_text_as_text_and_say_what_they_show(real_site):
    svg = (real_site.folder / "figures" / "entries-per-year.svg").read_text(encoding="utf-8")
    assert "<text" in svg
    home = parse(real_site.folder / "index.html")
    alts = [
        a.get("alt", "") for tag, a in home.tags if tag == "img" and "figures/" in a.get("src", "")
    ]
    assert alts and all(len(alt.split()) > 6 for alt in alts)


def test_home_page_offers_the_survey_bibtex(real_site):
    import bibtexparser

    home = parse(real_site.folder / "index.html")
    text = "".join(home.text)
    library = bibtexparser.parse_string(
        text[text.index("@article") : text.index("}\n", text.index("@article")) + 2]
    )
    assert library.entries and "2605.02801" in library.entries[0]["journal"]


def test_downloads_are_the_exports(real_site, corpus):
    assert (real_site.folder / "masrl.bib").read_text(encoding="utf-8") == export_bibtex(
        corpus.entries
    )
    assert (real_site.folder / "data" / "corpus.json").read_text(encoding="utf-8") == export_json(
        corpus
    )
    from masrl.exports.csv import export_csv
    from masrl.exports.ris import export_ris

    assert (real_site.folder / "data" / "masrl.csv").read_text(encoding="utf-8") == export_csv(
        corpus, "masrl"
    )
    assert (real_site.folder / "masrl.ris").read_text(encoding="utf-8") == export_ris(
        sorted(corpus.entries, key=lambda e: e.key)
    )


def test_reports_show_live_claims_screening_and_taxonomy(real_site, corpus):
    from masrl.derive.claims import evaluate_claims

    claims = (real_site.folder / "claims" / "index.html").read_text(encoding="utf-8")
    results = evaluate_claims(corpus)
    for result in results:
        assert f'id="claim-{result.id}"' in claims
    assert f"{sum(r.holds for r in results)} of {len(results)} claims hold" in claims
    screening = parse(real_site.folder / "screening" / "index.html")
    assert {x.record_id.lower() for x in corpus.exclusions} <= screening.ids
    assert any(
        tag == "img" and "screening-flow.svg" in a.get("src", "") for tag, a in screening.tags
    )
    taxonomy = parse(real_site.folder / "taxonomy" / "index.html")
    for axis_name, axis in corpus.taxonomy.axes.items():
        for value in axis.values:
            assert f"{axis_name}-{value.id}".lower() in taxonomy.ids
    statistics = (real_site.folder / "statistics" / "index.html").read_text(encoding="utf-8")
    assert "masrl-cell--empty" in statistics and "masrl-cell--sparse" in statistics


def test_generation_is_deterministic(real_site, corpus):
    """A second generation in this process gives the files the session build wrote, byte for byte."""
    files = generate_docs(corpus, REPO_ROOT / "site")
    written = {
        p.relative_to(real_site.docs).as_posix(): p.read_bytes()
        for p in real_site.docs.rglob("*")
        if p.is_file() and p.name != ".masrl-site-src"
    }
    assert files == written


# ---------------------------------------------------------------------------------------------
# Escaping.

MARKDOWN_EXTENSIONS = [
    "toc",
    "tables",
    "attr_list",
    "admonition",
    "pymdownx.details",
    "pymdownx.highlight",
    "pymdownx.superfences",
]


def _elements(fragment: str) -> _Elements:
    parser = _Elements()
    parser.feed(fragment)
    return parser


def _render(source: str) -> _Elements:
    return _elements(markdown.Markdown(extensions=MARKDOWN_EXTENSIONS).convert(source))


def _collapse(text: str) -> str:
    return " ".join(text.split())


class _TextIn(HTMLParser):
    """The text inside every element of one tag name."""

    def __init__(self, container: str):
        super().__init__(convert_charrefs=True)
        self.container, self.depth, self.parts = container, 0, []

    def handle_starttag(self, tag, attrs):
        self.depth += tag == self.container

    def handle_endtag(self, tag):
        self.depth -= tag == self.container and self.depth > 0

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def _text_in(source_html: str, container: str) -> str:
    parser = _TextIn(container)
    parser.feed(source_html)
    return _collapse("".join(parser.parts))


ALLOWED_TAGS = {
    "p",
    "ul",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "h2",
    "a",
    "dl",
    "dt",
    "dd",
}


@settings(max_examples=examples(100, deep=150), deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=80))
def test_escaped_text_renders_as_the_same_text_in_every_markdown_context(value):
    escaped, expected = md_text(value), _collapse(value)
    if not expected:
        return
    contexts = {
        "p": escaped,
        "li": f"- {escaped}",
        "td": f"| a |\n|---|\n| {escaped} |",
        "h2": f"## {escaped}",
        "a": f"[{escaped}](x.md)",
        "dd": f'<dl class="x">\n<dt>a</dt><dd>{html_text(value)}</dd>\n</dl>',  # raw HTML block
    }
    for container, source in contexts.items():
        rendered = markdown.Markdown(extensions=MARKDOWN_EXTENSIONS).convert(source)
        tags = {tag for tag, _ in _elements(rendered).tags}  # what _render(source) reads
        assert tags <= ALLOWED_TAGS, (container, source, rendered)
        assert _text_in(rendered, container) == expected, (container, source, rendered)


def test_hostile_strings_escape_to_text():
    for value in (
        HOSTILE_TITLE,
        "{: onclick=x }",
        "--8<-- /etc/passwd",
        ":smile: *a* _b_ `c`",
        "a\x02b\x03c",
    ):
        rendered = _render(f"Before {md_text(value)}")
        assert [tag for tag, _ in rendered.tags] == ["p"]
        assert "".join(rendered.text) == "Before " + _collapse(value).replace(
            "\x02", "\ufffd"
        ).replace("\x03", "\ufffd")


def test_unsafe_urls_become_text():
    assert safe_url("javascript:alert(1)") is None
    assert safe_url("JaVaScRiPt:alert(1)") is None
    assert safe_url("data:text/html,<script>") is None
    assert safe_url("https://example.org/a b") is None
    assert safe_url("https://example.org/ok?a=1&b=2") == "https://example.org/ok?a=1&b=2"
    assert "<a" not in external_link("javascript:alert(1)", "x")
    assert 'href="https://example.org/?a=1&amp;b=&quot;2&quot;"' in external_link(
        'https://example.org/?a=1&b="2"'
    )


def test_front_matter_title_is_escaped_yaml():
    import yaml

    line = front_matter_title('He said "hi" \\ <b>&</b>')
    assert yaml.safe_load(line)["title"] == "He said &quot;hi&quot; &#92; &lt;b&gt;&amp;&lt;/b&gt;"


def test_hostile_corpus_fails_validate_on_the_javascript_url(tmp_path):
    report = validate_project(make_hostile_project(tmp_path))
    url_errors = [p for p in report.errors if "javascript:" in p.message]
    assert url_errors and all("scheme" in p.message for p in url_errors)
    with pytest.raises(Exception, match="validation error"):
        build_site(Project(tmp_path), output=tmp_path / "out", staging=tmp_path / "src")


# ---------------------------------------------------------------------------------------------
# The command line and the folders.


def test_site_build_command_builds_a_small_corpus(mini_project, tmp_path):
    """The site's address (sitemap) and the repository (edit links) come from CITATION.cff."""
    (mini_project.root / "CITATION.cff").write_text(
        "cff-version: 1.2.0\ntitle: t\nurl: https://example.org/survey\nrepository-code: https://git.example.org/team/corpus/\n",
        encoding="utf-8",
    )
    output = tmp_path / "out"
    result = CliRunner().invoke(
        main,
        [
            "site",
            "build",
            "--root",
            str(mini_project.root),
            "--output",
            str(output),
            "--docs-dir",
            str(tmp_path / "src"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "site:" in result.output
    entry = (output / "entries" / "alpha2025" / "index.html").read_text(encoding="utf-8")
    assert 'href="https://git.example.org/team/corpus/edit/main/corpus/alpha2025.yaml"' in entry
    sitemap = (output / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.org/survey/entries/alpha2025/</loc>" in sitemap
    assert "<loc>https://example.org/survey/</loc>" in sitemap
    # a second build into the same folders is allowed: they carry our marks; it reuses the
    # templates compiled by the first (kept for the process) and writes the same pages
    assert COMPILED_TEMPLATES
    again = CliRunner().invoke(
        main,
        [
            "site",
            "build",
            "--root",
            str(mini_project.root),
            "--output",
            str(output),
            "--docs-dir",
            str(tmp_path / "src"),
        ],
    )
    assert again.exit_code == 0, again.output
    assert (output / "entries" / "alpha2025" / "index.html").read_text(encoding="utf-8") == entry


def test_project_addresses_come_from_citation_cff_and_must_be_web_addresses(tmp_path):
    from masrl.render.site.citation import project_addresses

    (tmp_path / "CITATION.cff").write_text(
        "url: https://example.org/x\nrepository-code: https://example.org/r/\n", encoding="utf-8"
    )
    addresses = project_addresses(tmp_path)
    assert (addresses.site_url, addresses.repository) == (
        "https://example.org/x/",
        "https://example.org/r",
    )
    (tmp_path / "CITATION.cff").write_text("url: javascript:alert(1)\n", encoding="utf-8")
    with pytest.raises(
        SiteError,
        match="CITATION.cff: url 'javascript:alert\\(1\\)' is not a plain web address: it is not an http",
    ):
        project_addresses(tmp_path)
    real = project_addresses(REPO_ROOT)
    assert real.site_url and real.repository  # the checkout says where it is published


@pytest.mark.parametrize(
    "bad",
    [
        'https://example.org/"><script>window.__pwned=1</script>',
        "https://example.org/x'onmouseover='alert(1)",
        "https://example.org/a b",
        "https://example.org/?q=<x>",
        "javascript:alert(1)",
        "https://exa mple.org/",
        "https://example.org:99999/",
        "https://example.org/a)[x](y",
    ],
)
def test_site_url_setting_is_checked_before_anything_is_written(mini_project, tmp_path, bad):
    out, src = tmp_path / "out", tmp_path / "src"
    args = [
        "site",
        "build",
        "--root",
        str(mini_project.root),
        "-o",
        str(out),
        "--docs-dir",
        str(src),
    ]
    for invocation, env in (([*args, "--site-url", bad], {}), (args, {"MASRL_SITE_URL": bad})):
        result = CliRunner().invoke(main, invocation, env=env)
        assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output
        assert "--site-url or MASRL_SITE_URL" in result.output and "https://owner" in result.output
        assert not out.exists() and not src.exists()


def test_citation_cff_addresses_with_quotes_are_refused(tmp_path):
    from masrl.render.site.citation import project_addresses

    for key in ("url", "repository-code"):
        (tmp_path / "CITATION.cff").write_text(
            f"{key}: 'https://example.org/\"><script>x</script>'\n", encoding="utf-8"
        )
        with pytest.raises(SiteError, match=f"CITATION.cff: {key} .* not a plain web address"):
            project_addresses(tmp_path)


def test_the_site_url_enters_every_page_checked_and_escaped(hostile_site):
    """Every page's canonical link is the site URL plus the page's path, one attribute, nothing else."""
    pages = [p for p in html_pages(hostile_site) if p.name != "404.html"]  # 404 has no address
    for path in pages:
        source = path.read_text(encoding="utf-8")
        links = re.findall(r'<link rel="canonical" href="([^"<>]*)">', source)
        assert links == [hostile_site.url + page_url_path(hostile_site, path).lstrip("/")], path


def test_repository_address_is_escaped_in_links(mini_project):
    from masrl.render.site.context import SiteContext
    from masrl.render.site.fragments import follow_links

    ctx = SiteContext(load_corpus(mini_project), repository='https://example.org/a&b"c')
    assert 'href="https://example.org/a&amp;b&quot;c/issues/new' in follow_links(ctx, "index.md")


def test_site_build_refuses_to_wipe_a_folder_it_did_not_write(mini_project, tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(SiteError, match="refusing"):
        build_site(mini_project, output=precious, staging=tmp_path / "src")
    assert (precious / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_sync_tree_writes_only_changes_and_removes_stale_files(tmp_path):
    target = tmp_path / "docs"
    assert sorted(sync_tree({"a.md": b"1", "b/c.md": b"2"}, target)) == ["a.md", "b/c.md"]
    stamp = (target / "a.md").stat().st_mtime_ns
    time.sleep(0.01)
    assert sync_tree({"a.md": b"1"}, target) == ["b/c.md"]
    assert (target / "a.md").stat().st_mtime_ns == stamp
    assert not (target / "b").exists()


def test_sync_tree_replaces_changed_files_creates_new_folders_and_refuses_a_folder(tmp_path):
    from masrl.errors import UnsafeWriteError

    def held(folder):
        return {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*")
            if p.is_file() and p.name != ".masrl-site-src"
        }

    target = tmp_path / "docs"
    first = {"a.md": b"1", "b/c.md": b"2", "b/d/e.json": b"3"}
    sync_tree(first, target)
    (target / "a.md").chmod(0o640)
    second = {"a.md": b"10", "b/c.md": b"2", "f/g/h.md": b"4"}
    assert sync_tree(second, target) == ["a.md", "f/g/h.md", "b/d/e.json"]
    assert held(target) == second and not (target / "b" / "d").exists()
    assert (target / "a.md").stat().st_mode & 0o777 == 0o640
    with pytest.raises(UnsafeWriteError, match="folder"):
        sync_tree({"f/g": b"5"}, target)


def test_the_built_site_is_emptied_as_mkdocs_does_but_keeps_the_folders_it_makes_again(tmp_path):
    from masrl.render.site.builder import _empty_keeping_folders, _remove_empty

    staging, site = tmp_path / "src", tmp_path / "site"
    for name in ("entries/a.md", "entries/b.md", "assets/x.css", "index.md"):
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        (staging / name).write_text("x", encoding="utf-8")
    for name in (
        ".masrl-site",
        "index.html",
        "entries/a/index.html",
        "entries/b/index.html",
        "entries/gone/index.html",  # a page no longer generated
        "entries/b/.hidden",
        "assets/x.css",
        "old/deep/page.html",
    ):
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text("old", encoding="utf-8")
    (site / "entries" / "link").symlink_to(staging)
    kept: list[str] = []
    _empty_keeping_folders(str(site), staging, kept)
    files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if not p.is_dir())
    assert files == [".masrl-site"]  # mkdocs leaves the top level's hidden files
    assert (staging / "entries").is_dir() and not (site / "entries" / "gone").exists()
    assert not (site / "old").exists() and not (site / "entries" / "link").is_symlink()
    assert (staging / "entries" / "a.md").is_file()  # a link is removed, never followed
    assert sorted(Path(k).relative_to(site).as_posix() for k in kept) == [
        "assets",
        "entries",
        "entries/a",
        "entries/b",
    ]
    (site / "entries" / "a" / "index.html").write_text("new", encoding="utf-8")  # the build
    _remove_empty(kept)
    folders = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_dir())
    assert folders == ["entries", "entries/a"]


def test_entry_pages_list_every_artifact_link_with_its_source_and_a_code_badge(
    mini_project, tmp_path, monkeypatch
):
    # Only the pages are read: the figures of this corpus, drawn for no other test, are not.
    monkeypatch.setattr(builder, "figure_files", lambda ctx: {})
    abstract = "https://arxiv.org/abs/2505.13516"
    links = {
        "code": [
            {"url": "https://github.com/org/alpha", "source": abstract},
            {"url": "https://gitlab.com/org/alpha", "source": "https://alpha.example.org/"},
        ],
        "weights": [{"url": "https://huggingface.co/org/alpha", "source": abstract}],
    }
    write_entry(mini_project.root, entry_data("alpha2025", **links))
    docs = generate_docs(load_corpus(mini_project), REPO_ROOT / "site")
    page = docs["entries/alpha2025.md"].decode("utf-8")
    assert 'class="masrl-badge masrl-badge--code" href="https://github.com/org/alpha"' in page
    for kind, label in (("code", "Code"), ("weights", "Weights")):
        for link in links[kind]:
            assert f'<li>{label}: <a href="{link["url"]}" rel="noopener">' in page.replace(
                md_text(link["url"]), link["url"]
            )
    assert page.count(f'<a href="{abstract}" rel="noopener">source</a>') == 2
    beta = docs["entries/beta2024.md"].decode("utf-8")
    assert "masrl-badge--code" not in beta


def test_an_unknown_marker_in_a_hand_written_page_stops_the_build(mini_project, tmp_path):
    source = tmp_path / "site"
    shutil.copytree(REPO_ROOT / "site", source)
    (source / "docs" / "about.md").write_text(
        "# About\n\n<!-- masrl:no-such-fragment -->\n", encoding="utf-8"
    )
    from masrl.render.site.fragments import UnknownMarker

    with pytest.raises(UnknownMarker, match="no-such-fragment"):
        generate_docs(load_corpus(mini_project), source)


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _fetch(url: str) -> str | None:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read().decode("utf-8")
    except OSError:
        return None


def _wait_for(url: str, wanted: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page = _fetch(url)
        if page and wanted in page:
            return True
        time.sleep(0.1)  # a fetch of the local page costs a millisecond
    return False


@pytest.mark.slow
def test_site_serve_previews_and_regenerates_when_the_yaml_changes(mini_project, tmp_path):
    import subprocess
    import sys

    port = _free_port()
    masrl = Path(sys.executable).with_name("masrl")
    if not masrl.exists():
        pytest.skip("the masrl console script is not installed next to this Python")
    command = [
        str(masrl),
        "site",
        "serve",
        "--root",
        str(mini_project.root),
        "--port",
        str(port),
        "--docs-dir",
        str(tmp_path / "src"),
    ]
    said = tmp_path / "serve.out"
    with said.open("wb") as out:
        # mkdocs serves from a temporary folder of its own: under tmp_path, so nothing outlives the test
        server = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "TMPDIR": str(tmp_path)},
        )
    try:
        page = f"http://127.0.0.1:{port}/entries/alpha2025/"
        assert _wait_for(page, "Alpha Team Training", 60), "masrl site serve did not come up"
        write_entry(mini_project.root, entry_data("alpha2025", title="Renamed While Serving"))
        assert _wait_for(page, "Renamed While Serving", 60), "the page was not regenerated"
        (mini_project.root / "corpus" / "broken.yaml").write_text(
            "key: [unclosed\n", encoding="utf-8"
        )
        deadline = time.monotonic() + 30  # the watcher reads the invalid corpus and says so ...
        while "the pages stay as they were" not in said.read_text(
            encoding="utf-8", errors="replace"
        ):
            assert time.monotonic() < deadline, "the server did not report the invalid corpus"
            time.sleep(0.2)
        # ... and the last good pages stay (waiting, not one fetch: mkdocs may still be busy)
        assert _wait_for(page, "Renamed While Serving", 30), "the last good page was lost"
    finally:
        server.terminate()  # SIGTERM stops it as Ctrl-C does: mkdocs removes its folder
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert not list(tmp_path.glob("mkdocs_*")), "masrl site serve left its temporary folder behind"


def test_sigterm_stops_the_preview_as_ctrl_c_does_and_is_undone_after():
    from masrl.render.site.serve import _stop_on_sigterm

    before = signal.getsignal(signal.SIGTERM)
    undo = _stop_on_sigterm()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # the handler runs at the next bytecode; never reached
    undo()
    assert signal.getsignal(signal.SIGTERM) is before


def test_every_generated_page_is_reachable_from_the_navigation(real_site, tmp_path):
    """Every page the build generates is in the menu (the axis pages through the build's
    navigation hook, so a new taxonomy axis needs no edit to mkdocs.yml), except the entry pages,
    which mkdocs.yml keeps out of the menu on purpose and "All entries by key" links one by one."""
    from masrl.render.site.builder import SitePaths, mkdocs_config, site_source_dir
    from masrl.render.site.navigation import on_config

    paths = SitePaths(site_source_dir(real_site.project), real_site.docs, tmp_path / "out")
    config = on_config(mkdocs_config(paths))

    def pages(items):
        for item in items:
            if isinstance(item, str):
                yield item
            elif isinstance(item, dict):
                for value in item.values():
                    yield from ([value] if isinstance(value, str) else pages(value))

    in_nav = set(pages(config.nav))
    generated = {p.relative_to(real_site.docs).as_posix() for p in real_site.docs.rglob("*.md")}
    missing = sorted(p for p in generated - in_nav if not p.startswith("entries/"))
    assert not missing, missing
    assert {"browse/reward_types.md", "browse/sub_decisions.md"} <= in_nav
    index_pages = [p for p in in_nav if re.fullmatch(r"entries(-\d+)?\.md", p)]
    linked = "".join(real_site.html(p[: -len(".md")] + "/") for p in index_pages)
    for page in sorted(p for p in generated if p.startswith("entries/")):
        assert f'{page[: -len(".md")]}/"' in linked, page


def test_no_page_shows_an_escaped_entity_as_text(real_site):
    """Text is escaped once, where it is written: a reader never sees `&#45;`, `&amp;` or `&lt;`
    (an entity inside a Markdown code span is shown literally, so values go in <code> instead)."""
    from html.entities import name2codepoint

    entity = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);")
    found = []
    for path in html_pages(real_site):
        text = " ".join(parse(path).text)
        found += [
            f"{page_url_path(real_site, path)}: {m.group(0)}"
            for m in entity.finditer(text)
            if m.group(1).startswith("#") or m.group(1) in name2codepoint  # "Texas A&M;" is text
        ]
    assert not found, found[:20]


def test_every_page_links_the_feed(real_site):
    """Feed readers find the Atom feed from any page, and the link resolves to it."""
    for path in html_pages(real_site):
        page = parse(path)
        links = [a for tag, a in page.tags if tag == "link" and a.get("rel") == "alternate"]
        assert [a.get("type") for a in links] == ["application/atom+xml"], path
        href = links[0]["href"]
        # the 404 page links from the site's root, every other page relatively
        base = real_site.folder if href.startswith("/") else path.parent
        assert (base / href.lstrip("/")).resolve() == (real_site.folder / "feed.xml").resolve(), (
            path
        )
