"""The Procfile's `api` line with its defaults (2 gunicorn workers) on the suite's own PostgreSQL and Redis, under
200 open live streams and 50 slowloris clients at once (issue 28, tests/crowds.py): /healthz and commands p99
<= 200 ms, every stream hears each command (through Redis, whichever worker holds it), 429 + Retry-After beyond
the per-address cap, every slow client cut, and the process as fast once they left. Loads only to 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.crowds import Timings, hold_under_attack, timed
from tests.faults.conftest import OwnPostgres, OwnRedis
from tests.faults.harness import Deployment
from tests.service.conftest import LONG_TOY, free_port

pytestmark = [pytest.mark.faults, pytest.mark.alone]  # a latency measure: no test beside it (tests/conftest.py)


def test_the_api_line_holds_200_streams_and_50_slow_clients(own_postgres: OwnPostgres, tmp_path_factory:
                                                           pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("crowds")
    own_postgres.fresh_database()
    (folder / "redis").mkdir()
    redis = OwnRedis(free_port(), folder / "redis")
    redis.start()
    env = {**own_postgres.env(), "REDIS_URL": redis.url, "CRONACA_LIVE_STREAMS_PER_CLIENT": "10",
           "CRONACA_HEADER_TIMEOUT": "2", "CRONACA_BODY_TIMEOUT": "3"}
    deploy = Deployment(env, folder / "deploy", network="loopback")
    try:
        deploy.upgrade()
        api = deploy.start("api", timeout=60)
        made = timed(api.port or 0, "POST", "/api/records", Timings(),
                     {"title": "toy", "seats": ["ann", "bob"], "edition_file": LONG_TOY.format(target=60)})
        hold_under_attack(api.port or 0, made["id"], [s["token"] for s in made["seats"]], 200, 10, 50, workers=2)
    finally:
        deploy.stop()
        redis.stop()
