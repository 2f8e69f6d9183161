"""The built site in a real headless Chromium (Playwright), served from 127.0.0.1.

The site driven is the sample site of test_site.py: the real project with a sample of its
entries that shows every tag value in use, so every template of the real site, at a third of its
pages (the real site's HTML is checked in full, without a browser, in test_site.py).

Every page loads without console errors and without a request to another host; search finds an
entry; the interactive table filters, sorts and keeps its state in the URL; hostile corpus text
renders as text and runs nothing; every page type passes axe-core (every rule once, the colour
rules in both schemes, on one element per styling context), and screenshots of the main pages in
both schemes are saved under test-artifacts/screenshots/.

Without Chromium these tests are skipped, except in CI (CI=true), where they fail.
"""

from __future__ import annotations

import html
import os
import re
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, quote, urljoin, urlsplit
from xml.etree import ElementTree

import pytest
from conftest import REPO_ROOT
from test_site import (
    EXCLUDED_HOSTILE_TITLE,
    HOSTILE_KEY,
    HOSTILE_TITLE,
    MESSAGE_LEVEL_KEYS,
    BuiltSite,
    _collapse,
    built_site,
    html_pages,
    page_url_path,
    parse,
)

# The tests spread over the xdist workers: each worker that runs one launches its own Chromium,
# and the sites are built once per run whichever worker needs them first (``built_site``).
pytestmark = pytest.mark.browser

# Debian's headless shell (scripts/setup.sh installs it), or else Playwright's own build of it
# (`python -m playwright install chromium-headless-shell`, where the system has no such package);
# MASRL_CHROMIUM names another build.
CHROMIUM = Path(os.environ.get("MASRL_CHROMIUM", "/usr/bin/chromium-headless-shell"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # No other host resolves: a request off the site fails at once and never leaves the machine.
    # (Playwright's request interception would do the same but turns off the HTTP cache, so every
    # page would fetch and compile material's scripts and styles again.)
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}


def _chromium_missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(
            f"browser tests need Chromium in CI: {reason} (run `make setup`)", pytrace=False
        )
    pytest.skip(reason)


@contextmanager
def launched_chromium():
    """Chromium for the session (conftest's ``browser`` fixture, shared by every browser test
    module: Playwright's sync API runs once per process)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _chromium_missing("Playwright for Python is not installed")
    from playwright.sync_api import Error as PlaywrightError

    system = CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)
    if "MASRL_CHROMIUM" in os.environ and not system:
        _chromium_missing(f"no Chromium at {CHROMIUM} (MASRL_CHROMIUM)")
    with sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(
                executable_path=str(CHROMIUM) if system else None, args=CHROMIUM_ARGS
            )
        except PlaywrightError as exc:
            _chromium_missing(
                f"no Chromium at {CHROMIUM}, nor Playwright's own: {str(exc).splitlines()[0]}"
            )
        yield chromium
        chromium.close()


class Watched:
    """A browser context on one site that records console errors, failed and off-site requests
    (which fail: no other host resolves, see CHROMIUM_ARGS)."""

    def __init__(self, browser, site: BuiltSite):
        self.site = site
        self.problems: list[str] = []
        self.off_site: list[str] = []
        self.context = browser.new_context(viewport=VIEWPORT)
        self.context.on("request", self._request)
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.page.on("console", self._console)
        self.page.on(
            "pageerror", lambda error: self.problems.append(f"{self.page.url}: page error: {error}")
        )
        self.page.on("response", self._response)
        self._devtools = None  # a DevTools session on the page, opened by fresh()

    def _request(self, request):
        address = urlsplit(request.url)
        if address.scheme in ("http", "https") and address.netloc != urlsplit(self.site.url).netloc:
            self.off_site.append(request.url)

    def _console(self, message):
        if message.type == "error":
            self.problems.append(f"{self.page.url}: console error: {message.text}")

    def _response(self, response):
        if response.status >= 400:
            self.problems.append(f"{self.page.url}: HTTP {response.status} for {response.url}")

    def goto(self, path: str):
        self.page.goto(self.site.url + path, wait_until="load")
        return self.page

    def fresh(self):
        """The page as a new reader's, for the next test of a module sharing it: a blank page at
        the desktop size in the light scheme, nothing in the site's local storage (where material
        keeps the chosen scheme and tabs; it keeps in session storage only repository facts and
        version notices, which this site has none of), no permission granted, nothing recorded.
        Sharing the page keeps one renderer process and a warm HTTP cache: a new context starts a
        renderer and fetches and compiles material's scripts and styles again."""
        self.page.goto("about:blank")
        if self._devtools is None:
            self._devtools = self.context.new_cdp_session(self.page)
        self._devtools.send(
            "Storage.clearDataForOrigin",
            {"origin": self.site.url.rstrip("/"), "storageTypes": "local_storage"},
        )
        self.page.set_viewport_size(VIEWPORT)
        self.page.emulate_media(color_scheme="light")  # a new context's default
        self.page.mouse.move(0, 0)
        self.context.clear_permissions()
        self.problems.clear()
        self.off_site.clear()

    def close(self):
        self.context.close()


@contextmanager
def shared_session(browser, site: BuiltSite):
    """A Watched page for the tests of a module, each starting fresh (``Watched.fresh``)."""
    session = Watched(browser, site)
    try:
        yield session
    finally:
        session.close()


def watched_by_one_test(session: Watched):
    """A shared page, fresh for one test, which leaves it without errors or off-site requests."""
    session.fresh()
    yield session
    assert session.problems == []
    assert session.off_site == []


@pytest.fixture(scope="session")
def sample_site(tmp_path_factory) -> BuiltSite:
    return built_site("sample", tmp_path_factory)


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory) -> BuiltSite:
    return built_site("hostile", tmp_path_factory)


@pytest.fixture(scope="module")
def sample_session(browser, sample_site):
    with shared_session(browser, sample_site) as session:
        yield session


@pytest.fixture
def watched(sample_session):
    yield from watched_by_one_test(sample_session)


def sitemap_paths(site: BuiltSite) -> list[str]:
    tree = ElementTree.parse(site.folder / "sitemap.xml")
    locations = [el.text for el in tree.iter() if el.tag.endswith("loc")]
    return sorted(urlsplit(loc).path.lstrip("/") for loc in locations)


def table_ready(page):
    page.wait_for_selector("#masrl-table-app[data-ready=true]")


