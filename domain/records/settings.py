"""The service's configuration from environment variables (docs/deployment.md lists them all).

Shared by every process (API, worker, relay), so it lives beside the records application
rather than in `api` (nothing imports `api`).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from domain import catalog

DEFAULT_SQLITE = "var/cronaca.sqlite3"
DEFAULT_MAX_ATTEMPTS = 5  # queued this often without a verdict, an import is concluded as rejected
DEFAULT_STATEMENT_TIMEOUT = 5.0  # seconds any one PostgreSQL statement may run
DEFAULT_LOCK_TIMEOUT = 2.0  # seconds a PostgreSQL statement may wait for a lock (the event table's, say)
BOUNDED_POSTGRES = "domain.records.store.postgres:PostgresStore"


@dataclass(frozen=True)
class Limits:
    """What one record file may claim, checked at submit before anything is stored: a file
    beyond them would hold the event store (and its table lock) for as long as it takes to
    write. The environment variable of each is in `ENV` (docs/api.md, Limits)."""

    max_bytes: int = 4 * 1024 * 1024
    max_seats: int = 16
    max_entries: int = 20_000
    max_depth: int = 32
    # A notation file is parsed and checked by the rules before anything is decided: about 7 ms
    # per kilobyte (docs/benchmarks.md), so its own, smaller bound keeps an upload's check within
    # seconds; the longest game written out in notation is about 40 KB.
    max_notation_bytes: int = 256 * 1024

    ENV = {  # noqa: RUF012  (a class constant, not a field: no annotation)
        "max_bytes": "CRONACA_MAX_UPLOAD_BYTES",
        "max_seats": "CRONACA_MAX_SEATS",
        "max_entries": "CRONACA_MAX_ENTRIES",
        "max_depth": "CRONACA_MAX_DEPTH",
        "max_notation_bytes": "CRONACA_MAX_NOTATION_BYTES",
    }

    def notation_size(self, text: str) -> str | None:
        """Why a notation text is too large for this service, or None when it is not."""
        size = len(text.encode("utf-8", "surrogatepass"))
        if size <= self.max_notation_bytes:
            return None
        return (f"the notation file is {size:,} bytes; this service checks at most {self.max_notation_bytes:,} "
                f"(CRONACA_MAX_NOTATION_BYTES): a whole game written out is about 40,000")

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Limits:
        found = {name: positive(env.get(var), getattr(cls, name), var) for name, var in cls.ENV.items()}
        return cls(**found)


@dataclass(frozen=True)
class Throttle:
    """The budget of wrong credentials (seat tokens, annotator, arbiter, teacher and operator keys) before the
    service answers 429 (api/throttle.py; docs/deployment.md, Wrong credentials). The variable of each is in `ENV`."""

    window: float = 60.0  # seconds a count of failures lasts, from the first of them
    per_client: int = 20  # wrong credentials one address may send in a window (all targets together)
    per_target: int = 100  # wrong credentials one record, import, lesson (or the operator key) takes in a window
    proxies: int = 0  # trusted proxies in front: 0, REMOTE_ADDR is the client; n, the n-th X-Forwarded-For from the right
    prefix: str = "cronaca:throttle:"  # the Redis keys' prefix (the counters are shared by every API process)

    ENV = {  # noqa: RUF012  (a class constant, not a field: no annotation)
        "window": "CRONACA_AUTH_WINDOW",
        "per_client": "CRONACA_AUTH_FAILURES_PER_CLIENT",
        "per_target": "CRONACA_AUTH_FAILURES_PER_TARGET",
        "proxies": "CRONACA_TRUSTED_PROXIES",
        "prefix": "CRONACA_THROTTLE_PREFIX",
    }

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Throttle:
        proxies = env.get(cls.ENV["proxies"]) or "0"
        if not proxies.strip().isdigit():
            raise ValueError(f"CRONACA_TRUSTED_PROXIES must be a whole number (0 or more), not {proxies!r}")
        return cls(window=seconds(env.get(cls.ENV["window"]), cls.window, cls.ENV["window"]),
                   per_client=positive(env.get(cls.ENV["per_client"]), cls.per_client, cls.ENV["per_client"]),
                   per_target=positive(env.get(cls.ENV["per_target"]), cls.per_target, cls.ENV["per_target"]),
                   proxies=int(proxies), prefix=env.get(cls.ENV["prefix"]) or cls.prefix)


def positive(value: str | None, default: int, name: str) -> int:
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {value!r}") from None
    if number < 1:
        raise ValueError(f"{name} must be at least 1, not {number}")
    return number


def seconds(value: str | None, default: float, name: str) -> float:
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {value!r}") from None
    if not number > 0:
        raise ValueError(f"{name} must be more than 0 seconds, not {value}")
    return number


DEFAULT_LIVE_STREAMS = 250  # per API process; gunicorn's thread pool is this plus STREAM_FREE_THREADS
DEFAULT_LIVE_STREAMS_PER_CLIENT = 50  # a class behind one school's address follows one lesson


def live_streams(env: Mapping[str, str]) -> int:
    """How many live streams (server-sent events) one API process holds at once (CRONACA_LIVE_STREAMS)."""
    return positive(env.get("CRONACA_LIVE_STREAMS"), DEFAULT_LIVE_STREAMS, "CRONACA_LIVE_STREAMS")


def max_attempts(env: Mapping[str, str]) -> int:
    """CRONACA_MAX_ATTEMPTS: how often the relay queues one import before it concludes it as rejected."""
    return positive(env.get("CRONACA_MAX_ATTEMPTS"), DEFAULT_MAX_ATTEMPTS, "CRONACA_MAX_ATTEMPTS")


def db_timeouts(env: Mapping[str, str]) -> tuple[float, float]:
    """(statement, lock) timeouts in seconds for every PostgreSQL statement."""
    return (seconds(env.get("CRONACA_DB_STATEMENT_TIMEOUT"), DEFAULT_STATEMENT_TIMEOUT, "CRONACA_DB_STATEMENT_TIMEOUT"),
            seconds(env.get("CRONACA_DB_LOCK_TIMEOUT"), DEFAULT_LOCK_TIMEOUT, "CRONACA_DB_LOCK_TIMEOUT"))


MIN_OPERATOR_KEY = 32  # characters: the key guards the job queues, and a short one is guessed
MIN_OPERATOR_KEY_BITS = 80  # its characters' own spread (Shannon), times its length: a token_hex(16) has ~87 at least
LOG_FORMATS = ("json", "text")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAKE_A_KEY = "make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"


def key_bits(key: str) -> float:
    """How many bits of randomness a key's characters can hold at most, judged from the key alone: its length
    times the Shannon entropy of its characters' frequencies ("aaaa…" holds 0, "abab…" 1 a character)."""
    counts = Counter(key)
    return -sum(n * math.log2(n / len(key)) for n in counts.values())


