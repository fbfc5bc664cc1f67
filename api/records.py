"""/api/records: start, list, read, play, step through, export, follow live."""

from __future__ import annotations

import logging
import re
from typing import Any
from uuid import UUID

from flask import current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api import schemas
from api.live import (
    LIFETIME_CONFIG,
    LIFETIME_SECONDS,
    PING_CONFIG,
    PING_SECONDS,
    SSE,
    Unavailable,
    admitted,
    announce,
    record_state,
    record_stream,
    record_topic,
    sse_response,
    subscribe_then_read,
    unavailable,
)
from api.metrics import counted_command
from api.problems import CONTENT_TYPE as PROBLEM
from api.problems import problem
from api.service import bearer, json_response, service
from domain.records import evidence as bundles
from domain.records import lessonfile
from domain.records.access import new_tokens
from domain.records.aggregates import TRANSCRIBED
from domain.records.errors import RecordsError
from domain.records.studynotation import render_study
from domain.transcripts import MEDIA_TYPE
from replay_viewer import boards
from replay_viewer.boards import NoLayout, picture

blp = Blueprint("records", __name__, url_prefix="/api/records", description="Game records: play, replay, export")

log = logging.getLogger(__name__)

NO_LAYOUT = "/problems/no-layout"  # the problem type of a board that cannot be drawn (the viewer shows the rest)

@blp.route("")
class RecordCollection(MethodView):
    @blp.arguments(schemas.ListQuery, location="query")
    @blp.response(200, schemas.RecordList)
    def get(self, query: dict[str, Any]) -> Any:
        """List records, newest first, a page at a time (filter by title, player name, status). A finished
        record's item names its `winner` (a list: a title may share a victory) and `scores` in ranking order."""
        return json_response(service().records.reading.listing(query.get("title"), query.get("player"), query.get("status"),
                                                       query["page"], query["per_page"]).to_json())

    @blp.arguments(schemas.StartRecord)
    @blp.response(201, schemas.Started)
    def post(self, body: dict[str, Any]) -> Any:
        """Start a record. Each seat's token is in this answer only: hand each player theirs. A game at the table
        (`"mode": "transcribed"`) also gets its `table_key`, shown here only: one device enters every seat's choices
        and every outcome seen with it."""
        records = service().records
        annotator, arbiter, table = new_tokens(3)
        at_table = body["mode"] == TRANSCRIBED
        record_id, tokens = records.play.start(body["title"], body["seats"], body["options"], body["mode"],
                                          body["edition_file"], body["setup_outcomes"], annotator_key=annotator,
                                          arbiter_key=arbiter, dice_mode=body["dice"],
                                          table_key=table if at_table else None)
        summary = records.reading.summary(record_id)
        seats = [{"seat": i, "name": n, "token": t} for i, (n, t) in enumerate(zip(body["seats"], tokens, strict=True))]
        started = {"id": str(record_id), "commitment": summary.chance["commitment"], "seats": seats,
                   "annotator_key": annotator, "arbiter_key": arbiter, "record": summary.to_json()}
        if at_table:
            started["table_key"] = table
        return started, 201, {"Location": f"/api/records/{record_id}"}


@blp.route("/<uuid:record_id>")
@blp.response(200, schemas.RecordSummary)
@blp.alt_response(304, description="not modified: the `If-None-Match` sent is the record's version (no body)")
@blp.doc(security=[{"seat": []}, {}])
def get_record(record_id: UUID) -> Any:
    """A record's header, status, version and (once finished) scores and revealed seed.

    The answer's `ETag` is the record's version: send it back as `If-None-Match` to poll a live
    game cheaply (304 with no body until a move is made)."""
    summary = service().records.reading.summary(record_id, bearer())
    response = json_response(summary.to_json())
    response.set_etag(f"v{summary.version}")
    response.headers["Cache-Control"] = "no-cache"  # always ask; the ETag makes asking cheap
    return response.make_conditional(request)