def shown_keys(page) -> set[str]:
    return set(
        page.locator("#masrl-table-body tr[data-key]").evaluate_all(
            "rows => rows.map(r => r.dataset.key)"
        )
    )


# ---------------------------------------------------------------------------------------------


PHONE = {"width": 390, "height": 844}
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


# Material's instant loading, as a click on a link triggers it: the page is fetched and its content
# swapped in, with the styles and scripts already running. window.__masrlShown records each
# document material finishes showing.
FOLLOW_INSTANTLY = """(target) => {
    if (!window.__masrlWatching) {
        window.__masrlWatching = true;
        document$.subscribe(() => { window.__masrlShown = location.href; });
    }
    const link = document.createElement("a");
    link.href = target;
    document.body.appendChild(link);
    link.click();
    link.remove();
}"""


# Shown: either material swapped the page in, or (when the click came before instant loading had
# read the sitemap, as on a busy machine) the browser loaded it in full, in a new window.
SHOWN = """(target) => window.__masrlShown === target
    || (!window.__masrlWatching && location.href === target && document.readyState === "complete")"""


def follow_instantly(session: Watched, path: str):
    target = session.site.url + path
    session.page.evaluate(FOLLOW_INSTANTLY, target)
    session.page.wait_for_function(SHOWN, arg=target)
    return session.page


# What a full load runs beyond the page's own content: the scripts and stylesheets of its <head>
# and its end, as addresses (the built pages name them relative to themselves). Read with a
# pattern, not test_site's parse(): tokenising the 72 pages would cost a third of what following
# them instead of loading them saves.
ASSET = re.compile(r'<script\b[^>]*\bsrc="([^"]+)"|<link\b[^>]*\bhref="([^"]+\.(?:css|js))"')


def loaded_assets(site: BuiltSite, path: str) -> tuple[str, ...]:
    text = (site.folder / path / "index.html").read_text(encoding="utf-8")
    return tuple(urljoin(site.url + path, script or style) for script, style in ASSET.findall(text))


@pytest.mark.slow
def test_every_page_loads_without_errors_or_off_site_requests_and_fits_a_phone(
    watched, sample_site
):
    """One pass over the sitemap at 390 x 844: no console error, no other host, no sideways scroll.

    Every page is the one template around its own content, loading the same scripts and
    stylesheets (checked here), so a full load of the home page runs what a full load of any page
    runs (the axe test loads its page types in full too, under the same watch for errors and other
    hosts). Every other page is reached as a reader following links reaches it, through material's
    instant loading: its own content laid out by the same styles, the scripts in it run again (material
    re-inserts them), at a quarter of the time of a full load."""
    session = watched
    session.page.set_viewport_size(PHONE)
    wide = []

    def measure(path: str, page) -> None:
        if page.evaluate(OVERFLOW) > 0:
            wide.append(f"{path}: {page.evaluate('document.documentElement.scrollWidth')} px")

    paths = sitemap_paths(sample_site)
    built = {
        p.relative_to(sample_site.folder).parent.as_posix()
        for p in sample_site.folder.rglob("index.html")
    }
    assert len(paths) == len(built)
    entry_pages = [path for path in paths if re.fullmatch(r"entries/[^/]+/", path)]
    assert len(entry_pages) == len(sample_site.project.entry_paths()) > 10
    assert paths[0] == ""  # the home page
    home = loaded_assets(sample_site, "")
    assert (
        len(home) > 3 and [path for path in paths if loaded_assets(sample_site, path) != home] == []
    )
    measure("", session.goto(""))
    for path in paths[1:]:
        measure(path, follow_instantly(session, path))
    table_ready(session.goto("table/"))  # the table page's script ran and fetched its data
    assert session.page.evaluate(OVERFLOW) == 0
    assert wide == []
    assert session.problems == [] and session.off_site == []


def test_links_on_a_page_lead_to_pages_and_anchors_in_the_browser(watched):
    page = watched.goto("entries/c3/")
    page.locator('a.masrl-chip--credit_units[href$="#message"]').first.click()
    page.wait_for_url(re.compile(r"/browse/credit_units/#message$"))
    page.locator("h2#message").wait_for(
        state="visible"
    )  # instant loading swaps the content in after the URL
    page.locator('a[href$="entries/debate-as-reward/"]').first.click()
    page.wait_for_url(re.compile(r"/entries/debate-as-reward/$"))
    page.locator("article code", has_text="debate-as-reward").first.wait_for(state="visible")


def test_entry_bibtex_block_has_a_copy_button(watched):
    page = watched.goto("entries/puppeteer/")
    block = page.locator("div.language-bibtex")
    block.locator("button[data-md-type=copy], button.md-clipboard").first.wait_for(state="attached")
    assert "@inproceedings{puppeteer," in block.inner_text()


def test_search_loads_its_index_only_when_opened_by_its_key_and_finds_the_puppeteer_entry(watched):
    """The search index is requested only once the reader opens search (here with the "/" key; the
    hostile-site test opens it with a click), and then search works."""
    index_requests = []

    def index_request(request):
        if "search_index" in request.url:
            index_requests.append(request.url)

    watched.page.on("request", index_request)  # off again at the end: the page is shared
    page = watched.goto("statistics/")
    page.wait_for_timeout(500)  # the bundle has started (and, before, fetched the index at once)
    assert index_requests == []
    with page.expect_request(lambda r: r.url.endswith("search/search_index.json")):
        page.keyboard.press("/")
    page.keyboard.type("puppeteer")
    result = page.locator('.md-search-result__item a[href*="entries/puppeteer/"]').first
    result.wait_for(state="visible")
    assert "Evolving Orchestration" in result.inner_text()
    assert len(index_requests) == 1
    watched.page.remove_listener("request", index_request)


# The pages of the search results, in their order (material lists one item per page).
RESULT_PAGES = """() => Array.from(
  document.querySelectorAll('.md-search-result__list > .md-search-result__item > a.md-search-result__link'),
  a => new URL(a.href).pathname)"""


