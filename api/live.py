"""A lesson's live channel: what the presenter does reaches every student who follows the lesson.

`Lessons` (domain/records/lessons.py) publishes each change of a lesson (the presenter moved, a pause
opened, answers came in, a move was revealed) as a small message through `Hub.publish`. Each student's
browser holds one `GET /api/lessons/{id}/live` open: a server-sent event stream fed by `Hub.subscribe`.

Two hubs: `InProcessHub` (queues between the threads of one process: the default) and `RedisHub`
(Redis pub/sub, channel `cronaca:lesson:<id>`: when several API processes serve, a message published
by the process that took the presenter's request reaches the students connected to any of them).
A subscription is opened before the lesson is read for the stream's first event, so nothing published
in between is lost; a student who steps away and comes back (EventSource reconnects) starts again from
a fresh `lesson` event, so nothing needs replaying.

Records (issue 16) use the same hubs on topic `record:<id>` (Redis channel `cronaca:record:<id>`): after each
stored command, join or reveal, api/records.py announces the record's version, steps and whether it is
finished — nothing secret: a follower then asks for what its own token may see. `GET /api/records/{id}/live`
(`record_stream`) says the current state when the follower is behind (Last-Event-ID is the version) and ends
after a bounded lifetime (EventSource reconnects), so no server thread is held for ever.
"""

from __future__ import annotations

import contextlib
import http
import json
import logging
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, Self

import redis
from flask import Response, stream_with_context
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from api.problems import problem

log = logging.getLogger(__name__)

CHANNEL = "cronaca:lesson:{}"  # a bare id is a lesson's; a topic with a kind ("record:<id>") is `cronaca:<topic>`
RECORD_TOPIC = "record:{}"
RETRY_MS = 2000  # the `retry:` an EventSource waits before reconnecting
LIFETIME_SECONDS = 300.0  # a record follower's stream ends after about this long (it reconnects): threads come back
PUBLISH_PAUSE = 2.0  # after Redis failed a publish, publishes are skipped this long (commands do not wait on it)
PING_SECONDS = 15.0  # a comment line this often: proxies keep the stream open, a gone client is noticed
BACKLOG = 1000  # messages one slow subscriber may fall behind before it is dropped (it reconnects)
CROWDED_RETRY_SECONDS = 5  # the `Retry-After` of a stream refused for a full cap (api/live.py, StreamCaps)


def channel_for(topic: str) -> str:
    """The Redis channel of a topic: `cronaca:lesson:<id>` for a lesson's bare id, `cronaca:<kind>:<id>` else."""
    topic = str(topic)
    return f"cronaca:{topic}" if ":" in topic else CHANNEL.format(topic)


class Subscription(Protocol):
    """One follower's messages: `next_message(timeout)` gives the next one, or None when nothing came
    within `timeout` seconds (time for a heartbeat); iterating gives the same until closed."""

    closed: bool

    def next_message(self, timeout: float) -> dict[str, Any] | None: ...

    def close(self) -> None: ...


class Hub(Protocol):
    def publish(self, lesson_id: str, message: dict[str, Any]) -> None: ...

    def subscribe(self, lesson_id: str) -> Subscription: ...

    def close(self) -> None: ...


class Closed(Exception):  # noqa: N818  (named for what happened)
    """The subscription was closed (or dropped for falling behind, or its connection was lost): the stream ends."""


class Unavailable(Exception):  # noqa: N818  (named for what happened)
    """The live channel cannot be followed now (Redis unreachable): the client should retry shortly."""