@blp.route("/<uuid:record_id>/commands", methods=["POST"])
@blp.arguments(schemas.PlayCommand)
@blp.arguments(schemas.PlayQuery, location="query")
@blp.response(200, schemas.PlayResult)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="the record moved on since `version`")
@blp.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                  description="a rule violation (rule id, message, facts), a malformed command or impossible outcomes")
@blp.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no seat token")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="the token is not this command's seat's")
@blp.doc(security=[{"seat": []}], parameters=[schemas.IDEMPOTENCY_KEY])
@counted_command  # cronaca_commands_total{title,outcome} (api/metrics.py)
def play(body: dict[str, Any], query: dict[str, Any], record_id: UUID) -> Any:
    """A seat's choice. Its events come back as step numbers and types (payloads stay hidden until
    the game is over); the seat's own view after the command comes with them. With an `Idempotency-Key`,
    a retry of a command that was stored answers what the first attempt answered (docs/api.md). With `?legal=true`
    the answer also says the decision now, as `GET /legal` would (a page saves a round trip)."""
    records = service().records
    token = bearer()
    played = records.play.command(record_id, body["command"], token, body["version"], body["outcomes"], body["contribution"],
                          idempotency_key=idempotency_key())
    # the followers first: the next deciding seat's page asks for its choices while this answer is being built
    announce(service().hub, record_id, record_state(played.version, played.last_step, played.finished))
    answer = records.play.answer(record_id, played)
    said = answer.to_json()
    if query["legal"]:
        said["legal"] = records.reading.legal(record_id, token).to_json()
    response = json_response(said)
    if played.replayed:
        response.headers[REPLAYED] = "true"
    return response


REPLAYED = "Idempotent-Replayed"  # on an answer given again to a retry (the IETF idempotency-key draft's practice)


def idempotency_key() -> str | None:
    """The request's `Idempotency-Key`, or None; a malformed one is refused (400), never ignored."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not schemas.IDEMPOTENCY_KEY_SHAPE.fullmatch(key):
        raise RecordsError("Idempotency-Key must be 1 to 255 visible ASCII characters (a random UUID, say)",
                           rule="idempotency/key")
    return key


@blp.route("/<uuid:record_id>/asks", methods=["POST"])
@blp.arguments(schemas.AskOutcome)
@blp.response(200, schemas.Asked)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="a live record (it draws its own), a setup already entered, a choice before the setup")
@blp.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                  description="an outcome that could not have happened (named), a malformed choice or outcome")
@blp.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no token")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="another seat's choice, another record's key")
@blp.doc(security=[{"seat": []}])
def asks(body: dict[str, Any], record_id: UUID) -> Any:
    """A game at the table: the next outcome the rules need for a choice (`command`; null: the setup) beyond the
    outcomes entered so far, and what it could be (`possible`); `{"ask": null}` when they need no more. Nothing
    is stored. With the table key (any seat's choice) or a seat's token (its own)."""
    return json_response(service().records.table.asks(record_id, bearer(), body["command"], body["outcomes"]))


@blp.route("/<uuid:record_id>/setup", methods=["POST"])
@blp.arguments(schemas.EnterSetup)
@blp.response(200, schemas.SetupEntered)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="the setup is entered already, or the record is live")
@blp.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                  description="an outcome that could not have happened (named), missing or unused outcomes")
@blp.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no token")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="another record's key")
@blp.doc(security=[{"seat": []}], parameters=[schemas.IDEMPOTENCY_KEY])
def enter_setup(body: dict[str, Any], record_id: UUID) -> Any:
    """A game at the table started without `setup_outcomes`: its setup's outcomes as the table saw them (the deals),
    all at once; the record then takes its players' choices."""
    answer, replayed = service().records.table.setup(record_id, bearer(), body["outcomes"], idempotency_key())
    return announced(record_id, answer, replayed)


@blp.route("/<uuid:record_id>/withdrawals", methods=["POST"])
@blp.arguments(schemas.Withdraw)
@blp.response(200, schemas.Withdrawal)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="a stale version, a finished game, nothing but the setup, a live entry whose draw was "
                              "shown, a take-back asked already")