@pytest.mark.parametrize("term", ["when to stop", "O5", "credit"])
def test_a_taxonomy_term_brings_its_definition_then_the_entries_tagged_with_it(
    watched, sample_site, term
):
    """Search ranks tags above titles above text: a taxonomy term's first result is the taxonomy
    page (where it is defined), then come the entry pages tagged with it, before any page that
    only mentions it."""
    import json

    index = json.loads((sample_site.folder / "search" / "search_index.json").read_text("utf-8"))
    words = term.lower().split()
    tagged = {
        "/" + doc["location"].split("#")[0]
        for doc in index["docs"]
        if doc["location"].startswith("entries/")
        and any(
            all(w in tag.lower().split() for w in words if w != "to") for tag in doc.get("tags", [])
        )
    }
    assert len(tagged) > 2, term
    page = watched.goto("")
    page.keyboard.press("/")
    page.keyboard.type(term)
    page.wait_for_function(
        "document.querySelectorAll('.md-search-result__list > .md-search-result__item').length >= 5"
    )
    page.wait_for_timeout(300)  # the last keystroke's query has replaced the earlier ones
    pages = [
        p.removeprefix(urlsplit(sample_site.url).path.rstrip("/"))
        for p in page.evaluate(RESULT_PAGES)
    ]
    assert pages[0] == "/taxonomy/", (term, pages)
    following = pages[1 : 1 + min(len(tagged), len(pages) - 1)]
    assert following and set(following) <= tagged, (term, following)


def test_choosing_message_credit_leaves_the_message_level_entries_and_survives_reload(
    watched, sample_site
):
    page = watched.goto("table/")
    table_ready(page)
    every = len(sample_site.project.entry_paths())
    assert (
        len(shown_keys(page))
        == int(page.locator("#masrl-table-app").get_attribute("data-count"))
        == every
    )
    page.locator('details[data-axis="credit_units"] > summary').click()
    page.locator('input[data-axis="credit_units"][value="message"]').check()
    page.wait_for_function(
        f"document.querySelector('#masrl-table-app').dataset.count === '{len(MESSAGE_LEVEL_KEYS)}'"
    )
    assert shown_keys(page) == MESSAGE_LEVEL_KEYS
    assert "credit_units=message" in page.url
    assert (
        f"Showing {len(MESSAGE_LEVEL_KEYS)} of" in page.locator("#masrl-table-status").inner_text()
    )
    shared = page.url
    page.reload(wait_until="load")
    table_ready(page)
    assert shown_keys(page) == MESSAGE_LEVEL_KEYS
    assert page.locator('input[data-axis="credit_units"][value="message"]').is_checked()
    assert page.url == shared


def test_table_combines_axes_years_text_and_sorting_from_the_keyboard(watched, sample_site):
    import json

    data = json.loads((sample_site.folder / "data" / "entries.json").read_text(encoding="utf-8"))
    page = watched.goto(
        "table/?credit_units=agent&credit_units=role&topology=centralized&from=2025&to=2026"
    )
    table_ready(page)
    expected = {
        e["key"]
        for e in data["entries"]
        if {"agent", "role"} & set(e["tags"]["credit_units"])
        and e["tags"]["topology"] == ["centralized"]
        and 2025 <= e["year"] <= 2026
    }
    assert expected and shown_keys(page) == expected
    # free text narrows further and lands in the URL
    page.locator("#masrl-filter-text").fill("credit")
    page.wait_for_function("new URLSearchParams(location.search).get('text') === 'credit'")
    assert shown_keys(page) <= expected
    # sort by title from the keyboard: Tab onto the header button, press Enter
    page.locator("#masrl-reset").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("location.search === ''")
    page.locator('th[data-sort-key="title"] button').focus()
    page.keyboard.press("Enter")
    header = page.locator('th[data-sort-key="title"]')
    assert header.get_attribute("aria-sort") == "ascending"
    titles = page.locator("#masrl-table-body tr[data-key] .masrl-title").all_inner_texts()
    assert titles == sorted(titles, key=str.lower)
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "descending"
    assert "sort=-title" in page.url
    # a checkbox toggles with the space bar
    page.locator('details[data-axis="category"] > summary').focus()
    page.keyboard.press("Enter")
    page.locator('input[data-axis="category"][value="survey"]').focus()
    page.keyboard.press("Space")
    page.wait_for_function("new URLSearchParams(location.search).get('category') === 'survey'")
    assert shown_keys(page) == {
        e["key"] for e in data["entries"] if e["tags"]["category"] == ["survey"]
    }


# Where the table's header cell and title column stand against its scrolling box, and whether they
# are what a reader sees there (not covered by the rows or by material's header).
STICKY_GEOMETRY = """() => {
  const box = document.querySelector('.masrl-table-scroll').getBoundingClientRect();
  const th = document.querySelector('#masrl-table thead th.masrl-col-title');
  const head = th.getBoundingClientRect();
  const rows = document.querySelectorAll('#masrl-table-body tr[data-key]');
  const cell = rows[rows.length - 1].querySelector('.masrl-col-title').getBoundingClientRect();
  const seen = (el, r) => el.contains(document.elementFromPoint(r.left + 4, r.top + r.height / 2));
  return {boxTop: box.top, boxLeft: box.left, headTop: head.top, headLeft: head.left,
          headSeen: seen(th, head), cellLeft: cell.left, viewport: innerHeight};
}"""


def test_the_table_scrolls_in_its_box_with_header_and_title_column_in_view(watched):
    """At 1280 px the page does not scroll sideways: the table scrolls inside its own box, and
    after scrolling down and sideways in it the header row and the title column stay in view."""
    page = watched.goto("table/")
    table_ready(page)
    assert page.evaluate(OVERFLOW) == 0
    box = page.locator(".masrl-table-scroll")
    widths = box.evaluate("b => [b.clientWidth, b.scrollWidth, b.closest('article').clientWidth]")
    assert widths[0] <= widths[2]
    page.evaluate(
        "() => scrollTo(0, document.querySelector('.masrl-table-scroll')"
        ".getBoundingClientRect().top + scrollY - 100)"
    )
    rect = box.bounding_box()
    page.mouse.move(rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2)
    page.mouse.wheel(0, 3000)
    page.wait_for_function("document.querySelector('.masrl-table-scroll').scrollTop > 0")
    if widths[1] > widths[0]:  # wider than its box: scroll it sideways too
        page.mouse.wheel(400, 0)
        page.wait_for_function("document.querySelector('.masrl-table-scroll').scrollLeft > 0")
    geometry = page.evaluate(STICKY_GEOMETRY)
    assert abs(geometry["headTop"] - geometry["boxTop"]) <= 2, geometry
    assert 0 <= geometry["headTop"] < geometry["viewport"] and geometry["headSeen"], geometry
    assert abs(geometry["cellLeft"] - geometry["boxLeft"]) <= 2, geometry
    assert page.evaluate(OVERFLOW) == 0


