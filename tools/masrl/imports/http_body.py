"""Reading an HTTP answer's body within one total deadline, for the arXiv and OpenAlex clients.

A read timeout bounds each wait for the next bytes, not the whole answer: a server that sends one
byte a second never trips it. Here the socket's timeout shrinks to the time left before each
read, so the whole body arrives within the deadline or the read stops, and the size is capped.
"""

from __future__ import annotations

import socket
import threading
import time

from requests.adapters import ProtocolError, ReadTimeoutError

CHUNK = 64 * 1024


class BodyTimeout(Exception):
    """The whole body did not arrive before the deadline."""


class BodyTooLarge(Exception):
    """The body grew past the size limit."""


class BodyBroken(Exception):
    """The connection broke off in the middle of the body."""


def read_body(response, deadline: float, max_bytes: int) -> bytes:
    """The body of a streamed ``requests`` response, decompressed, read before ``deadline``
    (a time.monotonic() value) and at most ``max_bytes`` long; the response is closed on error."""
    chunks, size = [], 0
    # A watchdog shuts the socket at the deadline: however the transfer is framed (chunked,
    # or read to the close) and whatever a read call waits for, the read then ends.
    watchdog = threading.Timer(max(deadline - time.monotonic(), 0.0), _shut, (response,))
    watchdog.daemon = True
    watchdog.start()
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BodyTimeout()
            _limit_wait(response, left)
            try:
                # read1 returns what has arrived (after decompression): one call cannot wait
                # for a whole chunk of a dripping answer.
                chunk = response.raw.read1(CHUNK, decode_content=True)
            except ReadTimeoutError as exc:
                raise BodyTimeout() from exc
            except (ProtocolError, OSError, ValueError) as exc:
                if time.monotonic() >= deadline:
                    raise BodyTimeout() from exc
                raise BodyBroken(type(exc).__name__) from exc
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > max_bytes:
                raise BodyTooLarge()
            chunks.append(chunk)
    except BaseException:
        response.close()
        raise
    finally:
        watchdog.cancel()


def _shut(response) -> None:
    """End every read of the response's socket now (the watchdog's action at the deadline)."""
    sock = getattr(getattr(response.raw, "connection", None), "sock", None)
    try:
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed: the read has ended


def _limit_wait(response, seconds: float) -> None:
    """Let the next socket read wait at most ``seconds`` (urllib3 keeps the socket on the
    response's connection; without one, the request's own read timeout still holds)."""
    connection = getattr(response.raw, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.001))
