"""Marshmallow schemas of the HTTP API: what goes in is checked here, before the domain sees it."""

from __future__ import annotations

import re

import marshmallow
from marshmallow import fields, validate

IDEMPOTENCY_KEY_SHAPE = re.compile(r"[!-~]{1,255}")
IDEMPOTENCY_KEY = {  # an OpenAPI header parameter (POST /api/records/{id}/commands, POST /api/imports)
    "in": "header", "name": "Idempotency-Key", "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
    "description": "a key of the client's own (a random UUID): a retry of a request that was stored answers what "
                   "the first attempt answered (header `Idempotent-Replayed: true`); the same key with another body "
                   "is refused (422, rule idempotency/reused). Commands: per record and seat; imports: per service, "
                   "and a retried import's answer never shows the seat tokens and keys again (docs/api.md).",
}


class Strict(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE


class StartRecord(Strict):
    title = fields.String(required=True, validate=validate.Length(min=1, max=80),
                          metadata={"description": "a title id, e.g. citta-stato"})
    seats = fields.List(fields.String(validate=validate.Length(min=1, max=60)), required=True,
                        validate=validate.Length(min=1, max=8), metadata={"description": "player names, seat 0 first"})
    options = fields.Dict(load_default=dict, metadata={"description": "game options; players is set from seats"})
    mode = fields.String(load_default="live", validate=validate.OneOf(["live", "transcribed"]))
    edition_file = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=1_000_000),
                                 metadata={"description": "an edition YAML file, if not the title's default"})
    setup_outcomes = fields.List(fields.Dict(), load_default=None, allow_none=True,
                                 metadata={"description": "transcribed mode: the chance outcomes the setup met"})
    dice = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(["shared"]),
                         metadata={"description": 'live mode: "shared" makes every seat contribute to chance; the setup '
                                                  "waits until every seat has joined (docs/trust.md)"})


class SeatToken(marshmallow.Schema):
    seat = fields.Integer()
    name = fields.String()
    token = fields.String()


class RecordSummary(marshmallow.Schema):
    id = fields.String()
    title = fields.String()
    edition = fields.Dict(metadata={"description": "id and content_hash pinned by the first event"})
    seats = fields.List(fields.Dict(), metadata={"description": "seat numbers and player names (never tokens)"})
    options = fields.Dict()
    mode = fields.String(metadata={"description": "live or transcribed"})
    status = fields.String(metadata={"description": "in-progress or finished"})
    finished = fields.Boolean()
    version = fields.Integer(metadata={"description": "send it with a command; a stale one gets 409"})
    steps = fields.Integer(metadata={"description": "game events so far; steps run from 0 to this"})
    created = fields.String()
    chance = fields.Dict(metadata={"description": "commitment from the start; seed once finished; derivation"})
    origin = fields.Dict()
    chain = fields.Dict(metadata={"description": "the hash chain's head and length (issue 15; /verify recomputes it)"})
    scores = fields.Dict(metadata={"description": "once finished"})
    withdrawn = fields.List(fields.Dict(), metadata={"description": "entries taken back, when any: {entry, seat, steps: "
                                                                    "[first, last] as they were, by: table | seats, "
                                                                    "consents, at}; their log is in the export"})
    withdrawal = fields.Dict(metadata={"description": "a live game's take-back asked and waiting for consent: "
                                                      "{number, seat, entry, at_version, consents}"})


class Started(marshmallow.Schema):
    id = fields.String()
    commitment = fields.String(allow_none=True)
    seats = fields.List(fields.Nested(SeatToken), metadata={"description": "each token is shown once: keep it"})
    annotator_key = fields.String(metadata={"description": "shown once: annotate this record and branch variations "
                                                            "from it (Authorization: Bearer <key>)"})
    arbiter_key = fields.String(metadata={"description": "shown once: record rulings on this record (whoever settles "
                                                          "a dispute holds it)"})
    table_key = fields.String(metadata={"description": "a game at the table (mode transcribed) only, shown once: one "
                                                        "device enters every seat's choices and every outcome seen with "
                                                        "it (Authorization: Bearer <key>); it reads what the table sees "
                                                        "(the public view) and opens no other record"})
    record = fields.Nested(RecordSummary)


class ListQuery(Strict):
    title = fields.String()
    player = fields.String()
    status = fields.String(validate=validate.OneOf(["in-progress", "finished"]))
    page = fields.Integer(load_default=1, validate=validate.Range(min=1))
    per_page = fields.Integer(load_default=20, validate=validate.Range(min=1, max=200))


class RecordList(marshmallow.Schema):
    items = fields.List(fields.Dict())
    total = fields.Integer()
    page = fields.Integer()
    per_page = fields.Integer()