def test_on_a_phone_each_row_is_a_card_with_its_tags(watched, sample_site):
    """At 390 px: no sideways scroll; each row is a card showing title, year, and the chips of
    reward families, credit units and sub-decisions, each under its heading."""
    import json

    data = json.loads((sample_site.folder / "data" / "entries.json").read_text(encoding="utf-8"))
    watched.page.set_viewport_size(PHONE)
    page = watched.goto("table/")
    table_ready(page)
    assert page.evaluate(OVERFLOW) == 0
    entry = next(
        e
        for e in data["entries"]
        if all(e["tags"][f] for f in ("reward_families", "credit_units", "sub_decisions"))
    )
    row = page.locator(f'#masrl-table-body tr[data-key="{entry["key"]}"]')
    row.scroll_into_view_if_needed()
    assert row.evaluate("r => getComputedStyle(r).display") == "block"
    assert row.locator(".masrl-title").is_visible() and row.locator(".masrl-col-year").is_visible()
    assert not row.locator(".masrl-col-venue").is_visible()
    for field in ("reward_families", "credit_units", "sub_decisions"):
        chips = row.locator(f".masrl-col--{field} a.masrl-chip")
        assert chips.count() == len(entry["tags"][field]) and chips.first.is_visible(), field
        box = chips.last.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], field
    headings = row.locator(".masrl-card-tag").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c, '::before').content)"
    )
    assert len(headings) == 3 and all(h.strip('"') for h in headings)


def test_instant_loading_reinitialises_the_table(watched, sample_site):
    every = len(sample_site.project.entry_paths())
    page = watched.goto("")
    page.evaluate("window.__sameDocument = true")
    page.locator(
        'article a.md-button[href$="/table/"]'
    ).first.click()  # material makes hrefs absolute
    table_ready(page)
    assert page.evaluate("window.__sameDocument === true"), (
        "instant loading should swap the page in place"
    )
    assert len(shown_keys(page)) == every
    page.locator("a.md-tabs__link", has_text="Analysis").click()
    page.wait_for_url(re.compile(r"/statistics/$"))
    page.locator('.masrl-cell a[href*="table/?"]').first.click()
    table_ready(page)
    assert page.evaluate("window.__sameDocument === true")
    assert 0 < len(shown_keys(page)) < every


def _injected_elements(page) -> list[str]:
    """Elements or attributes that hostile corpus text would create if it were not escaped."""
    found = []
    for tag, attributes in page.tags:
        handlers = [name for name in attributes if name.startswith("on")]
        if handlers:
            found.append(f"<{tag} {' '.join(handlers)}>")
        if tag in ("iframe", "b", "i") or (tag == "img" and attributes.get("src") in ("x", "y")):
            found.append(f"<{tag}>")
        if tag == "svg" and "onload" in attributes:
            found.append("<svg onload>")
        href = attributes.get("href", "")
        if "evil.example" in href or href.lower().startswith("javascript:"):
            found.append(f"<{tag} href={href}>")
        if "evil" in attributes.get("class", ""):
            found.append(f"<{tag} class=evil>")
    return found


def test_hostile_site_builds_and_renders_hostile_strings_as_text(hostile_site):
    """The hostile site's HTML, read without a browser; it sits here, not in test_site.py, so that
    one worker builds the hostile site once for this test and the next."""
    assert hostile_site.warnings == []
    for path in html_pages(hostile_site):
        page = parse(path)
        assert _injected_elements(page) == [], path
        assert not any("__pwned" in script for script in page.scripts), path
    entry = parse(hostile_site.folder / "entries" / HOSTILE_KEY / "index.html")
    text = _collapse(" ".join(entry.text))
    for literal in (
        HOSTILE_TITLE,
        "{{ config.site_name }}",
        "--8<-- /etc/passwd",
        "<i>Venue</i> :smile: |pipe|",
        "[aff](javascript:window.__pwned=1) {: onclick=window.__pwned=1 }",
        "# Not a heading",
    ):
        assert _collapse(literal) in text, literal
    raw = (hostile_site.folder / "entries" / HOSTILE_KEY / "index.html").read_text(encoding="utf-8")
    title = raw.split("<title>", 1)[1].split("</title>", 1)[0]
    assert "<" not in title and html.unescape(title).startswith(HOSTILE_TITLE)
    screening = _collapse(" ".join(parse(hostile_site.folder / "screening" / "index.html").text))
    assert _collapse(EXCLUDED_HOSTILE_TITLE) in screening


def test_hostile_strings_render_as_text_and_run_nothing(browser, hostile_site):
    session = Watched(browser, hostile_site)
    try:
        for path in (
            f"entries/{HOSTILE_KEY}/",
            "papers/",
            "screening/",
            "browse/credit_units/",
            "entries/",
        ):
            page = session.goto(path)
            page.wait_for_timeout(100)
            assert page.evaluate("typeof window.__pwned") == "undefined", path
            assert (
                page.locator("img[src='x'], img[src='y'], iframe, a[href*='evil.example']").count()
                == 0
            ), path
        page = session.goto(f"entries/{HOSTILE_KEY}/")
        assert page.locator("article h1").inner_text().rstrip("¶").strip() == HOSTILE_TITLE
        assert page.title().startswith(HOSTILE_TITLE)
        page = session.goto("table/?text=pwned")
        table_ready(page)
        assert page.locator("#masrl-table-body .masrl-title").all_inner_texts() == [HOSTILE_TITLE]
        page.locator("input.md-search__input").click()
        page.keyboard.type("config")  # a word of the hostile title
        page.locator(".md-search-result__item").first.wait_for(state="visible")
        page.wait_for_timeout(200)
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.locator(".md-search-result img, .md-search-result script").count() == 0
    finally:
        session.close()
    assert session.off_site == []
    assert [p for p in session.problems if "favicon" not in p] == []


