"""WSGI entry point for gunicorn: `gunicorn 'api.wsgi:app'` (configured by environment variables)."""

from api.app import create_app

app = create_app()