class CommandShape(marshmallow.Schema):
    """What the HTTP edge knows of any title's command: an object whose `type` is a name. The title's
    own schema checks the rest; a `type` that is a list or an object never reaches it."""

    class Meta:
        unknown = marshmallow.INCLUDE

    type = fields.String(required=True, validate=validate.Length(min=1, max=80),
                         metadata={"description": "the command's kind, e.g. citta-stato/war"})


class PlayCommand(Strict):
    command = fields.Nested(CommandShape, required=True,
                            metadata={"description": 'the seat\'s choice, e.g. {"type": "toy/roll", "seat": 0}'})
    version = fields.Integer(load_default=None, allow_none=True,
                             metadata={"description": "the record version the choice was made against (409 if stale)"})
    outcomes = fields.List(fields.Dict(), load_default=None, allow_none=True,
                           metadata={"description": "transcribed mode: the chance outcomes this command met"})
    contribution = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200),
                                 metadata={"description": "shared dice: HMAC-SHA256(seat secret, 'cronaca/entry/<k>') "
                                                          "for this command's log entry k (docs/trust.md)"})


class AskOutcome(Strict):
    command = fields.Nested(CommandShape, required=True, allow_none=True,
                            metadata={"description": "the choice the outcomes are for; null: the setup"})
    outcomes = fields.List(fields.Dict(), load_default=list, validate=validate.Length(max=10_000),
                           metadata={"description": "the outcomes entered so far, in the order the rules asked"})


class Possible(marshmallow.Schema):
    value = fields.Raw(metadata={"description": "an item of the pool (a cube, a card) or a die's face"})
    count = fields.Integer(metadata={"description": "how many of it the pool holds (a roll: how many dice could show it)"})
    words = fields.String(metadata={"description": "the value as the rulebook says it"})


class Where(marshmallow.Schema):
    place = fields.String(metadata={"description": "the place as the board drawing names it (its `data-id`: `S07`)"})
    words = fields.String(metadata={"description": "where it is, as a table finds it on the printed board"})


class Ask(marshmallow.Schema):
    kind = fields.String(metadata={"description": "draw, roll or shuffle"})
    source = fields.String(metadata={"description": "the bag, deck or dice, as an outcome names it"})
    n = fields.Integer(metadata={"description": "how many to draw or dice to roll; a shuffle: how many are ordered"})
    possible = fields.List(fields.Nested(Possible))
    faces = fields.Integer(metadata={"description": "rolls only"})
    words = fields.String(metadata={"description": "what is asked, in words: \"draw 2 from Anna's bag\""})
    hidden = fields.Boolean(metadata={"description": "true: a pool the asker's view does not show (a deck, another seat's "
                                                     "bag): asked with a seat's token, nothing of it is listed and only "
                                                     "the table key enters a draw from it"})
    where = fields.List(fields.Nested(Where), metadata={
        "description": "the place each position fills, in order (n of them), where the title gives one (La Città's "
                       "tiles: the slot each is laid over): the table may enter what it sees place by place, in any "
                       "order, and sends the values in this order"})


class Asked(marshmallow.Schema):
    ask = fields.Nested(Ask, allow_none=True, metadata={"description": "null: no more outcome is needed; send the "
                                                                       "choice (or the setup) with those entered"})
    version = fields.Integer()


class EnterSetup(Strict):
    outcomes = fields.List(fields.Dict(), required=True, validate=validate.Length(max=10_000),
                           metadata={"description": "the setup's outcomes as the table saw them, in the order the "
                                                    "rules ask (POST .../asks with \"command\": null says which)"})


class SetupEntered(marshmallow.Schema):
    version = fields.Integer()
    steps = fields.Integer(metadata={"description": "the setup's game events"})


class Withdraw(Strict):
    version = fields.Integer(required=True, metadata={"description": "the record version the take-back was decided "
                                                                     "against (409 if something was entered since)"})


class Consent(Strict):
    pass


class Withdrawal(marshmallow.Schema):
    withdrawn = fields.Dict(allow_none=True, metadata={"description": "the entry taken back: {entry, steps: [first, "
                                                                      "last], seat, by: table | seats, consents}"})
    asked = fields.Dict(allow_none=True, metadata={"description": "a live game's take-back waiting for consent: "
                                                                  "{number, seat, entry, consents, waiting}"})
    version = fields.Integer()
    steps = fields.Integer(metadata={"description": "the record's steps now"})