def test_a_filtered_table_row_leads_to_the_arxiv_abstract(watched):
    page = watched.goto("table/?credit_units=message")
    table_ready(page)
    link = page.locator('#masrl-table-body tr[data-key="c3"] a.masrl-out--arxiv')
    with page.expect_request(lambda request: "arxiv.org" in request.url) as request:
        link.click()
    assert request.value.url == "https://arxiv.org/abs/2603.06859"
    watched.off_site.remove(request.value.url)  # the one request we caused on purpose


def shown_order(page) -> list[str]:
    return page.locator("#masrl-table-body tr[data-key]").evaluate_all(
        "rows => rows.map(r => r.dataset.key)"
    )


def test_every_download_of_a_filtered_sorted_view_holds_its_rows_in_its_order(watched):
    """BibTeX, RIS, both CSV layouts and JSON from a filtered view sorted by title, descending:
    exactly the rows shown, in the order shown, each file readable by its own parser."""
    import csv
    import io
    import json

    import bibtexparser
    import rispy

    page = watched.goto("table/?credit_units=message&credit_units=role&sort=-title")
    table_ready(page)
    order = shown_order(page)
    assert len(order) > 2 and order != sorted(order)

    def download(kind: str) -> str:
        with page.expect_download() as file:
            page.locator(f'button[data-export="{kind}"]').click()
        return Path(file.value.path()).read_text(encoding="utf-8")

    library = bibtexparser.parse_string(download("bibtex"))
    assert [entry.key for entry in library.entries] == order and not library.failed_blocks
    assert [record["id"] for record in rispy.loads(download("ris"))] == order
    survey = list(csv.DictReader(io.StringIO(download("csv"))))
    assert [row["key"] for row in survey] == order and "credit_granularity" in survey[0]
    own = list(csv.DictReader(io.StringIO(download("masrl-csv"))))
    assert [row["key"] for row in own] == order
    assert "reward_families" in own[0] and "credit_units" in own[0]
    document = json.loads(download("json"))
    assert document["format"] == "masrl-entries"
    assert [record["key"] for record in document["entries"]] == order
    assert all("reward_families" in record for record in document["entries"])


def test_the_text_filter_matches_arxiv_ids_authors_and_keys(watched, sample_site):
    import json

    data = json.loads((sample_site.folder / "data" / "entries.json").read_text(encoding="utf-8"))
    entry = next(e for e in data["entries"] if e["arxiv_id"] and e["authors"])
    for text in (entry["arxiv_id"], entry["key"], entry["authors"][-1]):
        page = watched.goto(f"table/?text={quote(text)}")
        table_ready(page)
        assert entry["key"] in shown_keys(page), text


def test_facet_counts_follow_the_other_filters_and_text_search_covers_tags(watched, sample_site):
    import json

    data = json.loads((sample_site.folder / "data" / "entries.json").read_text(encoding="utf-8"))
    page = watched.goto("table/?topology=debate")
    table_ready(page)
    debate = [e for e in data["entries"] if e["tags"]["topology"] == ["debate"]]
    agent = sum("agent" in e["tags"]["credit_units"] for e in debate)
    badge = page.locator('label[for="masrl-f-credit_units-agent"] .masrl-check__n')
    assert badge.text_content() == str(agent)
    page.locator("#masrl-filter-text").fill("orchestrator")  # a credit unit, in no title
    page.wait_for_function("new URLSearchParams(location.search).get('text') === 'orchestrator'")
    page = watched.goto("table/?text=orchestrator")
    table_ready(page)
    tagged = {e["key"] for e in data["entries"] if "orchestrator" in e["tags"]["credit_units"]}
    assert tagged and tagged <= shown_keys(page)


def test_copy_bibtex_puts_the_entry_on_the_clipboard(watched):
    session = watched
    session.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = session.goto("entries/puppeteer/")
    page.locator("button.masrl-copy-bib").click()
    page.wait_for_function(
        "document.querySelector('button.masrl-copy-bib').dataset.copied === 'true'"
    )
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("@inproceedings{puppeteer,")
    assert session.problems == []


AXE_PAGES = {
    "home": "",
    "list": "papers/",
    "table": "table/?credit_units=message",
    "entry": "entries/puppeteer/",
    "index": "entries/",
    "stats": "statistics/",
    "gaps": "gaps/",
    "traces": "traces/examples/",
    "browse": "browse/credit_units/",
    "screening": "screening/",
    "compare": "compare/?keys=c3,puppeteer,halo",
}
for _optional in ("reliability", "whats-new"):  # pages another part of the site may add
    AXE_PAGES[_optional] = f"{_optional}/"
# Saved for reviewers (the pull-request workflow uploads them), not compared.
SCREENSHOT_PAGES = {"home", "list", "entry", "stats", "table"}


# The rules that read colours run in both schemes; every other rule (names, roles, landmarks: the
# same in both, only the stylesheet's colours change) runs once per page.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
AXE_STRUCTURE = {
    "runOnly": ["wcag2a", "wcag2aa", "best-practice"],
    "rules": {rule: {"enabled": False} for rule in COLOUR_RULES},
}
AXE_COLOURS = {"runOnly": {"type": "rule", "values": COLOUR_RULES}}
SCHEME_OF = {"default": "light", "slate": "dark"}  # material's scheme names
SHOWN_SCHEME = "document.body.getAttribute('data-md-color-scheme')"

# Only violations are asked for: axe then skips gathering the passing nodes, half its time.
AXE_ON_PAGE = "options => axe.run(document, {...options, resultTypes: ['violations']})"
AXE_ON_ELEMENTS = (
    "([indices, options]) => axe.run({include: indices.map(i => window.masrlStyled[i])}, "
    "{...options, resultTypes: ['violations']})"
)

# Colours are judged on one element per styling context, not on every text: the statistics page
# alone has a thousand table cells styled alike, and colour-contrast costs axe a millisecond or
# more per element. Elements whose paths from <body> agree in tags, classes, attribute names and
# inline styles, and that stand at the same place among their siblings (first, last, odd, even)
# as do their parents, get the same declarations from the same stylesheets, hence the same
# colours; a context judged on one page is not judged again on the next. The script returns the
# key of every context that shows text (form fields included) and keeps its first element in
# window.masrlStyled.
STYLE_CONTEXTS = """() => {
  const sheets = Array.from(document.querySelectorAll('link[rel=stylesheet], style'), s => s.href || s.textContent).join();
  const own = e => `${e.tagName}.${e.getAttribute('class') || ''}[${Array.from(e.attributes, a => a.name).sort()}]{${e.getAttribute('style') || ''}}`;
  const place = (i, n) => `${i === 0 ? 'F' : ''}${i === n - 1 ? 'L' : ''}${i % 2}`;
  const found = new Map();
  const visit = (element, path, places) => {
    const shows = ['INPUT', 'SELECT', 'TEXTAREA'].includes(element.tagName) ||
      Array.from(element.childNodes).some(n => n.nodeType === Node.TEXT_NODE && n.data.trim());
    const key = sheets + path + places;
    if (shows && !found.has(key)) found.set(key, element);
    const children = element.children;
    for (let i = 0; i < children.length; i++)
      visit(children[i], path + '>' + own(children[i]), place(i, children.length) + '/' + places.split('/')[0]);
  };
  visit(document.body, own(document.body), '');
  window.masrlStyled = [...found.values()];
  return [...found.keys()];
}"""

