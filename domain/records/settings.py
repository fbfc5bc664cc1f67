"""The service's configuration from environment variables (docs/deployment.md lists them all).

Shared by every process (API, worker, relay), so it lives beside the records application
rather than in `api` (nothing imports `api`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_SQLITE = "var/cronaca.sqlite3"


@dataclass
class Settings:
    redis_url: str | None = None
    queue: str = "cronaca-imports"
    max_upload: int = 4 * 1024 * 1024
    requeue_after: float = 30.0
    relay_interval: float = 1.0
    store: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        plug_in_titles(env.get("CRONACA_EXTRA_TITLES", ""))
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            queue=env.get("CRONACA_QUEUE", "cronaca-imports"),
            max_upload=int(env.get("CRONACA_MAX_UPLOAD_BYTES", 4 * 1024 * 1024)),
            requeue_after=float(env.get("CRONACA_REQUEUE_AFTER", 30)),
            relay_interval=float(env.get("CRONACA_RELAY_INTERVAL", 1)),
            store=store_env(env),
        )


def store_env(env: dict[str, str]) -> dict[str, str]:
    """The event store's settings: the eventsourcing library's own variables, SQLite by default."""
    keys = [k for k in env if k.startswith(("PERSISTENCE_MODULE", "SQLITE_", "POSTGRES_", "RECORDS_", "COMPRESSOR_", "CIPHER_"))]
    out = {k: env[k] for k in keys}
    module = out.get("PERSISTENCE_MODULE") or out.get("RECORDS_PERSISTENCE_MODULE") or "eventsourcing.sqlite"
    out["PERSISTENCE_MODULE"] = module
    if module == "eventsourcing.sqlite":
        db = out.setdefault("SQLITE_DBNAME", DEFAULT_SQLITE)
        if db != ":memory:" and not db.startswith("file:"):
            Path(db).parent.mkdir(parents=True, exist_ok=True)
            out.setdefault("SQLITE_LOCK_TIMEOUT", "10")
    return out


def plug_in_titles(spec: str) -> None:
    """CRONACA_EXTRA_TITLES="id=package,...": offer a title package the catalog does not list
    (a new title being developed, or the kernel's toy game in tests)."""
    from domain import catalog

    for item in filter(None, (part.strip() for part in spec.split(","))):
        title, _, module = item.partition("=")
        if title and module:
            catalog.TITLES.setdefault(title.strip(), module.strip())