class JoinSeat(Strict):
    commitment = fields.String(required=True, validate=validate.Length(max=200),
                               metadata={"description": "SHA-256 (hex) of the seat's secret"})
    contribution = fields.String(required=True, validate=validate.Length(max=200),
                                 metadata={"description": "HMAC-SHA256(secret, 'cronaca/entry/0'): the seat's part of the setup"})


class RevealSecret(Strict):
    secret = fields.String(required=True, validate=validate.Length(min=1, max=1000),
                           metadata={"description": "the secret whose SHA-256 the seat committed to when it joined"})


class DiceAct(marshmallow.Schema):
    seat = fields.Integer()
    commitment = fields.String()
    secret = fields.String()
    waiting = fields.List(fields.Integer(), metadata={"description": "seats that have not joined (or revealed) yet"})
    started = fields.Boolean(metadata={"description": "join: whether this join drew the setup"})
    revealed = fields.Boolean()
    problems = fields.List(fields.Dict(), metadata={"description": "reveal: contributions not matching the secret, by entry"})
    version = fields.Integer()


class PlayQuery(Strict):
    legal = fields.Boolean(load_default=False, metadata={
        "description": "also answer `legal`: the decision after the command as `GET /legal` answers this token then "
                       "(the page shows the next decision without asking for it)"})


class PlayResult(marshmallow.Schema):
    version = fields.Integer()
    steps = fields.List(fields.Integer(), metadata={"description": "[first, last] step numbers of the new events"})
    events = fields.List(fields.Dict())
    finished = fields.Boolean()
    view = fields.Dict()
    pending = fields.Dict()
    legal = fields.Dict(metadata={"description": "with `?legal=true` only: what `GET /legal` answers this token now"})


class EventsQuery(Strict):
    from_ = fields.Integer(data_key="from", load_default=0, validate=validate.Range(min=0))
    to = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0))


class EventPage(marshmallow.Schema):
    from_ = fields.Integer(data_key="from")
    to = fields.Integer()
    steps = fields.Integer()
    redacted = fields.Boolean()
    events = fields.List(fields.Dict())


BY = {"description": "where this step's chance outcomes came from: service (drawn from the record's seed), seats "
                     "(shared dice) or transcriber (a person's word); absent when the step met no chance (docs/trust.md)"}


class Step(marshmallow.Schema):
    step = fields.Integer()
    steps = fields.Integer()
    view_of = fields.String(metadata={"description": "all (finished records), seat:N (a seat's token) or public"})
    view = fields.Dict()
    pending = fields.Dict()
    event = fields.String()
    by = fields.String(metadata=BY)
    scores = fields.Dict()


class RuledStep(Step):
    """A step of the record as ruled (GET /ruled/steps/{n})."""

    reading = fields.String(metadata={"description": "ruled"})
    ruling = fields.String(allow_none=True, metadata={"description": "the ruling whose correction this reading "
                                                                     "follows; null: nothing corrects the record"})
    from_step = fields.Integer(metadata={"description": "where the correction starts (only when there is one)"})


class VariationStep(Step):
    """A step of a what-if line (GET /api/variations/{id}/steps/{n}): all-seeing, as a finished record's."""

    line = fields.String(metadata={"description": "the variation's id"})


class Turn(marshmallow.Schema):
    turn = fields.Integer()
    round = fields.Integer()
    seat = fields.Integer(allow_none=True)
    player = fields.String(allow_none=True)
    from_ = fields.Integer(data_key="from")
    to = fields.Integer()
    commands = fields.Integer()


class Choice(marshmallow.Schema):
    """A legal command as the decision panel offers it (domain/kernel/choices.py)."""

    command = fields.Dict(metadata={"description": "the command to send (POST /commands), as in `commands`"})
    words = fields.String(metadata={"description": "the choice as a player says it, e.g. \"buy orange for 2\""})
    group = fields.String(metadata={"description": "how a player thinks of it: actions, cards, places, pass, or a "
                                                   "title's own (colours, market, galleys, cargo...)"})
    parts = fields.List(fields.String(), metadata={"description": "the words split into the steps a person picks them "
                                                                  "in (their common prefixes build a many-part choice "
                                                                  "step by step); joined by spaces they are `words`"})
    place = fields.String(allow_none=True, metadata={"description": "the board place the choice names, by the id the "
                                                                    "board drawing gives it (its `data-id`), else null"})


class Legal(marshmallow.Schema):
    step = fields.Integer()
    version = fields.Integer()
    pending = fields.Dict()
    commands = fields.List(fields.Dict(), allow_none=True)
    choices = fields.List(fields.Nested(Choice), metadata={"description": "for whoever may act (the deciding seat's "
                                                                          "token, the table key): each command of "
                                                                          "`commands`, in its order, in words"})
    note = fields.String()