@blp.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no token")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM,
                  description="at the table not the table key; live, not the seat that made the entry")
@blp.doc(security=[{"seat": []}], parameters=[schemas.IDEMPOTENCY_KEY])
def withdraw(body: dict[str, Any], record_id: UUID) -> Any:
    """Take back the last entry: at the table with the table key, at once (`withdrawn`); in a live game the seat that
    made it asks (`asked`: its number and the seats whose consent it waits for), never across a draw the service has
    shown. The take-back is stored as an event of its own: the record shows it happened."""
    answer, replayed = service().records.table.withdraw(record_id, bearer(), body["version"], idempotency_key())
    return announced(record_id, answer, replayed)


@blp.route("/<uuid:record_id>/withdrawals/<int:n>/consent", methods=["POST"])
@blp.arguments(schemas.Consent)
@blp.response(200, schemas.Withdrawal)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="no such take-back waiting (the game went on), the asking seat itself, a second consent")
@blp.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no seat token")
@blp.doc(security=[{"seat": []}], parameters=[schemas.IDEMPOTENCY_KEY])
def consent(body: dict[str, Any], record_id: UUID, n: int) -> Any:
    """A live game: another seat consents to take-back `n` (its `number`); the last consent takes the entry back
    (`withdrawn`)."""
    answer, replayed = service().records.table.consent(record_id, n, bearer(), idempotency_key())
    return announced(record_id, answer, replayed)


def announced(record_id: UUID, answer: dict[str, Any], replayed: bool) -> Any:
    """The answer of a setup or a take-back; its followers are told the record's new state (a retry's changed
    nothing, and says so in its header)."""
    if not replayed:
        announce_summary(record_id)
    response = json_response(answer)
    if replayed:
        response.headers[REPLAYED] = "true"
    return response


@blp.route("/<uuid:record_id>/seats/<int:n>/join", methods=["POST"])
@blp.arguments(schemas.JoinSeat)
@blp.response(200, schemas.DiceAct)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="the seat has already joined, or the record's dice are not shared")
@blp.alt_response(422, schema=schemas.Problem, content_type=PROBLEM, description="a commitment or contribution of the wrong shape")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="the token is another seat's")
@blp.doc(security=[{"seat": []}])
def join(body: dict[str, Any], record_id: UUID, n: int) -> Any:
    """Shared dice: seat n commits to its secret (SHA-256) and gives its part of the setup; the last seat to join
    draws the setup (docs/trust.md)."""
    joined = service().records.play.join(record_id, n, bearer(), body["commitment"], body["contribution"])
    announce_summary(record_id)  # the last seat's join draws the setup: steps appear
    return json_response(joined.to_json())


@blp.route("/<uuid:record_id>/seats/<int:n>/reveal", methods=["POST"])
@blp.arguments(schemas.RevealSecret)
@blp.response(200, schemas.DiceAct)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="a second reveal, a game not over yet, or a record whose dice are not shared")
@blp.alt_response(422, schema=schemas.Problem, content_type=PROBLEM, description="the secret does not match the commitment")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="the token is another seat's")
@blp.doc(security=[{"seat": []}])
def reveal(body: dict[str, Any], record_id: UUID, n: int) -> Any:
    """Shared dice: once the game is over, seat n reveals its secret; anyone can then recompute every outcome
    of the entries it took part in (docs/trust.md). Contributions that do not match it come back as `problems`."""
    revealed = service().records.play.reveal_secret(record_id, n, bearer(), body["secret"])
    announce_summary(record_id)
    return json_response(revealed.to_json())


def announce_summary(record_id: UUID) -> None:
    """Tell the record's live followers its state as the summary now says it (after a join or a reveal)."""
    svc = service()
    try:
        summary = svc.records.reading.summary(record_id)
    except Exception as exc:  # noqa: BLE001  (the change is stored: its answer must not turn into an error for a notification)
        log.warning("record %s: its followers were not told of a join or reveal: %s", record_id, type(exc).__name__)
        return
    announce(svc.hub, record_id, record_state(summary.version, summary.steps, summary.finished))


