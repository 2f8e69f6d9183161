"""The render cache trusts an entry only if the key kept outside the cache folder authenticates it."""

from __future__ import annotations

import contextlib
import hashlib
import stat
import threading

import pytest
from conftest import entry_data, write_entry
from masrl import files, sealed
from masrl.check.validate import load_corpus
from masrl.render import figures as plots
from masrl.render.cache import CACHE_ENV, KEY_ENV, RenderCache, cached_files


@pytest.fixture
def cache_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(KEY_ENV, str(tmp_path / "state" / "cache.key"))
    sealed._read_or_create_key.cache_clear()
    yield tmp_path
    sealed._read_or_create_key.cache_clear()


def test_the_key_is_created_once_outside_the_cache_with_mode_0600(cache_dirs):
    first = cached_files("k", [b"in"], lambda: {"a": b"drawn"})
    key = cache_dirs / "state" / "cache.key"
    assert first == {"a": b"drawn"} and key.is_file()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_bytes()) == 32
    assert cached_files("k", [b"in"], lambda: pytest.fail("drawn twice")) == first


def test_a_rewritten_entry_with_a_recomputed_checksum_is_drawn_again(cache_dirs):
    cached_files("k", [b"in"], lambda: {"a.svg": b"<svg>honest</svg>"})
    stored = RenderCache.keyed("k", [b"in"])._file("files/a.svg")
    evil = b"<svg><script>alert(1)</script></svg>"
    stored.write_bytes(hashlib.sha256(evil).hexdigest().encode() + b"\n" + evil)
    assert cached_files("k", [b"in"], lambda: {"a.svg": b"<svg>honest</svg>"}) == {
        "a.svg": b"<svg>honest</svg>"
    }
    assert stored.read_bytes().endswith(b"honest</svg>")  # re-derived and stored again


def test_an_authentic_entry_moved_to_another_place_is_not_trusted(cache_dirs):
    cached_files("k", [b"one"], lambda: {"a": b"first"})
    cached_files("k", [b"two"], lambda: {"a": b"second"})
    one, two = (RenderCache.keyed("k", [i])._file("files/a") for i in (b"one", b"two"))
    two.write_bytes(one.read_bytes())
    assert RenderCache.keyed("k", [b"two"]).get("files/a") is None


def test_entries_written_under_another_key_are_misses(cache_dirs, monkeypatch):
    cached_files("k", [b"in"], lambda: {"a": b"x"})
    monkeypatch.setenv(KEY_ENV, str(cache_dirs / "other.key"))
    assert RenderCache.keyed("k", [b"in"]).get("files/a") is None


def test_a_key_inside_the_cache_folder_turns_the_cache_off(cache_dirs, monkeypatch):
    monkeypatch.setenv(KEY_ENV, str(cache_dirs / "cache" / "cache.key"))
    assert RenderCache.keyed("k", [b"in"]).directory is None
    calls = []
    for _ in range(2):
        cached_files("k", [b"in"], lambda: calls.append(1) or {"a": b"x"})
    assert len(calls) == 2 and not (cache_dirs / "cache" / "cache.key").exists()


def test_an_unwritable_cache_only_costs_time(cache_dirs):
    (cache_dirs / "cache").write_text("not a folder", encoding="utf-8")
    assert cached_files("k", [b"in"], lambda: {"a": b"x"}) == {"a": b"x"}


def test_a_tampered_figure_never_reaches_figures(mini_project, cache_dirs):
    write_entry(mini_project.root, entry_data("gamma2025", year=2024))
    corpus = load_corpus(mini_project)
    first = plots.render_figures(corpus, ["entries-per-year"])
    stored = plots.figure_cache(corpus)._file("figures/entries-per-year.svg")
    evil = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    stored.write_bytes(hashlib.sha256(evil).hexdigest().encode() + b"\n" + evil)
    assert plots.render_figures(corpus, ["entries-per-year"]) == first