class ImportStatus(marshmallow.Schema):
    id = fields.String()
    status = fields.String()
    attempts = fields.Integer()
    record_id = fields.String(allow_none=True)
    report = fields.Dict(allow_none=True)
    seats = fields.List(fields.Nested(SeatToken), metadata={"description": "only in the first answer to the submission "
                                                                           "(not to a retry with its Idempotency-Key)"})
    annotator_key = fields.String(metadata={"description": "only in the first answer to the submission: annotate the "
                                                            "record it makes and branch variations from it"})
    arbiter_key = fields.String(metadata={"description": "only in the first answer to the submission: record rulings "
                                                          "on the record it makes"})
    table_key = fields.String(metadata={"description": "only in the first answer to the submission: a game still in "
                                                        "progress goes on at the table, and its device enters with this "
                                                        "key what a seat's token may not (a draw from a pool the seat's "
                                                        "view hides)"})


class Problem(marshmallow.Schema):
    """RFC 9457 problem details (served as application/problem+json)."""

    type = fields.String(metadata={"example": "about:blank"})
    status = fields.Integer()
    title = fields.String()
    detail = fields.String(metadata={"description": "what went wrong and what to do about it"})
    rule = fields.String(metadata={"description": "rule violations: the stable rule id, e.g. citta-stato/use-card/colour"})
    facts = fields.Dict(metadata={"description": "what was offered and what was held"})
    errors = fields.Dict(metadata={"description": "field-by-field messages for malformed input"})
    field = fields.String(metadata={"description": "a body refused before any schema: where, e.g. seats[0]"})
    accepted = fields.List(fields.String(), metadata={"description": "415: the media types this operation takes"})


class StoryLine(marshmallow.Schema):
    step = fields.Integer(metadata={"description": "the event's step: the state after it is step `step`"})
    seat = fields.Integer(allow_none=True, metadata={"description": "the seat whose command caused it; null in the setup"})
    player = fields.String(allow_none=True)
    round = fields.Integer(allow_none=True, metadata={"description": "as /turns counts it (0: the setup)"})
    text = fields.String(metadata={"description": "the sentence as the reader may read it"})
    by = fields.String(metadata=BY)


class Story(marshmallow.Schema):
    steps = fields.Integer()
    view_of = fields.String(metadata={"description": "all (finished records), seat:N (a seat's token) or public"})
    lines = fields.List(fields.Nested(StoryLine))
    round_word = fields.String(metadata={"description": "what the title calls a round (La Città: year)"})


class RuledStory(Story):
    """The latest correction's moves in words (GET /ruled/story); no lines when nothing corrects the record."""

    reading = fields.String(metadata={"description": "ruled"})
    ruling = fields.String(allow_none=True, metadata={"description": "the ruling whose correction is told; null: none"})
    from_step = fields.Integer(allow_none=True, metadata={"description": "where the correction starts"})


class VariationStory(Story):
    """A what-if line's own moves in words (GET /api/variations/{id}/story)."""

    line = fields.String(metadata={"description": "the variation's id"})
    from_step = fields.Integer(metadata={"description": "the parent line's step it branches from"})


class SeatTotals(marshmallow.Schema):
    seat = fields.Integer()
    name = fields.String()
    totals = fields.List(fields.Float(), metadata={"description": "the running total at steps 0..steps (0 before setup)"})


class RoundMark(marshmallow.Schema):
    round = fields.Integer()
    step = fields.Integer(metadata={"description": "the round's first step (the state after its first event)"})


class LeadChange(marshmallow.Schema):
    step = fields.Integer()
    seat = fields.Integer(metadata={"description": "the new leader (a tie keeps the lead; the last step follows the ranking)"})


class ScoresOverTime(marshmallow.Schema):
    available = fields.Boolean(metadata={"description": "false while the game is in progress"})
    reason = fields.String(metadata={"description": "why not, when not available"})
    steps = fields.Integer()
    seats = fields.List(fields.Nested(SeatTotals))
    rounds = fields.List(fields.Nested(RoundMark))
    lead_changes = fields.List(fields.Nested(LeadChange))
    final = fields.Dict(metadata={"description": "the title's final scores(): ranking with the tie-break, breakdown; "
                                                 "each seat's `said`: its final score in a sentence of the title's words"})
    round_word = fields.String(metadata={"description": "what the title calls a round (La Città: year)"})


# ---- answers documented for what they are (issue 29: the document checked against real answers) ----------------

