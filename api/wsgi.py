"""WSGI entry point for gunicorn: `gunicorn 'api.wsgi:app'` (configured by environment variables).

A setting gunicorn's worker cannot start with (a weak CRONACA_OPERATOR_KEY, a limit that is not a number) is said
in one sentence on standard error, and the worker exits with gunicorn's "App failed to load" code (4), which stops
the master instead of starting worker after worker on the same settings."""

import sys

from api.app import create_app
from domain.records.settings import Settings

APP_LOAD_ERROR = 4  # gunicorn.arbiter.Arbiter.APP_LOAD_ERROR

try:
    settings = Settings.from_env()
except ValueError as exc:
    print(f"cronaca: {exc}", file=sys.stderr, flush=True)
    raise SystemExit(APP_LOAD_ERROR) from exc

app = create_app(settings)