# A closed <details> shows only its summary. Colour rules judge only what is shown, yet axe would
# walk every hidden node to find what covers what: the example traces' JSON is 8,000 code spans.
DROP_CLOSED_DETAILS = "() => document.querySelectorAll('details:not([open]) > :not(summary)').forEach(e => e.remove())"

# Planted on the statistics page: the last table cell, like a thousand others but for its
# grey-on-grey inline style, must be judged and reported.
PLANT_GREY_CELL = """() => {
  const cells = document.querySelectorAll('article table td');
  const cell = cells[cells.length - 1];
  cell.textContent = 'planted';
  cell.setAttribute('style', 'color: #777; background: #888');
}"""


def scheme_of(page) -> str:
    """The scheme the page shows: "light" or "dark"."""
    return SCHEME_OF[page.evaluate(SHOWN_SCHEME)]


def toggle_palette(page) -> str:
    """Switch the colour scheme as a reader does, with the palette button; wait until the new
    colours have settled (material fades them in), and return the new scheme."""
    before = page.evaluate(SHOWN_SCHEME)
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function(f"before => {SHOWN_SCHEME} !== before", arg=before)
    page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
    return scheme_of(page)


@pytest.mark.slow
def test_axe_finds_no_serious_or_critical_violation_in_either_scheme(watched, sample_site):
    """Each page type, shown once as a reader reaches it (the first in a full load, the others
    through material's instant loading, so axe-core is put into the window once): axe-core
    reports no serious or critical violation, of any rule, and of the colour rules in both schemes
    (switched with the palette button); a planted grey-on-grey cell is reported. The main pages
    are saved as screenshots under test-artifacts/."""
    axe_script = pytest.importorskip("axe_playwright_python.sync_playwright").Axe().axe_script
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    session = watched
    found = {}
    judged = {"light": set(), "dark": set()}  # the styling contexts whose colours axe has judged

    def serious(result) -> list[str]:
        return [
            f"{v['id']} ({len(v['nodes'])}): {v['nodes'][0]['target']}"
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    def judge_colours(page, contexts: list[str]) -> tuple[str, list[str]]:
        """The shown scheme, and axe's colour findings on the page's styling contexts (keys of
        STYLE_CONTEXTS, the same in both schemes) not yet judged in it."""
        scheme = scheme_of(page)
        new = [index for index, key in enumerate(contexts) if key not in judged[scheme]]
        judged[scheme].update(contexts)
        return scheme, serious(page.evaluate(AXE_ON_ELEMENTS, [new, AXE_COLOURS])) if new else []

    checked = 0
    for name, path in AXE_PAGES.items():
        if not (sample_site.folder / path.split("?")[0] / "index.html").is_file():
            continue
        page = follow_instantly(session, path) if checked else session.goto(path)
        if name == "table":
            table_ready(page)
        if name == "compare":
            page.wait_for_selector("#masrl-compare-app[data-ready=true]")
        if not page.evaluate("typeof window.axe === 'object'"):
            page.evaluate(axe_script)  # axe-core, for every run on every page after
        if bad := serious(page.evaluate(AXE_ON_PAGE, AXE_STRUCTURE)):
            found[name] = bad
        page.evaluate(DROP_CLOSED_DETAILS)
        contexts = page.evaluate(STYLE_CONTEXTS)
        schemes = []
        for switch in (False, True):  # the scheme the last page was left in carries over
            if switch:
                toggle_palette(page)
            scheme, bad = judge_colours(page, contexts)
            schemes.append(scheme)
            if bad:
                found[f"{name} ({scheme})"] = bad
            if name in SCREENSHOT_PAGES:
                page.screenshot(path=str(SCREENSHOTS / f"{name}-{scheme}.png"))
        assert set(schemes) == {"light", "dark"}, name
        if name == "stats":
            page.evaluate(PLANT_GREY_CELL)
            planted = judge_colours(page, page.evaluate(STYLE_CONTEXTS))[1]
            assert len(planted) == 1 and planted[0].startswith("color-contrast (1)"), planted
        checked += 1
    assert checked >= 8  # home, list, table, entry, stats, gaps, traces and reliability at least
    assert found == {}
    assert session.problems == [] and session.off_site == []


@pytest.mark.parametrize("preferred", ["light", "dark"])
def test_the_scheme_follows_the_reader_preference_and_the_palette_button_switches_it(
    watched, preferred
):
    session = watched
    session.page.emulate_media(color_scheme=preferred)
    page = session.goto("")
    assert scheme_of(page) == preferred
    assert toggle_palette(page) != preferred
    page = session.goto("statistics/")  # the choice holds on the next page
    assert scheme_of(page) != preferred
    assert session.problems == []


def test_a_chip_tells_screen_readers_its_axis_and_definition(watched):
    """Chromium's accessibility tree (what a screen reader reads) gives a chip its label as name
    and its axis and definition as description, on a generated page and in the scripted table."""
    for path, selector in (
        ("entries/halo/", "a.masrl-chip--topology"),
        ("table/", "#masrl-table-body a.masrl-chip--topology"),
    ):
        page = watched.goto(path)
        if path == "table/":
            table_ready(page)
        chip = page.locator(selector).first
        chip.focus()
        session = page.context.new_cdp_session(page)
        active = session.send("Runtime.evaluate", {"expression": "document.activeElement"})[
            "result"
        ]["objectId"]
        backend = session.send("DOM.describeNode", {"objectId": active})["node"]["backendNodeId"]
        nodes = session.send(
            "Accessibility.getPartialAXTree", {"backendNodeId": backend, "fetchRelatives": False}
        )["nodes"]
        link = next(n for n in nodes if n.get("role", {}).get("value") == "link")
        assert link["name"]["value"] == chip.inner_text().strip(), (path, link)
        assert link["description"]["value"].startswith("Topology"), (path, link)
        assert len(link["description"]["value"]) > len("Topology: "), (path, link)
        session.detach()


# A count that links to a list: a bare number, or "all N entries of the cell in the table".
COUNT_LINK = re.compile(
    r'<a href="([^"#]+)"[^>]*>(?:all )?(\d+)(?: entries of the cell in the table)?</a>'
)
# A step of the home page's credit scale: a value's label and count, linking to its browse section.
SCALE_LINK = re.compile(
    r'<a href="([^"]+#[^"]+)"><span class="masrl-scale__label">[^<]*</span>'
    r'<span class="masrl-scale__n">(\d+)</span></a>'
)
# A card of the home page's headline: a count linking to the page that lists what it counts.
CARD_LINK = re.compile(
    r'<a class="masrl-stat" href="([^"]+)"><span class="masrl-stat__n">(\d+)</span>'
)
# What each such page lists, one element per record (or per year).
LISTED = {
    "papers/": "ul.masrl-papers > li",
    "screening/": ".masrl-record-id",
    "browse/year/": "article h2[id]",
}
# The entries listed under a browse page's section (up to the next section).
SECTION_ENTRIES = """(anchor) => {
    let node = document.getElementById(anchor), count = 0;
    for (node = node.nextElementSibling; node && node.tagName !== "H2"; node = node.nextElementSibling) {
        if (node.matches("ul.masrl-entry-list")) count += node.querySelectorAll(":scope > li").length;
    }
    return count;
}"""


# A small page without scripts of its own, passed through between two links to the same page.
BY_WAY_OF = "browse/"

# The table page shown again for another link's address without fetching it again: its app put
# back as the served page has it and material's document$ told of a new document, which is what
# instant loading does once it has swapped a page in. The table's script starts again and reads
# the new address, as after a click.
SERVED_TABLE_APP = """async () => {
    const served = await (await fetch(location.pathname)).text();
    return new DOMParser().parseFromString(served, "text/html")
        .getElementById("masrl-table-app").outerHTML;
}"""
TABLE_AGAIN = """([target, app]) => new Promise((shown, failed) => {
    history.replaceState(history.state, "", target);
    const fresh = document.createElement("template");
    fresh.innerHTML = app;
    document.getElementById("masrl-table-app").replaceWith(fresh.content);
    document$.next(document);
    const deadline = performance.now() + 10000;  // as long as Watched waits for a page
    const ready = () => {
        const started = document.querySelector("#masrl-table-app[data-ready=true]");
        if (!started && performance.now() > deadline) return failed(new Error("the table did not start"));
        if (!started) return requestAnimationFrame(ready);
        shown([location.href, new Set(Array.from(
            started.querySelectorAll("#masrl-table-body tr[data-key]"), row => row.dataset.key)).size]);
    };
    ready();
})"""


def count_links(site: BuiltSite) -> dict[str, dict[str, int]]:
    """{target path with query: {page it is linked from: the count it shows}} over every page."""
    found: dict[str, dict[str, int]] = {}
    for path in html_pages(site):
        page = page_url_path(site, path)
        text = path.read_text(encoding="utf-8")
        for href, count in COUNT_LINK.findall(text):
            target = urlsplit(urljoin(site.url + page.lstrip("/"), html.unescape(href)))
            found.setdefault(f"{target.path.lstrip('/')}?{target.query}", {})[page] = int(count)
        for href, count in CARD_LINK.findall(text):
            target = urlsplit(urljoin(site.url + page.lstrip("/"), html.unescape(href)))
            found.setdefault(target.path.lstrip("/"), {})[page] = int(count)
        for href, count in SCALE_LINK.findall(text):
            target = urlsplit(urljoin(site.url + page.lstrip("/"), html.unescape(href)))
            found.setdefault(f"{target.path.lstrip('/')}#{target.fragment}", {})[page] = int(count)
    return found


@pytest.mark.slow
def test_every_count_that_links_to_a_list_opens_exactly_that_many_records(watched, sample_site):
    """Cross-tab and gap cells, counts per axis on the statistics and browse pages and an entry's
    "all N entries of the cell" each open the table filtered to exactly the records counted: the
    table keeps every filter of the link (none is dropped as unknown, `verified` included) and
    shows as many rows as the link said; the home page's cards open the pages listing what they
    count, and its credit scale browse sections listing as many entries.

    Each distinct link is followed once, in one browser session, as a reader's click follows it:
    the first in a full load, the others through material's instant loading, which fetches the
    page, swaps it in and runs its scripts again (the table's reads the new query string). Instant
    loading fetches a page only when its path changes: the table, once shown, is shown for each
    further link as instant loading would after fetching it again (``TABLE_AGAIN``)."""
    links = count_links(sample_site)
    pages = {page for linked_from in links.values() for page in linked_from}
    assert {"/statistics/", "/gaps/", "/browse/verified/"} <= pages
    assert any("verified=" in target for target in links)
    assert set(LISTED) <= set(links)  # the home page's cards
    sections = [t for t in links if not t.startswith("table/?") and t not in LISTED]
    assert sections and all(re.fullmatch(r"browse/\w+/#[\w-]+", t) for t in sections), sections
    mismatches = []
    page = None
    table_app = None  # the table's app element as the served page has it
    for target, linked_from in sorted(links.items()):
        shown = None  # (address, rows) of the table shown again
        if page is None:
            page = watched.goto(target)
        elif table_app and urlsplit(page.url).path == urlsplit(sample_site.url + target).path:
            shown = page.evaluate(TABLE_AGAIN, [sample_site.url + target, table_app])
        else:
            if urlsplit(page.url).path == urlsplit(sample_site.url + target).path:
                follow_instantly(watched, BY_WAY_OF)
            page = follow_instantly(watched, target)
        if target in LISTED:
            rows = page.locator(LISTED[target]).count()
        elif target in sections:  # a browse section: the entries listed under its heading
            rows = page.evaluate(SECTION_ENTRIES, target.split("#", 1)[1])
        else:
            if shown is None:
                table_ready(page)
                table_app = table_app or page.evaluate(SERVED_TABLE_APP)
                shown = (page.url, len(shown_keys(page)))
            address, rows = shown
            kept = sorted(parse_qsl(urlsplit(address).query))
            if kept != sorted(parse_qsl(target.split("?", 1)[1])):
                mismatches.append(f"{target}: the table dropped filters, kept {kept}")
        mismatches += [
            f"{origin} links {count} to {target}, which shows {rows} rows"
            for origin, count in linked_from.items()
            if count != rows
        ]
    assert len(links) > 50
    assert mismatches == []


# Words in table cells (letters, digits and underscores, which offer no break) that the browser
# laid out on more than one line.
BROKEN_WORDS = """() => {
    const broken = [];
    for (const cell of document.querySelectorAll("article table td, article table th")) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const match of node.data.matchAll(/\\w{4,}/g)) {
                const range = document.createRange();
                range.setStart(node, match.index);
                range.setEnd(node, match.index + match[0].length);
                const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                if (lines.size > 1) broken.push(match[0]);
            }
        }
    }
    return broken;
}"""


def test_tables_break_lines_between_words_never_inside_one(watched):
    """Count tables, cross-tabs, the reliability figures and the corrections list, at desktop
    and phone widths: no word in a table cell is split over two lines.

    Each page is shown once and laid out at both widths, the window resized as a reader turning a
    tablet resizes it (the cells' wrapping is the stylesheet's, computed afresh at each width);
    the first page comes in a full load, the others by following links (material's instant
    loading, as in the sitemap test)."""
    session = watched
    broken = {}
    for index, path in enumerate(
        ("statistics/", "gaps/", "reliability/", "corrections/", "browse/")
    ):
        session.page.set_viewport_size(VIEWPORT)
        page = session.goto(path) if index == 0 else follow_instantly(session, path)
        for viewport in (VIEWPORT, PHONE):
            page.set_viewport_size(viewport)
            words = page.evaluate(BROKEN_WORDS)
            if words:
                broken[f"{path} at {viewport['width']} px"] = words[:10]
    assert broken == {}


def test_has_code_filters_the_table_and_code_shows_as_a_badge(watched, sample_site):
    import json

    data = json.loads((sample_site.folder / "data" / "entries.json").read_text(encoding="utf-8"))
    with_code = {e["key"] for e in data["entries"] if "code" in e["links"]}
    assert "halo" in with_code and len(with_code) < len(data["entries"])

    page = watched.goto("table/?code=1")
    table_ready(page)
    assert page.locator("#masrl-filter-code").is_checked()
    assert shown_keys(page) == with_code
    badges = page.locator("#masrl-table-body a.masrl-badge--code")
    assert badges.count() == len(with_code)
    page.locator("#masrl-filter-code").uncheck()
    page.wait_for_function("!location.search.includes('code=1')")
    assert len(shown_keys(page)) == len(data["entries"])
    page.locator("#masrl-filter-code").check()  # the box writes the address back
    page.wait_for_function("location.search.includes('code=1')")
    assert shown_keys(page) == with_code

    entry = watched.goto("entries/halo/")
    badge = entry.locator(".masrl-actions a.masrl-badge--code")
    assert badge.inner_text() == "Code available"
    assert badge.get_attribute("href") == "https://github.com/23japhone/HALO"


def test_the_compare_view_from_a_permalink_and_from_ticked_rows(watched, sample_site):
    """compare/?keys=a,b,c shows the three entries side by side, in that order, with their tags,
    evidence lines and links; lines that differ are marked, lines that agree are not. Ticking
    two rows in the table leads to the same view of those two."""
    import json

    data = json.loads((sample_site.folder / "data" / "entries.json").read_text(encoding="utf-8"))
    with_evidence = [e for e in data["entries"] if e["evidence"] and e["tags"]["sub_decisions"]]
    chosen = with_evidence[:3]
    keys = [e["key"] for e in chosen]
    page = watched.goto(f"compare/?keys={','.join(keys)}")
    page.wait_for_selector("#masrl-compare-app[data-ready=true]")
    heads = page.locator("#masrl-compare thead th[data-key]")
    assert heads.evaluate_all("ths => ths.map(th => th.dataset.key)") == keys
    lines = {
        row.locator("th").first.evaluate("th => th.firstChild.textContent"): row
        for row in page.locator("#masrl-compare tbody tr").all()
    }
    label = {axis["field"]: axis["label"] for axis in data["axes"]}
    sub_decisions = lines[label["sub_decisions"]]
    for column, entry in enumerate(chosen):
        cell = sub_decisions.locator("td").nth(column)
        assert cell.locator("a.masrl-chip").all_inner_texts() == entry["tags"]["sub_decisions"]
    for sub_decision in {s for e in chosen for s in e["evidence"]}:
        texts = lines[f"Evidence {sub_decision}"].locator("td").all_inner_texts()
        assert [t.strip() for t in texts] == [e["evidence"].get(sub_decision, "—") for e in chosen]
    for label, line in lines.items():
        values = line.locator("td").evaluate_all("tds => tds.map(td => td.textContent)")
        differs = "masrl-differs" in line.get_attribute("class")
        assert differs == (len(set(values)) > 1), label
        assert (line.locator(".masrl-differs__note").count() == 1) == differs, label
    # a tag not every entry holds is marked; a tag they all hold is not
    for line in lines.values():
        chips = line.locator("td").evaluate_all(
            "tds => tds.map(td => Array.from(td.querySelectorAll('a.masrl-chip'),"
            " a => [a.textContent, a.classList.contains('masrl-chip--differs')]))"
        )
        for cell in chips:
            for text, marked in cell:
                assert marked != all(text in [t for t, _ in other] for other in chips), text
    # from the table: tick two rows, follow the link
    page = watched.goto("table/")
    table_ready(page)
    for key in keys[:2]:
        page.locator(f'#masrl-table-body tr[data-key="{key}"] input[data-compare]').check()
    link = page.locator("#masrl-compare-link")
    assert link.get_attribute("aria-disabled") is None
    link.click()
    page.wait_for_url(re.compile(r"/compare/\?keys="))
    page.wait_for_selector("#masrl-compare-app[data-ready=true]")
    assert (
        page.locator("#masrl-compare thead th[data-key]").evaluate_all(
            "ths => ths.map(th => th.dataset.key)"
        )
        == keys[:2]
    )