def repeats(key: str) -> bool:
    """Whether the key is a shorter part written out again and again ("0123456789abcdef" twice)."""
    return any(len(key) % size == 0 and key == key[:size] * (len(key) // size) for size in range(1, len(key) // 2 + 1))


def operator_key(env: Mapping[str, str]) -> str | None:
    """CRONACA_OPERATOR_KEY: the key to the operators' pages (/ops); unset, they do not exist (404).

    A weak key is refused when the process starts (the message says what is needed): whoever guesses it holds
    the job queues, and the failure budget (api/throttle.py) only slows a guesser, it does not stop one."""
    key = (env.get("CRONACA_OPERATOR_KEY") or "").strip()
    if not key:
        return None
    if len(key) < MIN_OPERATOR_KEY:
        raise ValueError(f"CRONACA_OPERATOR_KEY must be at least {MIN_OPERATOR_KEY} random characters (it is "
                         f"{len(key)}), about 128 bits; {MAKE_A_KEY}")
    if repeats(key) or key_bits(key) < MIN_OPERATOR_KEY_BITS:
        raise ValueError("CRONACA_OPERATOR_KEY must be random: this one repeats characters or a part of itself, so it "
                         "is guessed far sooner than its length says (a random key of 32 characters holds about 128 "
                         f"bits); {MAKE_A_KEY}")
    return key


def public_url(env: Mapping[str, str]) -> str:
    """CRONACA_PUBLIC_URL: the address readers reach the service at (https://cronaca.example.org, or with a path
    prefix), without its last slash; "" when unset. The links of a page's preview (api/viewer.py `card`) are built
    from it rather than from the request's Host header, which any client may write: a preview a chat keeps must not
    point where a forged header said. A value that is no http(s) address of a host is refused at start."""
    raw = (env.get("CRONACA_PUBLIC_URL") or "").strip()
    if not raw:
        return ""
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment or parts.username:
        raise ValueError(f"CRONACA_PUBLIC_URL must be the http(s) address readers reach the service at, such as "
                         f"https://cronaca.example.org, with neither query nor fragment; not {raw!r}")
    return raw.rstrip("/")


def log_format(env: Mapping[str, str], default: str = "json") -> str:
    """CRONACA_LOG_FORMAT: json (one object per line, for a log collector) or text (for a person's console)."""
    found = (env.get("CRONACA_LOG_FORMAT") or default).strip().lower()
    if found not in LOG_FORMATS:
        raise ValueError(f"CRONACA_LOG_FORMAT must be json or text, not {found!r}")
    return found


def log_level(env: Mapping[str, str], default: str = "INFO") -> str:
    """CRONACA_LOG_LEVEL: the least severe level written (DEBUG, INFO, WARNING, ERROR, CRITICAL)."""
    found = (env.get("CRONACA_LOG_LEVEL") or default).strip().upper()
    if found not in LOG_LEVELS:
        raise ValueError(f"CRONACA_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {found!r}")
    return found


def job_retries(env: Mapping[str, str]) -> int:
    """CRONACA_JOB_RETRIES: how often RQ runs a job again after a transient fault (the store or Redis
    unreachable or busy), waiting RETRY_BACKOFF seconds before each; 0: never (a rule verdict never is)."""
    value = env.get("CRONACA_JOB_RETRIES")
    if value is None or value == "":
        return DEFAULT_JOB_RETRIES
    if not value.strip().isdigit():
        raise ValueError(f"CRONACA_JOB_RETRIES must be a whole number (0 or more), not {value!r}")
    return int(value)


def worker_metrics_port(env: Mapping[str, str]) -> int | None:
    """CRONACA_WORKER_METRICS_PORT: a worker serves its job metrics on this port (when no PROMETHEUS_MULTIPROC_DIR)."""
    value = env.get("CRONACA_WORKER_METRICS_PORT")
    return None if value is None or value == "" else positive(value, 0, "CRONACA_WORKER_METRICS_PORT")


def worker_metrics_addr(env: Mapping[str, str]) -> str:
    """CRONACA_WORKER_METRICS_ADDR: the address a worker's metrics port listens on (another host's scraper: 0.0.0.0)."""
    return env.get("CRONACA_WORKER_METRICS_ADDR") or "127.0.0.1"


DEFAULT_JOB_RETRIES = 3
RETRY_BACKOFF = [1, 4, 15]  # seconds before RQ's 1st, 2nd, 3rd... retry of a job (the last repeats)


def keep_timings(env: Mapping[str, str]) -> tuple[float, float, float]:
    """`cronaca keep` (api/keep.py): (longest wait between restarts, a run long enough to start the backoff over,
    how long a stopped command may take before SIGKILL), in seconds."""
    return (seconds(env.get("CRONACA_KEEP_MAX_BACKOFF"), 30.0, "CRONACA_KEEP_MAX_BACKOFF"),
            seconds(env.get("CRONACA_KEEP_RESET"), 60.0, "CRONACA_KEEP_RESET"),
            seconds(env.get("CRONACA_KEEP_STOP_WAIT"), 10.0, "CRONACA_KEEP_STOP_WAIT"))


def retries_queue_of(queue: str) -> str:
    """The retries queue of an imports queue when CRONACA_RETRIES_QUEUE does not name one."""
    return f"{queue}-retries"


@dataclass
class Settings:
    redis_url: str | None = None
    queue: str = "cronaca-imports"
    retries_queue: str = ""  # CRONACA_RETRIES_QUEUE: imports queued again (a dead worker's), served first; "": <queue>-retries
    checks_queue: str = "cronaca-checks"  # CRONACA_CHECKS_QUEUE: re-verifying stored records (workers/bulk.py)
    renders_queue: str = "cronaca-renders"  # CRONACA_RENDERS_QUEUE: writing finished records' files (workers/bulk.py)
    analyses_queue: str = "cronaca-analyses"  # CRONACA_ANALYSES_QUEUE: finished records' analyses (domain/records/analyses.py)
    job_retries: int = DEFAULT_JOB_RETRIES
    max_upload: int = 4 * 1024 * 1024
    requeue_after: float = 30.0
    relay_interval: float = 1.0
    store: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT
    operator_key: str | None = field(default=None, repr=False)  # CRONACA_OPERATOR_KEY: /ops (api/operators.py)
    throttle: Throttle = field(default_factory=Throttle)  # CRONACA_AUTH_*: wrong credentials' budget (api/throttle.py)
    live_streams: int = DEFAULT_LIVE_STREAMS  # CRONACA_LIVE_STREAMS: live streams one API process holds (api/live.py)
    live_streams_per_client: int = DEFAULT_LIVE_STREAMS_PER_CLIENT  # CRONACA_LIVE_STREAMS_PER_CLIENT: of one address
    public_url: str = ""  # CRONACA_PUBLIC_URL: where readers reach the service (link previews); "": the request's host

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        plug_in_titles(env.get("CRONACA_EXTRA_TITLES", ""))
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            queue=env.get("CRONACA_QUEUE", "cronaca-imports"),
            retries_queue=env.get("CRONACA_RETRIES_QUEUE") or "",
            checks_queue=env.get("CRONACA_CHECKS_QUEUE") or "cronaca-checks",
            renders_queue=env.get("CRONACA_RENDERS_QUEUE") or "cronaca-renders",
            analyses_queue=env.get("CRONACA_ANALYSES_QUEUE") or "cronaca-analyses",
            job_retries=job_retries(env),
            max_upload=int(env.get("CRONACA_MAX_UPLOAD_BYTES", 4 * 1024 * 1024)),
            requeue_after=float(env.get("CRONACA_REQUEUE_AFTER", 30)),
            relay_interval=float(env.get("CRONACA_RELAY_INTERVAL", 1)),
            store=store_env(env),
            limits=Limits.from_env(env),
            max_attempts=max_attempts(env),
            statement_timeout=db_timeouts(env)[0],
            lock_timeout=db_timeouts(env)[1],
            operator_key=operator_key(env),
            throttle=Throttle.from_env(env),
            live_streams=live_streams(env),
            live_streams_per_client=positive(env.get("CRONACA_LIVE_STREAMS_PER_CLIENT"),
                                             DEFAULT_LIVE_STREAMS_PER_CLIENT, "CRONACA_LIVE_STREAMS_PER_CLIENT"),
            public_url=public_url(env),
        )

    def __post_init__(self) -> None:
        self.retries_queue = self.retries_queue or retries_queue_of(self.queue)

    @property
    def queues(self) -> dict[str, str]:
        """The queues by role in the order `cronaca worker` serves them: imports queued again first (in the order
        they were queued again: a dead worker's import waits behind no new upload and no later retry), then
        new imports, checks, renders, then analyses (a minute's work each, never ahead of an upload)."""
        return {"retries": self.retries_queue, "imports": self.queue, "checks": self.checks_queue,
                "renders": self.renders_queue, "analyses": self.analyses_queue}

    @property
    def heartbeat(self) -> float:
        """Seconds between a worker's heartbeats: a sixth of CRONACA_REQUEUE_AFTER, within [0.2, 5]."""
        return min(5.0, max(0.2, self.requeue_after / 6))

    @property
    def dead_after(self) -> float:
        """Seconds without a heartbeat after which a worker counts as dead and its started jobs as lost:
        half of CRONACA_REQUEUE_AFTER (at least three heartbeats), so a killed import is queued again
        within CRONACA_REQUEUE_AFTER of its worker's death."""
        return max(3 * self.heartbeat, self.requeue_after / 2)


def store_env(env: dict[str, str]) -> dict[str, str]:
    """The event store's settings: the eventsourcing library's own variables, SQLite by default.

    The records application reads its limits (CRONACA_MAX_*, CRONACA_DB_*) from the same
    mapping. PostgreSQL is eventsourcing's own store with every statement bounded in time
    (domain.records.store.postgres), so one slow write can never stop every other.
    """
    keys = [k for k in env if k.startswith(("PERSISTENCE_MODULE", "SQLITE_", "POSTGRES_", "RECORDS_", "COMPRESSOR_", "CIPHER_",
                                            "CRONACA_MAX_", "CRONACA_DB_"))]
    out = {k: env[k] for k in keys}
    module = out.get("PERSISTENCE_MODULE") or out.get("RECORDS_PERSISTENCE_MODULE") or "eventsourcing.sqlite"
    if module == "eventsourcing.postgres":
        module = BOUNDED_POSTGRES
        out.pop("RECORDS_PERSISTENCE_MODULE", None)  # the library would read it before ours
        db_timeouts(env)  # a wrong value is refused at start, not at the first write
    out["PERSISTENCE_MODULE"] = module
    if module == BOUNDED_POSTGRES and "RECORDS_CREATE_TABLE" not in out:
        # Processes never create tables on PostgreSQL (several at once raced): `cronaca db upgrade` does (api/schema.py).
        out["CREATE_TABLE"] = env.get("CREATE_TABLE") or "false"
    if module == "eventsourcing.sqlite":
        db = out.setdefault("SQLITE_DBNAME", DEFAULT_SQLITE)
        if db != ":memory:" and not db.startswith("file:"):
            Path(db).parent.mkdir(parents=True, exist_ok=True)
            out.setdefault("SQLITE_LOCK_TIMEOUT", "10")
    return out


def plug_in_titles(spec: str) -> None:
    """CRONACA_EXTRA_TITLES="id=package,...": offer a title package the catalog does not list
    (a new title being developed, or the kernel's toy game in tests)."""
    for item in filter(None, (part.strip() for part in spec.split(","))):
        title, _, module = item.partition("=")
        if title and module:
            catalog.TITLES.setdefault(title.strip(), module.strip())