@blp.route("/<uuid:record_id>/live")
@blp.response(200, {"type": "string"}, content_type=SSE,
              description="server-sent events: `event: record`, `id: <version>`, `data: {\"type\": \"record\", "
                          "\"version\", \"steps\", \"finished\"}` at once (unless `Last-Event-ID` is already the "
                          "version) and after each stored command, join or reveal; `: ping` comments when quiet; the "
                          "stream ends after the finishing version, or after a few minutes (EventSource reconnects)")
@blp.alt_response(204, description="the record is finished and `Last-Event-ID` is its last version: nothing more "
                                   "will come (EventSource stops reconnecting)")
@blp.alt_response(400, schema=schemas.Problem, content_type=PROBLEM, description="a Last-Event-ID that is not a version")
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM, description="no such record")
@blp.alt_response(429, schema=schemas.Problem, content_type=PROBLEM,
                  description="this address follows CRONACA_LIVE_STREAMS_PER_CLIENT streams already; retry after "
                              "`Retry-After` seconds")
@blp.alt_response(503, schema=schemas.Problem, content_type=PROBLEM,
                  description="the live channel (Redis) cannot be reached now, or this server holds "
                              "CRONACA_LIVE_STREAMS streams already; retry after `Retry-After` seconds")
def live(record_id: UUID) -> Any:
    """Follow a game in progress (EventSource): each event says the record's new version, steps and whether it is
    finished — nothing secret; ask `GET /api/records/{id}` and its steps with your own token for what you may see.
    Public, as the summary is: an EventSource sends no Authorization header. Streams are capped per address and
    per process (429 / 503 with `Retry-After` beyond, docs/deployment.md)."""
    last_seen = last_event_id()
    svc = service()

    def follow() -> Any:
        try:
            subscription, summary = subscribe_then_read(svc.hub, record_topic(record_id),
                                                        lambda: svc.records.reading.summary(record_id))
        except Unavailable as exc:
            return unavailable(exc, "the page polls meanwhile")
        current = record_state(summary.version, summary.steps, summary.finished)
        if current["finished"] and last_seen is not None and last_seen >= current["version"]:
            subscription.close()
            return current_app.response_class(status=204)
        ping = float(current_app.config.get(PING_CONFIG, PING_SECONDS))
        lifetime = float(current_app.config.get(LIFETIME_CONFIG, LIFETIME_SECONDS))
        return sse_response(record_stream(current, subscription, last_seen, ping, lifetime))

    return admitted(svc.caps, request.remote_addr or "", follow)


def last_event_id() -> int | None:
    """The version a reconnecting EventSource last heard (`Last-Event-ID`), or None; anything else is refused."""
    raw = (request.headers.get("Last-Event-ID") or "").strip()
    if not raw:
        return None
    if not VERSION_SHAPE.fullmatch(raw):
        raise RecordsError("Last-Event-ID is the record version the stream last sent (a whole number)",
                           rule="live/last-event-id")
    return int(raw)


VERSION_SHAPE = re.compile(r"[0-9]{1,18}")


@blp.route("/<uuid:record_id>/events")
@blp.arguments(schemas.EventsQuery, location="query")
@blp.response(200, schemas.EventPage)
@blp.doc(security=[{"seat": []}, {}])
def events(query: dict[str, Any], record_id: UUID) -> Any:
    """Game events [from, to). While a game is in progress their payloads are withheld from everyone
    (draws and hidden discs are in them); use /steps/{n} for what you may see."""
    return json_response(service().records.reading.event_range(record_id, query["from_"], query["to"], bearer()).to_json())


@blp.route("/<uuid:record_id>/steps/<int:n>")
@blp.response(200, schemas.Step)
@blp.doc(security=[{"seat": []}, {}])
def step(record_id: UUID, n: int) -> Any:
    """The state after the first n game events: all-seeing once finished; otherwise the token's seat
    view, or what every player sees without a token."""
    return current_app.response_class(service().records.reading.step_json(record_id, n, bearer()), mimetype="application/json")


