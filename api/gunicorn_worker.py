"""gunicorn's threaded worker with read deadlines: a client that sends its request slowly is cut off.

gunicorn's `gthread` worker waits for a connection's first bytes in its poller, not in a thread, but once they came
it reads the request line, the headers and (through `wsgi.input`) the body in a pool thread with a blocking socket:
a client that trickles a byte a second (slowloris) holds that thread for as long as it likes, and a few such
clients hold them all. This worker bounds that reading, as Apache's mod_reqtimeout does:

- the request line and headers must have come within CRONACA_HEADER_TIMEOUT seconds (10) of the request's first
  byte, else the connection is closed unanswered;
- the body within CRONACA_BODY_TIMEOUT seconds (20) of the headers' end, plus one second for every
  CRONACA_BODY_MIN_RATE bytes (500) read, so an honest slow upload gets more time; else the app's read of the body
  raises `BodyTimeout`, answered 408 (problem+json) and the connection closed;
- a write that cannot go on for CRONACA_SEND_TIMEOUT seconds (30) ends the request: a follower whose network
  vanished lets its thread go even when no TCP reset comes;
- a connection closed gracefully (gunicorn drains what the client still sends, up to 2 s, so that no reset cuts the
  answer short) is closed by a few threads of its own, not by the main thread: gunicorn 27 lingers there, on the
  thread that accepts, so slow clients cut at once held up every new connection for seconds (ten, 20 s).

`Procfile`'s `api` line runs it (api/gunicorn_conf.py: `worker_class`); docs/deployment.md says why this worker.
"""

from __future__ import annotations

import functools
import os
import socket
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from gunicorn.http.errors import NoMoreData
from gunicorn.workers.gthread import DEFAULT_WORKER_DATA_TIMEOUT, ThreadWorker
from werkzeug.exceptions import RequestTimeout

from domain.records.settings import positive, seconds


class BodyTimeout(TimeoutError, RequestTimeout):  # noqa: N818  (named for what happened)
    """The body came too slowly. A TimeoutError for gunicorn (the connection is not kept alive), a 408 for the app."""

    description = ("the request body came too slowly (CRONACA_BODY_TIMEOUT, CRONACA_BODY_MIN_RATE); "
                   "send it again in one go")


@dataclass(frozen=True)
class Deadlines:
    header: float = 10.0
    body: float = 20.0
    body_min_rate: float = 500.0  # bytes a second that earn an honest slow body one more second
    send: float = 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Deadlines:
        return cls(seconds(env.get("CRONACA_HEADER_TIMEOUT"), cls.header, "CRONACA_HEADER_TIMEOUT"),
                   seconds(env.get("CRONACA_BODY_TIMEOUT"), cls.body, "CRONACA_BODY_TIMEOUT"),
                   positive(env.get("CRONACA_BODY_MIN_RATE"), int(cls.body_min_rate), "CRONACA_BODY_MIN_RATE"),
                   seconds(env.get("CRONACA_SEND_TIMEOUT"), cls.send, "CRONACA_SEND_TIMEOUT"))


class DeadlineSocket:
    """What gunicorn's request parser reads through: the connection's socket, each `recv` bounded by the time the
    request still has. Everything else (`settimeout`, `fileno`...) goes to the socket itself."""

    def __init__(self, sock: socket.socket, deadlines: Deadlines) -> None:
        self.sock = sock
        self.deadlines = deadlines
        self.reading_body = False
        self.until = 0.0
        self.body_read = 0

    def start_request(self) -> None:
        """A request's first bytes are here: its line and headers must follow within the header timeout."""
        self.reading_body = False
        self.until = time.monotonic() + self.deadlines.header

    def start_body(self) -> None:
        """The headers were read: the body (if any) has the body timeout, extended as its bytes come."""
        self.reading_body = True
        self.body_read = 0
        self.until = time.monotonic() + self.deadlines.body

    def recv(self, size: int) -> bytes:
        left = self.until + (self.body_read / self.deadlines.body_min_rate if self.reading_body else 0.0)
        left -= time.monotonic()
        if left <= 0:
            raise self._late()
        self.sock.settimeout(left)
        try:
            data = self.sock.recv(size)
        except TimeoutError:
            raise self._late() from None
        finally:
            self.sock.settimeout(self.deadlines.send)  # what the answer's writes get
        if self.reading_body:
            self.body_read += len(data)
        return data

    def _late(self) -> Exception:
        if self.reading_body:
            return BodyTimeout()
        return NoMoreData(b"")  # gunicorn closes the connection quietly: headers too slow

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


LINGERERS = 4  # threads that close connections gracefully (each drains its client for up to 2 s)


class ReadDeadlineWorker(ThreadWorker):
    """`gthread` whose pool threads read a request only as long as its deadlines allow, and whose graceful closes
    never wait on the thread that accepts (module docstring)."""

    def init_process(self) -> None:
        self.deadlines = Deadlines.from_env(os.environ)
        self.lingering = ThreadPoolExecutor(max_workers=LINGERERS, thread_name_prefix="cronaca-linger")
        super().init_process()

    def _close(self, conn: Any, graceful: bool = False) -> None:
        """`TConn.close` for gunicorn's main thread: a graceful close handed to the lingering threads."""
        if graceful:
            self.lingering.submit(type(conn).close, conn, True)
        else:
            type(conn).close(conn, False)

    def handle(self, conn: Any) -> Any:
        if "close" not in vars(conn):
            conn.close = functools.partial(self._close, conn)
        if not conn.initialized and not conn.data_ready and not conn.wait_for_data(DEFAULT_WORKER_DATA_TIMEOUT):
            return super().handle(conn)  # no byte yet: gunicorn hands the connection back to its poller
        conn.sock.setblocking(True)
        conn.init()
        unreader = getattr(conn.parser, "unreader", None)
        if unreader is not None and hasattr(unreader, "sock"):  # HTTP/1 (HTTP/2 is not enabled here)
            if not isinstance(unreader.sock, DeadlineSocket):
                unreader.sock = DeadlineSocket(unreader.sock, self.deadlines)
            unreader.sock.start_request()
            conn.deadline_socket = unreader.sock
        return super().handle(conn)

    def handle_request(self, req: Any, conn: Any) -> Any:
        reading = getattr(conn, "deadline_socket", None)
        if reading is not None:
            reading.start_body()
            conn.sock.settimeout(self.deadlines.send)
        return super().handle_request(req, conn)
