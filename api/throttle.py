"""Wrong credentials, throttled: every seat token, annotator, arbiter and teacher key and the operator key that
opens nothing is counted, and past a budget the service answers 429 with Retry-After (docs/deployment.md,
Wrong credentials; docs/security.md).

Why this design:

- Failures only. A request that carries the right credential is never counted, and nothing without one is
  throttled: a viewer stepping through a game, or a seat playing, never meets the budget.
- By client first. Each address (an IPv6 one by its /64, what one host is usually given) may send
  CRONACA_AUTH_FAILURES_PER_CLIENT wrong credentials in a window of CRONACA_AUTH_WINDOW seconds; past that
  every request of it that carries a credential is refused with 429 *before* the credential is looked at, so a
  blocked guesser cannot tell a hit from a miss, and the 429 does not depend on whether the record exists.
- Then by target, higher. A record (import, lesson, variation) or the operator key takes
  CRONACA_AUTH_FAILURES_PER_TARGET wrong credentials a window from every address together; past that it is
  under attack, and each further wrong credential sent to it spends its sender's whole budget at once (that
  address is blocked for a window). The right credential still opens the target: the honest seats of a record
  being guessed at keep playing from their own addresses, only guessers are locked out, one guess an address.
- A fixed window per counter (INCR, and PEXPIRE on the first failure): a guesser gets at most the budget per
  window from an address (20 a minute by default: one every three seconds), an honest person who mistypes a
  token a few times never sees it.
- Shared by every API process through Redis when REDIS_URL is set (one Lua script: the counts and their expiry
  change together); in this process's memory otherwise. A Redis that does not answer (within half a second)
  never refuses a request: each process then counts in its own memory until Redis answers again (asked again
  after PAUSE seconds), so the budget holds per process for that time, and a warning is logged.
- The client is REMOTE_ADDR, unless CRONACA_TRUSTED_PROXIES says how many proxies in front append to
  X-Forwarded-For (the n-th address from its right is the one the outermost trusted proxy saw); an
  X-Forwarded-For sent to a service that trusts no proxy is ignored, so nobody picks their own address.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from flask import Flask, Response, request
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from api.problems import problem, records_problem
from domain.records import WrongKey
from domain.records.settings import Settings, Throttle

log = logging.getLogger("cronaca.throttle")

PAUSE = 5.0  # seconds: after Redis failed, it is asked again this much later; this process counts alone meanwhile
REDIS_TIMEOUT = 0.5  # seconds one question to Redis may take before this process counts alone
TARGETS = ("record_id", "import_id", "lesson_id", "variation_id")  # the URL's part a credential is checked against
OPERATOR = "operator"  # the operator key's target: one key for the whole service
MAX_LOCAL = 100_000  # counters kept in memory before the expired ones are swept out

# KEYS: client, target. ARGV: window (ms), per-client budget, per-target budget.
# Returns {limited (0/1), ms until the client's count expires}.
FAIL = """
local t = redis.call('INCR', KEYS[2])
if t == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
if t > tonumber(ARGV[3]) then
  redis.call('SET', KEYS[1], tonumber(ARGV[2]) + 1, 'PX', ARGV[1])
  return {1, tonumber(ARGV[1])}
end
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
if c > tonumber(ARGV[2]) then return {1, ttl} end
return {0, ttl}
"""
# KEYS: client. ARGV: per-client budget. Returns the ms until the client may send a credential again, or -1 now.
BLOCKED = """
local c = redis.call('GET', KEYS[1])
if c and tonumber(c) > tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then return ttl end
  return 1
end
return -1
"""


@dataclass(frozen=True)
class Verdict:
    """What a wrong credential earns: refused as before (403), or 429 for `retry_after` seconds."""

    limited: bool
    retry_after: int


def _seconds(ms: float) -> int:
    return max(1, math.ceil(ms / 1000))


class LocalCounts:
    """The counters in this process's memory: the embedded default, and the stand-in while Redis is away."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._counts: dict[str, tuple[int, float]] = {}  # key -> (count, when it expires)
        self._lock = threading.Lock()

    def _get(self, key: str, now: float) -> tuple[int, float]:
        count, expires = self._counts.get(key, (0, 0.0))
        return (count, expires) if expires > now else (0, 0.0)

    def _incr(self, key: str, now: float, window: float) -> tuple[int, float]:
        count, expires = self._get(key, now)
        found = (count + 1, expires if count else now + window)
        self._counts[key] = found
        return found

    def blocked(self, client: str, budget: int) -> int | None:
        with self._lock:
            now = self.clock()
            count, expires = self._get(client, now)
            return _seconds((expires - now) * 1000) if count > budget else None

    def fail(self, client: str, target: str, limits: Throttle) -> Verdict:
        with self._lock:
            now = self.clock()
            if len(self._counts) > MAX_LOCAL:
                self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
            hits, _ = self._incr(target, now, limits.window)
            if hits > limits.per_target:
                self._counts[client] = (limits.per_client + 1, now + limits.window)
                return Verdict(True, _seconds(limits.window * 1000))
            count, expires = self._incr(client, now, limits.window)
            return Verdict(count > limits.per_client, _seconds((expires - now) * 1000))