@blp.route("/<uuid:record_id>/steps/<int:n>/board")
@blp.response(200, schemas.SVG, description="an SVG document: the board at step n as the reader may see it, what "
                                            "changed since step n-1 highlighted", content_type="image/svg+xml")
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM,
                  description="no such record or step; or the title or edition has no board layout (type ends "
                              "in `no-layout`, the reason in `detail`)")
@blp.alt_response(304, description="not modified: the `If-None-Match` sent is this drawing's ETag (no body)")
@blp.doc(security=[{"seat": []}, {}])
def board(record_id: UUID, n: int) -> Any:
    """The board at step n, drawn as SVG from the edition's layout: all-seeing once finished (then cacheable
    for an hour, with an ETag); otherwise the token's seat view, or what every player sees."""
    try:
        drawn = service().records.presenting.board(record_id, n, bearer(), boards.draw)
    except NoLayout as exc:
        return problem(404, "Not Found", str(exc), type=NO_LAYOUT)
    response = current_app.response_class(drawn.svg, mimetype="image/svg+xml")
    response.set_etag(drawn.etag.strip('"'))
    # A finished record's drawing never changes; a game in progress is a seat's own view: never shared.
    response.headers["Cache-Control"] = "public, max-age=3600" if drawn.finished else "private, no-cache"
    return response.make_conditional(request)


@blp.route("/<uuid:record_id>/steps/<int:n>/board.png")
@blp.response(200, schemas.PNG, description="a PNG picture: the same drawing as `/board`, as the reader may see it",
              content_type="image/png")
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM,
                  description="no such record or step; or the title or edition has no board layout (type ends "
                              "in `no-layout`, the reason in `detail`)")
@blp.alt_response(304, description="not modified: the `If-None-Match` sent is this picture's ETag (no body)")
@blp.doc(security=[{"seat": []}, {}])
def board_picture(record_id: UUID, n: int) -> Any:
    """The board at step n as a PNG picture (to send to a chat): the SVG drawing rasterised, cached with its
    own ETag as the SVG is (public for an hour once finished, a seat's own otherwise)."""
    try:
        drawn = service().records.presenting.board(record_id, n, bearer(), boards.draw)
    except NoLayout as exc:
        return problem(404, "Not Found", str(exc), type=NO_LAYOUT)
    tag = drawn.etag.strip('"') + "-png"
    response = current_app.response_class(mimetype="image/png")
    response.set_etag(tag)
    response.headers["Cache-Control"] = "public, max-age=3600" if drawn.finished else "private, no-cache"
    if request.if_none_match.contains(tag):
        return response.make_conditional(request)
    response.set_data(picture.png(drawn.svg, tag))
    response.headers["Content-Disposition"] = f'inline; filename="board-{n}.png"'
    return response.make_conditional(request)


@blp.route("/<uuid:record_id>/story")
@blp.response(200, schemas.Story)
@blp.doc(security=[{"seat": []}, {}])
def story(record_id: UUID) -> Any:
    """The move list: one line per game event the title puts in words, grouped by round, as the reader may
    read it (a sentence hides what the reader's view hides; all-seeing once finished)."""
    return current_app.response_class(service().records.presenting.story_json(record_id, bearer()), mimetype="application/json")


@blp.route("/<uuid:record_id>/scores")
@blp.response(200, schemas.ScoresOverTime)
@blp.doc(security=[{"seat": []}, {}])
def scores(record_id: UUID) -> Any:
    """Every seat's running total at every step, where each round begins, where the lead changed, and the
    final scores (ranking with the tie-break, breakdown). Only once the game is over: running scores can
    carry hidden values; in progress the answer says so (`available: false`)."""
    return current_app.response_class(service().records.presenting.scores_json(record_id, bearer()), mimetype="application/json")