SVG = {"type": "string", "description": "an SVG document (image/svg+xml)"}
PNG = {"type": "string", "format": "binary", "description": "a PNG picture (image/png)"}
RECORD_FILE = {"type": "object", "description": "a record file (docs/formats/record-json.md)"}
LESSON_FILE = {"type": "object", "description": "a lesson file (format cronaca-lesson): importable by POST /api/lessons/import"}
NOTATION_TEXT = {"type": "string", "description": "a notation file (docs/notation/), UTF-8"}


class Open(marshmallow.Schema):
    """A report whose named fields are documented and which may carry more, as its case needs (a dispute report's
    findings, a verification of shared dice): `additionalProperties` is true."""

    class Meta:
        unknown = marshmallow.INCLUDE


class Ruling(marshmallow.Schema):
    id = fields.String(metadata={"example": "r-3f2a9c1b4d5e"})
    step = fields.Integer(allow_none=True, metadata={"description": "the step ruled on; null when a line is named"})
    line = fields.Integer(allow_none=True, metadata={"description": "the notation file's line ruled on, or null"})
    decision = fields.String()
    reason = fields.String()
    correction = fields.Dict(allow_none=True, metadata={"description": "{from_step, entries}: the moves the record "
                                                                       "reads as ruled from there; or null"})
    by = fields.String(metadata={"description": "arbiter"})
    at = fields.String(metadata={"description": "when, ISO 8601 in UTC"})


class RulingList(marshmallow.Schema):
    record_id = fields.String()
    rulings = fields.List(fields.Nested(Ruling))
    as_ruled = fields.String(allow_none=True, metadata={"description": "the ruling the as-ruled reading follows, or null"})
    chain = fields.Dict(metadata={"description": "the rulings stream's hash chain: head and length"})


class Ruled(Open):
    """The record as ruled in brief (GET /ruled)."""

    record_id = fields.String()
    reading = fields.String(metadata={"description": "ruled"})
    ruling = fields.String(allow_none=True)
    from_step = fields.Integer(allow_none=True)
    steps = fields.Integer()
    rulings = fields.Integer()
    corrected = fields.Boolean()
    finished = fields.Boolean()
    pending = fields.Dict()
    scores = fields.Dict(allow_none=True)
    moves = fields.Raw(metadata={"description": "corrected: the correction's entries"})
    as_played = fields.Dict(metadata={"description": "{steps, finished, scores}"})


class Verification(Open):
    ok = fields.Boolean(metadata={"description": "the chain and the replay both hold"})
    head = fields.String(allow_none=True)
    length = fields.Integer()
    chain = fields.Dict(metadata={"description": "{ok, problems}: the hash chain recomputed from the stored rows"})
    replay = fields.Dict(metadata={"description": "{ok, problems, entries, events}: the log re-decided by the rules"})
    streams = fields.Dict(metadata={"description": "the record's other streams' chains (notes, rulings), by name"})


class CheckReport(Open):
    """A dispute report (docs/notation/): findings at their lines, unknowns narrowed."""

    ok = fields.Boolean(metadata={"description": "no finding"})
    settled = fields.Boolean(metadata={"description": "false where an unknown the check could not narrow leaves "
                                                      "slips that rest on its guess unreported: no finding, not clean"})
    title = fields.String(allow_none=True)
    seats = fields.List(fields.String(), allow_none=True)
    options = fields.Dict(allow_none=True)
    finished = fields.Boolean(allow_none=True)
    moves = fields.Integer()
    findings = fields.List(fields.Dict())
    unknowns = fields.List(fields.Dict())
    claimed = fields.Dict(allow_none=True)
    scores = fields.Dict(allow_none=True)
    summary = fields.String()


class Reconciliation(Open):
    agree = fields.Boolean()
    turns = fields.Dict()
    header = fields.List(fields.Dict())
    disagreements = fields.List(fields.Dict())
    first_divergence = fields.Dict(allow_none=True)
    rules_accept = fields.Dict(allow_none=True, metadata={"description": "{first, second, verdict}: what the rules say "
                                                                         "of each at the first divergence; null when the "
                                                                         "two agree"})
    first = fields.Dict(metadata={"description": "{findings, summary} of the first transcript"})
    second = fields.Dict()
    reports = fields.Dict(metadata={"description": "{first, second}: each transcript's dispute report"})


class Answered(marshmallow.Schema):
    pause = fields.String()
    student = fields.String()
    command = fields.Dict()
    said = fields.String()
    count = fields.Integer(metadata={"description": "how many students have answered"})


class Revealed(marshmallow.Schema):
    played = fields.Dict(metadata={"description": "{command, said}: the move the game went on with"})
    tally = fields.Dict(metadata={"description": "{answers, choices: [{command, said, count, students}]}"})