class RedisCounts:
    """The counters in Redis, shared by every API process."""

    def __init__(self, url: str) -> None:

        self.client = redis.Redis.from_url(url, socket_connect_timeout=REDIS_TIMEOUT, socket_timeout=REDIS_TIMEOUT,
                                           retry=Retry(NoBackoff(), 1))
        self._fail = self.client.register_script(FAIL)
        self._blocked = self.client.register_script(BLOCKED)

    def blocked(self, client: str, budget: int) -> int | None:
        ms = int(self._blocked(keys=[client], args=[budget]))  # one round trip on every request with a credential
        return _seconds(ms) if ms > 0 else None

    def fail(self, client: str, target: str, limits: Throttle) -> Verdict:
        limited, ms = self._fail(keys=[client, target],
                                 args=[max(1, int(limits.window * 1000)), limits.per_client, limits.per_target])
        return Verdict(bool(limited), _seconds(ms))


class Guard:
    """The one place a wrong credential is counted and a client over its budget is refused."""

    def __init__(self, limits: Throttle, redis_url: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.local = LocalCounts(clock)
        self.shared = RedisCounts(redis_url) if redis_url else None
        self._away_until = 0.0

    @classmethod
    def from_settings(cls, settings: Settings) -> Guard:
        return cls(settings.throttle, settings.redis_url)

    def client(self, environ: dict[str, Any]) -> str:
        """The asking address (an IPv6 one by its /64), from X-Forwarded-For only behind trusted proxies."""
        found = environ.get("REMOTE_ADDR") or "unknown"
        if self.limits.proxies:
            forwarded = [part.strip() for part in (environ.get("HTTP_X_FORWARDED_FOR") or "").split(",") if part.strip()]
            if len(forwarded) >= self.limits.proxies:
                found = forwarded[-self.limits.proxies]
        try:
            address = ipaddress.ip_address(found)
        except ValueError:
            return found[:64]
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                return str(address.ipv4_mapped)
            return str(ipaddress.ip_network(f"{address}/64", strict=False))
        return str(address)

    def _counts(self) -> LocalCounts | RedisCounts:
        if self.shared is not None and self.clock() >= self._away_until:
            return self.shared
        return self.local

    def _ask(self, question: Callable[[LocalCounts | RedisCounts], Any]) -> Any:
        counts = self._counts()
        try:
            return question(counts)
        except (OSError, RedisError) as exc:
            self._away_until = self.clock() + PAUSE
            log.warning("Redis did not answer the throttle (%s); this process counts wrong credentials alone for "
                        "%.0f s", exc, PAUSE)
            return question(self.local)

    def blocked(self, environ: dict[str, Any]) -> int | None:
        """Seconds until this client may send a credential again, or None when it may now."""
        key = f"{self.limits.prefix}client:{self.client(environ)}"
        return self._ask(lambda counts: counts.blocked(key, self.limits.per_client))

    def failed(self, environ: dict[str, Any], target: str) -> Verdict:
        """Count a wrong credential against its sender and its target."""
        client = self.client(environ)
        keys = (f"{self.limits.prefix}client:{client}", f"{self.limits.prefix}target:{target}")
        verdict: Verdict = self._ask(lambda counts: counts.fail(*keys, self.limits))
        if verdict.limited:
            log.warning("wrong credentials: %s is refused for %d s (target %s)", client, verdict.retry_after, target)
        return verdict


def too_many(retry_after: int) -> Response:
    """The 429: the same words whichever budget was spent, whether or not the target exists."""
    answer = problem(429, "Too Many Requests", "too many wrong tokens or keys were sent from this address; try again "
                     f"in {retry_after} s (Retry-After). Nothing is counted against a request with the right one.")
    answer.headers["Retry-After"] = str(retry_after)
    return answer


def target_of(view_args: dict[str, Any] | None, endpoint: str | None) -> str:
    """What a credential was checked against: the record (import, lesson, variation) its URL names."""
    for name in TARGETS:
        if view_args and name in view_args:
            return f"{name.removesuffix('_id')}:{view_args[name]}"
    return f"endpoint:{endpoint}"


def install(app: Flask, guard: Guard) -> None:
    """Refuse a client over its budget before any view looks at its credential; count each WrongKey."""
    app.extensions["cronaca.throttle"] = guard

    def admit() -> Response | None:
        if "Authorization" not in request.headers:
            return None
        wait = guard.blocked(request.environ)
        return too_many(wait) if wait is not None else None

    def wrong_key(exc: WrongKey) -> Response:
        verdict = guard.failed(request.environ, target_of(request.view_args, request.endpoint))
        return too_many(verdict.retry_after) if verdict.limited else records_problem(exc)

    app.before_request(admit)
    app.register_error_handler(WrongKey, wrong_key)