def test_stats_and_the_paper_list_are_kept_only_for_the_same_inputs(
    repo_copy, cache_dirs, monkeypatch
):
    """STATS.md and README's paper list are kept in the render cache like the figures: read back
    for the same records, taxonomy, snapshot, ledger and code; made again when a stored file was
    tampered with; and an edited input (here the claim ledger) is a miss, so `masrl check`
    compares the committed file with what that input makes."""
    from masrl.render import readme, stats_page

    corpus = load_corpus(repo_copy)
    stats, listed = stats_page.snapshot_files(corpus), readme._paper_list_bytes(corpus)
    with monkeypatch.context() as patched:
        patched.setattr(stats_page, "stats_snapshot", lambda corpus: pytest.fail("made twice"))
        patched.setattr(readme, "_paper_lines", lambda corpus: pytest.fail("made twice"))
        assert stats_page.snapshot_files(corpus) == stats
        assert readme._paper_list_bytes(corpus) == listed

    tampered = []
    for folder in ("stats-page", "readme-list"):
        # A stored file's name is its name in the entry with "/" as "__" (SealedFolder.path_for).
        for stored in (cache_dirs / "cache" / folder).rglob("files__*"):
            evil = b"<script>alert(1)</script>"
            stored.write_bytes(hashlib.sha256(evil).hexdigest().encode() + b"\n" + evil)
            tampered.append(folder)
    assert sorted(tampered) == ["readme-list", "stats-page"]
    assert stats_page.snapshot_files(load_corpus(repo_copy)) == stats
    assert readme._paper_list_bytes(load_corpus(repo_copy)) == listed

    ledger = repo_copy.root / "claims" / "ledger.yaml"
    ledger.write_text(
        ledger.read_text(encoding="utf-8").replace(
            "expect: {retained: 84, excluded: 32, audited: 116}",
            "expect: {retained: 85, excluded: 32, audited: 116}",
        ),
        encoding="utf-8",
    )
    corpus = load_corpus(repo_copy)
    changed = stats_page.snapshot_files(corpus)
    assert changed != stats
    assert changed == {"STATS.md": stats_page.stats_snapshot(corpus).encode("utf-8")}
    assert "retained: 84 (expected 85)" in changed["STATS.md"].decode("utf-8")


@contextlib.contextmanager
def another_process_waits_for(cache, call):
    """Runs ``call`` in a thread while this thread holds ``cache``'s lock, as when another
    process makes the same renders: the body, which stores the renders, starts once the thread
    waits for the lock (or has finished without waiting). Yields the list that gets the thread's
    result (or its exception)."""
    waiting = threading.Event()
    got = []
    real_pause = files._pause_between_tries

    def pause():
        waiting.set()
        real_pause()

    def run():
        try:
            got.append(call())
        except BaseException as exc:  # noqa: BLE001 (the caller's assertion shows it)
            got.append(exc)
        finally:
            waiting.set()

    worker = threading.Thread(target=run)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "_pause_between_tries", pause)
        with cache.making():
            worker.start()
            waiting.wait()
            yield got
        worker.join()


def test_a_render_another_process_is_making_is_waited_for_and_read_back(cache_dirs):
    cache = RenderCache.keyed("k", [b"in"])
    produce = lambda: pytest.fail("made twice")  # noqa: E731
    with another_process_waits_for(cache, lambda: cached_files("k", [b"in"], produce)) as got:
        cache.put_all({"a": b"made once"})
    assert got == [{"a": b"made once"}]


def test_a_figure_another_process_is_drawing_is_waited_for_and_read_back(
    mini_project, cache_dirs, monkeypatch
):
    corpus = load_corpus(mini_project)
    monkeypatch.setattr(plots, "_style", lambda: pytest.fail("drawn twice"))
    cache = plots.figure_cache(corpus)
    draw = lambda: plots.render_figures(corpus, ["entries-per-year"], ("svg",))  # noqa: E731
    with another_process_waits_for(cache, draw) as got:
        cache.put("figures/entries-per-year.svg", b"<svg>drawn once</svg>")
    assert got == [{"figures/entries-per-year.svg": b"<svg>drawn once</svg>"}]
