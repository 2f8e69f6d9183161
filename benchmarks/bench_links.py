"""Benchmark `masrl links check`: bounded concurrency against a local server with real latency.

A local threaded HTTP server answers every link after a fixed delay (as a remote host does); the
corpus's real link count is checked with one worker (the baseline, measured in the same run) and
with the default eight. Prints wall time, links per second and the ratio. The figure that matters
on the weekly workflow is that the whole corpus fits well inside the default deadline.
Run:  python benchmarks/bench_links.py [--links 480] [--delay 0.05]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))

from masrl.check.link_health import LinkSettings, check_links  # noqa: E402


@dataclass
class _Entry:  # the fields outgoing_links reads
    key: str
    urls: tuple[str, ...]
    code: tuple = ()
    project_page: tuple = ()
    data: tuple = ()
    weights: tuple = ()


@dataclass
class _Corpus:
    entries: list


def serve(delay: float) -> ThreadingHTTPServer:
    class Slow(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server interface
            time.sleep(delay)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--links", type=int, default=480)
    parser.add_argument("--delay", type=float, default=0.05)
    args = parser.parse_args()
    server = serve(args.delay)
    port = server.server_address[1]
    corpus = _Corpus(
        [_Entry(f"e{n}", (f"http://127.0.0.1:{port}/p{n}",)) for n in range(args.links)]
    )
    timings = {}
    for workers in (1, 8):
        start = time.perf_counter()
        report = check_links(corpus, settings=LinkSettings(timeout=5, workers=workers))
        timings[workers] = time.perf_counter() - start
        assert report.counts() == {"live": args.links}, report.counts()
        print(
            f"workers={workers}: {args.links} links in {timings[workers]:.2f} s "
            f"({args.links / timings[workers]:.0f} links/s)"
        )
    print(f"speed-up with 8 workers over 1 (same run): {timings[1] / timings[8]:.1f}x")
    server.shutdown()


if __name__ == "__main__":
    main()
