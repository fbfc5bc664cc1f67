"""/ops: the operators' pages, rq-dashboard at /ops/rq, behind the operator key (CRONACA_OPERATOR_KEY).

Without the key set nothing is mounted and /ops/* is the service's own 404. With it, every /ops request needs
either `Authorization: Bearer <key>` (scripts, curl) or the cookie a login form sets (a browser: rq-dashboard is a
page that polls JSON, which cannot send a header). No credentials: 401 with the login form; a wrong key: 403.
Keys are compared in constant time (hmac.compare_digest), and each wrong one (by header or the form) is counted by
api/throttle.py: past the budget the asker gets 429 with Retry-After before its key is looked at. The cookie holds no key: an expiry and an HMAC of it
under the key (so changing the key signs everyone out), HttpOnly, SameSite=Strict (no other site's page can make
the browser send it, which is what keeps the dashboard's POST actions from being forged), Path=/ops, Secure
behind HTTPS.

rq-dashboard is a Flask blueprint; it runs here in a small Flask app of its own, dispatched under /ops, so the
service's body guard, problem answers and strict Content-Security-Policy stay as they are for every other page,
and the dashboard gets the relaxed policy it needs (api.security.OPS_PAGE_SOURCES) on /ops only.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import os
import time
from typing import Any

import rq_dashboard
from flask import Flask, Response, redirect, request
from rq_dashboard.web import setup_rq_connection
from werkzeug.middleware.dispatcher import DispatcherMiddleware

from api.security import OPS_PAGE_SOURCES
from api.throttle import OPERATOR, Guard, too_many

COOKIE = "cronaca_ops"
SESSION_SECONDS = 8 * 3600
REALM = 'Bearer realm="cronaca operators"'

LOGIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cronaca operators</title>
<style>body{{font:16px system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem}}
input{{font:inherit;width:100%;margin:.5rem 0;padding:.4rem}} .error{{color:#a00}}</style></head>
<body><h1>Cronaca operators</h1>
<p>The job queues' dashboard. Enter the operator key (<code>CRONACA_OPERATOR_KEY</code>).</p>
{error}
<form method="post" action="{action}">
<label for="key">Operator key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<input type="hidden" name="next" value="{next}">
<button type="submit">Sign in</button>
</form></body></html>
"""


def _same(given: str, key: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), key.encode("utf-8"))


def _signature(key: str, expires: int) -> str:
    return hmac.new(key.encode(), f"cronaca-ops:{expires}".encode(), hashlib.sha256).hexdigest()


def session_cookie(key: str, now: float | None = None) -> str:
    expires = int((now if now is not None else time.time()) + SESSION_SECONDS)
    return f"{expires}.{_signature(key, expires)}"


def valid_session(value: str | None, key: str, now: float | None = None) -> bool:
    if not value:
        return False
    expires, _, signature = value.partition(".")
    if not expires.isdigit() or int(expires) < (now if now is not None else time.time()):
        return False
    return hmac.compare_digest(signature.encode(), _signature(key, int(expires)).encode())


def _headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = OPS_PAGE_SOURCES
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "no-store"
    return response


def _login_page(status: int, error: str = "", retry_after: int | None = None) -> Response:
    root = request.script_root or ""
    wanted = request.form.get("next") or (request.full_path if request.path != "/login" else "") or "/rq/"
    if not wanted.startswith("/") or wanted.startswith("//"):
        wanted = "/rq/"
    body = LOGIN_PAGE.format(error=f'<p class="error">{html.escape(error)}</p>' if error else "",
                             action=html.escape(f"{root}/login"), next=html.escape(wanted.rstrip("?")))
    response = Response(body, status=status, mimetype="text/html")
    if status == 401:
        response.headers["WWW-Authenticate"] = REALM
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


def _refused_form(retry_after: int) -> Response:
    return _login_page(429, f"Too many wrong keys were sent from this address; try again in {retry_after} s.",
                       retry_after)


def build(key: str, redis_url: str | None, throttle: Guard) -> Flask:
    """The /ops app: login, logout and rq-dashboard under /rq, every request checked against the key; the
    wrong keys are counted against their sender and against the operator key itself (one for the service)."""
    static = os.path.join(os.path.dirname(rq_dashboard.__file__), "static")
    ops = Flask(__name__, static_folder=static, static_url_path="/static")  # rq-dashboard's favicon asks for it
    ops.config.update(RQ_DASHBOARD_REDIS_URL=redis_url, RQ_DASHBOARD_POLL_INTERVAL=2500)

    @ops.before_request
    def guard() -> Any:
        if request.path == "/login":
            return None
        given = request.headers.get("Authorization")
        if given:
            wait = throttle.blocked(request.environ)
            if wait is not None:
                return _headers(too_many(wait))
            scheme, _, value = given.partition(" ")
            if scheme.lower() == "bearer" and _same(value.strip(), key):
                return None
            verdict = throttle.failed(request.environ, OPERATOR)
            if verdict.limited:
                return _headers(too_many(verdict.retry_after))
            return _headers(Response("the operator key is wrong\n", status=403, mimetype="text/plain"))
        if valid_session(request.cookies.get(COOKIE), key):
            return None
        return _login_page(401)

    @ops.route("/login", methods=["GET", "POST"])
    def login() -> Any:
        if request.method == "GET":
            return _login_page(200)
        wait = throttle.blocked(request.environ)
        if wait is not None:
            return _refused_form(wait)
        if not _same(request.form.get("key", ""), key):
            verdict = throttle.failed(request.environ, OPERATOR)
            if verdict.limited:
                return _refused_form(verdict.retry_after)
            return _login_page(403, "That is not the operator key.")
        root = request.script_root or ""
        wanted = request.form.get("next") or "/rq/"
        if not wanted.startswith("/") or wanted.startswith("//"):
            wanted = "/rq/"
        response = redirect(f"{root}{wanted}", code=303)
        response.set_cookie(COOKIE, session_cookie(key), max_age=SESSION_SECONDS, path=root or "/",
                            secure=request.is_secure, httponly=True, samesite="Strict")
        return response

    @ops.route("/logout", methods=["POST"])
    def logout() -> Any:
        root = request.script_root or ""
        response = redirect(f"{root}/login", code=303)
        response.delete_cookie(COOKIE, path=root or "/")
        return response

    @ops.route("/")
    def home() -> Any:
        return redirect(f"{request.script_root}/rq/", code=303)

    if redis_url:
        ops.register_blueprint(rq_dashboard.blueprint, url_prefix="/rq")
        setup_rq_connection(ops)
    else:
        @ops.route("/rq/")
        def no_queues() -> Any:
            return Response("no REDIS_URL: jobs run in this process, there are no queues to show\n", status=503,
                            mimetype="text/plain")

    ops.after_request(_headers)
    return ops


def mount(app: Flask, key: str | None, redis_url: str | None, guard: Guard) -> None:
    """Dispatch /ops to the operators' app when a key is set; without one /ops stays unknown (404)."""
    if not key:
        return

    app.extensions["cronaca.operators"] = ops = build(key, redis_url, guard)
    app.wsgi_app = DispatcherMiddleware(app.wsgi_app, {"/ops": ops})  # type: ignore[method-assign]