class Following:
    """What every subscription does alike on top of its own `next_message` and `close`: iterating (a None after
    each quiet `PING_SECONDS`, the stream's cue for a heartbeat, until closed) and closing at the end of a `with`."""

    closed: bool

    def next_message(self, timeout: float) -> dict[str, Any] | None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __iter__(self) -> Iterator[dict[str, Any] | None]:
        return _iterate(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class QueueSubscription(Following):
    """A follower in this process: a bounded queue the hub fills."""

    def __init__(self, hub: InProcessHub, lesson_id: str) -> None:
        self.hub = hub
        self.lesson_id = lesson_id
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue(BACKLOG)
        self.closed = False

    def deliver(self, message: dict[str, Any]) -> bool:
        """False when this follower has fallen too far behind: the hub drops it."""
        try:
            self.queue.put_nowait(message)
        except queue.Full:
            return False
        return True

    def next_message(self, timeout: float) -> dict[str, Any] | None:
        if self.closed:
            raise Closed(self.lesson_id)
        try:
            found = self.queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if found is None:  # the sentinel close() or the hub put there
            self.closed = True
            raise Closed(self.lesson_id)
        return found

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.hub.drop(self)
            with contextlib.suppress(queue.Full):
                self.queue.put_nowait(None)  # wakes a reader blocked in next_message


class InProcessHub:
    """Threads of one process: each subscriber a queue, each publish a put into every queue of the lesson."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._followers: dict[str, set[QueueSubscription]] = {}

    def publish(self, lesson_id: str, message: dict[str, Any]) -> None:
        key = str(lesson_id)
        with self._lock:
            followers = list(self._followers.get(key, ()))
        for follower in followers:
            if not follower.deliver(message):
                log.warning("a follower of lesson %s fell %d messages behind; dropped (it reconnects)", key, BACKLOG)
                self.drop(follower)
                follower.closed = True

    def subscribe(self, lesson_id: str) -> QueueSubscription:
        found = QueueSubscription(self, str(lesson_id))
        with self._lock:
            self._followers.setdefault(found.lesson_id, set()).add(found)
        return found

    def subscribers(self, lesson_id: str) -> int:
        """How many follow the lesson now (tests and the benchmark check that gone clients are let go)."""
        with self._lock:
            return len(self._followers.get(str(lesson_id), ()))

    def drop(self, follower: QueueSubscription) -> None:
        with self._lock:
            found = self._followers.get(follower.lesson_id)
            if found is not None:
                found.discard(follower)
                if not found:
                    del self._followers[follower.lesson_id]

    def close(self) -> None:
        with self._lock:
            followers = [f for group in self._followers.values() for f in group]
        for follower in followers:
            follower.close()


class RedisSubscription(Following):
    """A follower through Redis: its own pub/sub connection, subscribed (confirmed) before it is returned."""

    def __init__(self, client: Any, lesson_id: str, confirm_seconds: float = 5.0) -> None:
        self.lesson_id = str(lesson_id)
        self.channel = channel_for(self.lesson_id)
        self.closed = False
        self.pubsub = client.pubsub()
        try:
            self.pubsub.subscribe(self.channel)
            deadline = time.monotonic() + confirm_seconds
            while True:  # the server's confirmation: from here on no message to the channel is missed
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Unavailable(f"Redis did not confirm the subscription to {self.channel} in {confirm_seconds} s")
                found = self.pubsub.get_message(timeout=left)
                if found is not None and found.get("type") == "subscribe":
                    break
        except (OSError, RedisError) as exc:
            self.pubsub.close()
            raise Unavailable(f"the live channel (Redis) cannot be reached: {exc}") from exc
        except BaseException:
            self.pubsub.close()
            raise

    def next_message(self, timeout: float) -> dict[str, Any] | None:
        if self.closed:
            raise Closed(self.lesson_id)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                found = self.pubsub.get_message(timeout=left)
            except (OSError, RedisError) as exc:  # the follower's browser reconnects and subscribes again
                log.warning("lost the Redis connection following %s: %s", self.channel, exc)
                self.close()
                raise Closed(self.lesson_id) from exc
            if found is None or found.get("type") != "message":
                continue
            try:
                return json.loads(found["data"])
            except ValueError:
                log.warning("a message on %s is not JSON; skipped", self.channel)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.pubsub.close()  # its own connection: closing it ends the subscription on the server


class RedisHub:
    """Redis pub/sub: every API process publishes to and follows the same channels."""

    def __init__(self, url: str, publish_timeout: float = 1.0, followers: int = 250) -> None:
        self.url = url
        # The followers' pub/sub connections: a Redis that stalls fails a new follower (503) in seconds, not minutes.
        # Each follower holds a pub/sub connection of this pool for its stream's life: the pool holds as many as the
        # process's stream cap (redis-py's default, 100, refused the 101st follower "Too many connections").
        self.client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5, retry=Retry(NoBackoff(), 1),
                                           max_connections=followers + 8)
        # Publishing happens inside the request that stored a change: bounded waits (redis-py's defaults, 5 s
        # timeouts and 10 retries, would let a stalled Redis hold a command's answer for a minute); one retry
        # still replaces a pooled connection Redis dropped when it restarted.
        self.publisher = redis.Redis.from_url(url, socket_connect_timeout=publish_timeout, socket_timeout=publish_timeout,
                                              retry=Retry(NoBackoff(), 1))
        self._paused_until = 0.0

    def publish(self, lesson_id: str, message: dict[str, Any]) -> None:
        """Raises Unavailable within PUBLISH_PAUSE of a failed publish (without asking Redis), else RedisError."""
        if time.monotonic() < self._paused_until:
            raise Unavailable("the live channel (Redis) failed a moment ago; this message was not sent")
        try:
            self.publisher.publish(channel_for(lesson_id), json.dumps(message, separators=(",", ":")))
        except (OSError, RedisError):
            self._paused_until = time.monotonic() + PUBLISH_PAUSE
            raise

    def subscribe(self, lesson_id: str) -> RedisSubscription:
        return RedisSubscription(self.client, str(lesson_id))

    def close(self) -> None:
        self.client.close()
        self.publisher.close()


def _iterate(subscription: Subscription, timeout: float = PING_SECONDS) -> Iterator[dict[str, Any] | None]:
    """Messages, and None after each `timeout` seconds without one, until the subscription is closed."""
    while True:
        try:
            yield subscription.next_message(timeout)
        except Closed:
            return


def hub_for(redis_url: str | None, followers: int = 250) -> Hub:
    """RedisHub when REDIS_URL is set (several processes), else the in-process one; `followers`: the stream cap."""
    return RedisHub(redis_url, followers=followers) if redis_url else InProcessHub()


# ---- how many streams one process holds -----------------------------------------------------------------


class Crowded(Exception):  # noqa: N818  (named for what happened)
    """A new stream would pass a cap: 429 (this client's) or 503 (the process's), with Retry-After."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class StreamCaps:
    """How many live streams this process holds, in all and per client address (CRONACA_LIVE_STREAMS,
    CRONACA_LIVE_STREAMS_PER_CLIENT, docs/deployment.md). Each open stream holds a server thread for its whole
    life: the total cap keeps threads free for every other request (gunicorn's pool is sized above it,
    api/gunicorn_conf.py); the per-client cap keeps one address from taking them all."""

    def __init__(self, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self._lock = threading.Lock()
        self._by_client: dict[str, int] = {}
        self._open = 0

    @property
    def open(self) -> int:
        return self._open

    def admit(self, client: str) -> Callable[[], None]:
        """Count one more stream of `client`, or raise Crowded; the answer lets it go (once, however often called)."""
        with self._lock:
            if self._by_client.get(client, 0) >= self.per_client:
                raise Crowded(429, f"this address follows {self.per_client} live streams already "
                                   "(CRONACA_LIVE_STREAMS_PER_CLIENT); close one, or retry after Retry-After seconds")
            if self._open >= self.total:
                raise Crowded(503, f"this server holds {self.total} live streams already (CRONACA_LIVE_STREAMS); "
                                   "retry after Retry-After seconds")
            self._by_client[client] = self._by_client.get(client, 0) + 1
            self._open += 1
        released = threading.Event()

        def release() -> None:
            with self._lock:
                if released.is_set():
                    return
                released.set()
                self._open -= 1
                left = self._by_client[client] - 1
                if left:
                    self._by_client[client] = left
                else:
                    del self._by_client[client]

        return release


def crowded(exc: Crowded) -> Any:
    """The problem+json answer of a refused stream, with Retry-After (EventSource itself retries after `retry:`)."""
    answer = problem(exc.status, http.HTTPStatus(exc.status).phrase, exc.detail)
    answer.headers["Retry-After"] = str(CROWDED_RETRY_SECONDS)
    return answer


def admitted(caps: StreamCaps, client: str, open_stream: Callable[[], Any]) -> Any:
    """`open_stream()`'s answer if `client` may open one more stream, else 429/503. The stream counts until the
    server closes its answer (the client left, or it ended); an answer that is not a stream (204, 404, 503) at once."""
    try:
        release = caps.admit(client)
    except Crowded as exc:
        return crowded(exc)
    try:
        answer = open_stream()
    except BaseException:
        release()
        raise
    if getattr(answer, "mimetype", None) == SSE and getattr(answer, "status_code", None) == 200:
        answer.call_on_close(release)
    else:
        release()
    return answer


# ---- server-sent events ------------------------------------------------------------------------------


# ---- the HTTP side of a live stream (api/records.py, api/teaching.py) ----------------------------------------

SSE = "text/event-stream"
PING_CONFIG = "CRONACA_SSE_PING"  # app config: seconds between heartbeats on a quiet stream (tests make it short)
LIFETIME_CONFIG = "CRONACA_SSE_LIFETIME"  # app config: seconds a record follower's stream lasts before it reconnects


def subscribe_then_read(hub: Hub, topic: str, read: Callable[[], Any]) -> tuple[Subscription, Any]:
    """Subscribe first, then read what the follower is told at once: nothing published in between is lost.
    Raises Unavailable (the hub cannot be reached); a failed read lets the subscription go."""
    subscription = hub.subscribe(topic)
    try:
        return subscription, read()
    except BaseException:
        subscription.close()
        raise


def unavailable(exc: Unavailable, meanwhile: str) -> Any:
    """503 with Retry-After: the live channel is down; `meanwhile` says what the page does until it is back."""
    answer = problem(503, "Service Unavailable", f"{exc}; {meanwhile}")
    answer.headers["Retry-After"] = "2"
    return answer


def sse_response(events: Iterator[str]) -> Any:
    """The stream as an answer no cache or proxy holds back."""
    response = Response(stream_with_context(events), mimetype=SSE)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy must not hold events back
    return response


def sse_event(kind: str, data: Any, event_id: Any = None) -> str:
    """One event in the text/event-stream format; the data is one line of JSON (no newline can split it)."""
    head = f"event: {kind}\n"
    if event_id is not None:
        head += f"id: {event_id}\n"
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n"


def sse_stream(first: dict[str, Any], subscription: Subscription, ping: float = PING_SECONDS,
               on_close: Callable[[], None] | None = None) -> Iterator[str]:
    """The lesson first, then every message as it is published, a `: ping` comment when quiet.

    Ends when the subscription ends; when the client goes away the server's next write fails and
    closes this generator, which closes the subscription (no follower, no thread is left behind)."""
    try:
        yield "retry: 2000\n" + sse_event("lesson", first)
        while True:
            try:
                message = subscription.next_message(ping)
            except Closed:
                return
            if message is None:
                yield ": ping\n\n"
                continue
            yield sse_event(str(message.get("type", "message")), message, message.get("seq"))
    finally:
        subscription.close()
        if on_close is not None:
            on_close()


# ---- records (issue 16) ---------------------------------------------------------------------------------


def record_topic(record_id: Any) -> str:
    """A record's topic on the hub (Redis channel `cronaca:record:<id>`)."""
    return RECORD_TOPIC.format(record_id)


def record_state(version: int, steps: int, finished: bool) -> dict[str, Any]:
    """What a record's followers are told: public facts only (the summary says them to anyone), never an
    event's content or a token."""
    return {"type": "record", "version": int(version), "steps": int(steps), "finished": bool(finished)}


def announce(hub: Hub, record_id: Any, state: dict[str, Any]) -> bool:
    """Tell the record's followers (any process's, through Redis) its new state. Best effort: the command was
    stored, so a live channel that is down costs followers a moment (they reconnect, or their page polls), never
    the command's answer. False when it was not sent."""
    try:
        hub.publish(record_topic(record_id), state)
    except (Unavailable, OSError, RedisError) as exc:
        log.warning("record %s: its followers were not told of version %s: %s", record_id, state.get("version"),
                    type(exc).__name__)
        return False
    return True


def record_stream(current: dict[str, Any], subscription: Subscription, last_seen: int | None,
                  ping: float = PING_SECONDS, lifetime: float = LIFETIME_SECONDS) -> Iterator[str]:
    """A record's server-sent events: `retry:`, its state at once unless the follower's Last-Event-ID is already
    that version, then each newer version as announced (`id:` the version; older or repeated ones, from commands
    that raced, are skipped), a `: ping` comment when quiet. Ends after the finishing version, when the
    subscription ends, or after `lifetime` seconds (less up to a tenth, so followers do not all reconnect at
    once); the follower reconnects with its Last-Event-ID and misses nothing but the events in between, which
    the state it then gets covers."""
    deadline = time.monotonic() + lifetime * random.uniform(0.9, 1.0)
    try:
        sent = last_seen if last_seen is not None else -1
        head = f"retry: {RETRY_MS}\n"
        if current["version"] > sent:  # new, or behind: the current version at once
            sent = current["version"]
            yield head + sse_event("record", current, sent)
        else:
            yield head + ": up to date\n\n"
        if current["finished"]:
            return
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                yield ": reconnect\n\n"
                return
            try:
                message = subscription.next_message(min(ping, left))
            except Closed:
                return
            if message is None:
                if deadline - time.monotonic() > 0:
                    yield ": ping\n\n"
                continue
            version = message.get("version")
            if not isinstance(version, int) or version <= sent:
                continue
            sent = version
            state = record_state(version, message.get("steps", 0), message.get("finished", False))
            yield sse_event("record", state, version)
            if state["finished"]:
                return
    finally:
        subscription.close()