@blp.route("/<uuid:record_id>/turns")
@blp.response(200, schemas.Turn(many=True))
@blp.doc(security=[{"seat": []}, {}])
def turns(record_id: UUID) -> Any:
    """Setup and turns with their step ranges [from, to]."""
    return json_response([turn.to_json() for turn in service().records.reading.turns(record_id, bearer())])


@blp.route("/<uuid:record_id>/legal")
@blp.response(200, schemas.Legal)
@blp.doc(security=[{"seat": []}, {}])
def legal(record_id: UUID) -> Any:
    """The pending decision; the legal commands only for the token of the seat that must decide."""
    return json_response(service().records.reading.legal(record_id, bearer()).to_json())


@blp.route("/<uuid:record_id>/verify")
@blp.response(200, schemas.Verification, description="the chain recomputed from the stored rows and the log "
                                                      're-decided by the rules: problems as {"step", "what"} (chain) '
                                                      'and {"step", "rule", "what"} (replay)')
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM, description="no such record")
@blp.doc(security=[{"seat": []}, {}])
def verify(record_id: UUID) -> Any:
    """Whether the record's stored events are those that were written (their hash chain) and whether the rules
    give its log (re-decided as an import is); every problem at its step. A record stored before chains says
    so (`chain.ok` null) instead of failing."""
    return json_response(service().records.verification.verify(record_id, bearer()).to_json())


@blp.route("/<uuid:record_id>/export")
@blp.response(200, schemas.RECORD_FILE, description="a record file (docs/formats/record-json.md)")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="the game is not over yet")
@blp.doc(security=[{"seat": []}, {}])
def export(record_id: UUID) -> Any:
    """The record file of a finished record, with its notes as the reader may read them (the annotator key:
    all of them) and its variations (docs/formats/record-json.md)."""
    response = json_response(lessonfile.record_file(service().teaching, record_id, bearer()).to_json())
    response.headers["Content-Disposition"] = f'attachment; filename="record-{record_id}.json"'
    return response


@blp.route("/<uuid:record_id>/notation")
@blp.response(200, schemas.NOTATION_TEXT, description="the record in its title's table notation (docs/notation/)",
              content_type="text/x-cronaca-notation")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM,
                  description="the game is not over yet, or the token is neither the annotator key nor a seat's")
@blp.doc(security=[{"seat": []}, {}])
def notation(record_id: UUID) -> Any:
    """A finished record as a notation file, as a table would have written it, with the notes the reader may
    see (the annotator key: all; a seat's token: everyone's and its own) as comments and glyphs after their
    moves, and the variations as nested lines in parentheses (docs/notation/, "Annotations and variations")."""
    found = service()
    text = render_study(found.records, found.teaching, record_id, bearer())
    response = current_app.response_class(text, mimetype=MEDIA_TYPE)
    response.headers["Content-Type"] = f"{MEDIA_TYPE}; charset=utf-8"
    response.headers["Content-Disposition"] = f'inline; filename="record-{record_id}.cronaca.txt"'
    return response


@blp.route("/<uuid:record_id>/evidence")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="the game is not over yet")
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM, description="no such record")
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="the edition file this service has for the title is not the one the record was played with")
@blp.doc(responses={"200": {
    "description": "the evidence bundle: a zip of the record file, its notation, the edition file, the hash chain, "
                   "commitments and revealed secrets, rulings, the dispute report and a manifest of hashes "
                   "(docs/formats/evidence.md); `cronaca verify` checks it offline",
    "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}})
def evidence(record_id: UUID) -> Any:
    """A finished record as evidence a third party checks with the package alone (public: the game is over, and
    the notes in it are the public ones)."""
    found = service()
    found.records.reading.summary(record_id)  # 404 for no such record, before anything else is read
    document = lessonfile.record_file(found.teaching, record_id, None)  # 403 while the game is in progress
    packed = bundles.build(found.records.verification.evidence_parts(record_id, document))
    response = current_app.response_class(packed, mimetype=bundles.MEDIA_TYPE)
    response.headers["Content-Disposition"] = f'attachment; filename="evidence-{record_id}.zip"'
    return response
