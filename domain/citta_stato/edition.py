"""The Città-Stato edition: schema for the data file and the tables the rules read from it.

Every printed number comes from the edition file; `tables(edition)` turns it once into the
tuples the hot path needs (cached by content hash, so an old record replays with its own numbers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import marshmallow
from marshmallow import fields, validate

from domain.kernel import Edition, parse_edition
from domain.kernel.editions import derived

TITLE = "citta-stato"
COLOURS = ("Y", "W", "G", "O", "B", "P")
CI = {c: i for i, c in enumerate(COLOURS)}
BANNERS = ("Y", "G", "O", "P")  # also the four upgrade tracks
COLOUR_NAMES = {"Y": "yellow", "W": "white", "G": "green", "O": "orange", "B": "black", "P": "purple"}
BI = {c: i for i, c in enumerate(BANNERS)}

_colour = fields.String(validate=validate.OneOf(COLOURS))
_effects = fields.List(fields.List(fields.Raw()), required=True)


class _Strict(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE


class TrackSchema(_Strict):
    values = fields.List(fields.Integer(), required=True, validate=validate.Length(min=2))
    rewards = fields.Dict(fields.Integer(), _effects, required=True)


class CitySchema(_Strict):
    name = fields.String(required=True)
    expansion = fields.Boolean(required=True)
    cubes = fields.List(_colour, required=True, validate=validate.Length(equal=8))
    seal = fields.String(validate=validate.OneOf(("red", "blue")))
    ability = _effects


class SchemeSchema(_Strict):
    name = fields.String(required=True)
    expansion = fields.Boolean(required=True)
    seal = fields.String(required=True, validate=validate.OneOf(("red", "blue")))
    shift = fields.Integer(required=True)
    effects = _effects


class CardSchema(_Strict):
    name = fields.String(required=True)
    expansion = fields.Boolean(required=True)
    effects = _effects


class RepublicTrackSchema(_Strict):
    spaces = fields.Integer(required=True)
    start = fields.Integer(required=True)
    crowns = fields.List(fields.Integer(), required=True)
    forms = fields.Dict(fields.String(), fields.List(fields.Integer(), validate=validate.Length(equal=2)), required=True)


# The vocabulary of the solo data: what a Ghost cube can do, and what a game's objectives can ask.
GHOST_EFFECTS = ("market_clear_row", "human_form", "human_track_back", "human_cube_to_bag", "ghost_disc", "remove_schemes")
OBJECTIVE_KINDS = (
    "own_cubes",
    "track_at_least",
    "track_exactly",
    "own_crowns_at_least",
    "republic_card_form",
    "own_banners",
    "own_banners_total_at_least",
    "own_used_card_each_colour",
    "no_war_discs_left",
    "burned_each_colour_at_least",
)


class SoloScenarioSchema(_Strict):
    name = fields.String(required=True)
    difficulty = fields.String(required=True)
    schemes_by_slot = fields.List(fields.String(), required=True)
    republic_pool = fields.List(fields.String(), required=True)
    city = fields.String(required=True)
    republic = fields.String(required=True)
    market_add = fields.Dict(_colour, fields.Integer(), required=True)
    ghost_draws_per_round = fields.Integer(required=True, validate=validate.Range(min=0, max=6))
    ghost_actions = fields.Dict(_colour, _effects, required=True)
    games = fields.Dict(
        fields.Integer(),
        fields.Dict(fields.String(validate=validate.OneOf(("required", "objectives"))), fields.Raw()),
        required=True,
    )

    @marshmallow.validates("ghost_actions")
    def _known_effects(self, value: dict[str, Any], **_: Any) -> None:
        unknown = sorted({str(eff[0]) for effects in value.values() for eff in effects} - set(GHOST_EFFECTS))
        if unknown:
            raise marshmallow.ValidationError(f"unknown Ghost effects {unknown}; known: {list(GHOST_EFFECTS)}")

    @marshmallow.validates("games")
    def _known_objectives(self, value: dict[int, Any], **_: Any) -> None:
        for game in value.values():
            for objective in game.get("objectives", ()):
                if not isinstance(objective, dict) or len(objective) != 1 or next(iter(objective)) not in OBJECTIVE_KINDS:
                    raise marshmallow.ValidationError(f"objective {objective!r} is not one of {list(OBJECTIVE_KINDS)}")
            if not isinstance(game.get("required"), int):
                raise marshmallow.ValidationError("each game needs an integer required score")


class SoloSchema(_Strict):
    ghost_bag = fields.Dict(_colour, fields.Integer(), required=True)
    ghost_war_discs = fields.List(fields.Integer(), required=True)
    upgrade_by_game = fields.Dict(fields.Integer(), fields.Integer(), required=True)
    removed_market_cubes = fields.Dict(_colour, fields.String(validate=validate.OneOf(("box", "reserve"))), required=True)
    scenarios = fields.Dict(fields.Integer(), fields.Nested(SoloScenarioSchema), required=True)


class EditionSchema(_Strict):
    colours = fields.List(_colour, required=True)
    banner_colours = fields.List(_colour, required=True)
    jokers = fields.Dict(_colour, _colour, required=True)
    rounds = fields.Integer(required=True)
    players = fields.Dict(fields.String(), fields.Integer(), required=True)
    cubes = fields.Dict(fields.String(), fields.Dict(_colour, fields.Integer()), required=True)
    bag_start = fields.Dict(_colour, fields.Integer(), required=True)
    city_cubes_to_supply = fields.Integer(required=True)
    upgrade_start = fields.Dict(fields.Integer(), fields.Integer(), required=True)
    market = fields.Dict(fields.String(), fields.List(fields.Integer()), required=True)
    warfare_spaces = fields.Integer(required=True)
    tracks = fields.Dict(_colour, fields.Nested(TrackSchema), required=True)
    republic_track = fields.Nested(RepublicTrackSchema, required=True)
    war_discs = fields.Dict(fields.String(), fields.Raw(), required=True)
    cities = fields.Dict(fields.String(), fields.Nested(CitySchema), required=True)
    city_action_banner = fields.Integer(required=True)
    republic_cards = fields.Dict(fields.String(), fields.Dict(fields.String(), fields.Raw()), required=True)
    republic_swap_pool = fields.List(fields.String(), required=True)
    republic_deal_by_players = fields.Dict(fields.Integer(), fields.Dict(fields.String(), fields.Integer()), required=True)
    crowned_card_bonus = fields.Integer(required=True)
    republic_trades = fields.Dict(fields.String(), fields.Dict(fields.String(), fields.Raw()), required=True)
    schemes = fields.Dict(fields.String(), fields.Nested(SchemeSchema), required=True)
    scheme_slots = fields.Integer(required=True)
    scheme_shift_from_level = fields.Integer(required=True)
    cards = fields.Dict(fields.String(), fields.Nested(CardSchema), required=True)
    first_action_required = fields.Boolean(required=True)
    burn_limit = fields.Integer(required=True)
    burn_bonus = fields.Dict(_colour, fields.Dict(fields.Integer(), _effects), required=True)
    round_draw_bonus_fewest_vp = fields.Integer(required=True)
    vp_track_crown_every = fields.Integer(required=True)
    second_scoring_order = fields.List(_colour, required=True)
    solo = fields.Nested(SoloSchema)  # optional: an edition without it has no solo mode


def load(raw: bytes, source: str = "<edition>") -> Edition:
    return parse_edition(raw, TITLE, EditionSchema(), source)


def default() -> Edition:
    return load(resources.files(__package__).joinpath("edition.yaml").read_bytes(), "edition.yaml")


Effect = tuple[Any, ...]


def _effects_of(raw: Any) -> tuple[Effect, ...]:
    return tuple(tuple(step) for step in raw)


@dataclass(frozen=True, slots=True)
class Scenario:
    """One solo scenario: its fixed setup, the Ghost's actions by colour, and per game the required score and objectives."""

    number: int
    name: str
    schemes: tuple[str, ...]
    pool: tuple[str, ...]
    city: str
    republic: str
    market_add: tuple[str, ...]  # cubes in colour order
    draws: int
    actions: dict[str, tuple[Effect, ...]]
    required: dict[int, int]
    objectives: dict[int, tuple[tuple[str, Any], ...]]  # (kind, target) in the order printed


@dataclass(frozen=True, slots=True)
class Solo:
    ghost_bag: tuple[int, ...]
    ghost_discs: tuple[int, ...]
    upgrade: dict[int, int]
    removed_to: dict[str, str]
    scenarios: dict[int, Scenario]


def _solo(d: Any) -> Solo | None:
    if not d:
        return None
    scenarios = {}
    for k, sc in d["scenarios"].items():
        n = int(k)
        scenarios[n] = Scenario(
            number=n,
            name=sc["name"],
            schemes=tuple(sc["schemes_by_slot"]),
            pool=tuple(sorted(sc["republic_pool"])),
            city=sc["city"],
            republic=sc["republic"],
            market_add=tuple(c for c in COLOURS for _ in range(int(sc["market_add"].get(c, 0)))),
            draws=sc["ghost_draws_per_round"],
            actions={c: _effects_of(v) for c, v in sc["ghost_actions"].items()},
            required={int(g): int(v["required"]) for g, v in sc["games"].items()},
            objectives={int(g): tuple(next(iter(o.items())) for o in v.get("objectives", ())) for g, v in sc["games"].items()},
        )
    return Solo(
        ghost_bag=_by_colour(d["ghost_bag"]),
        ghost_discs=tuple(sorted(d["ghost_war_discs"])),
        upgrade={int(k): v for k, v in d["upgrade_by_game"].items()},
        removed_to=dict(d["removed_market_cubes"]),
        scenarios=scenarios,
    )


@dataclass(frozen=True, slots=True)
class Tables:
    """The edition flattened into tuples indexed by colour, for the rules' hot path."""

    rounds: int
    cubes_base: tuple[int, ...]
    cubes_expansion: tuple[int, ...]
    bag_start: tuple[int, ...]
    city_to_supply: int
    upgrade_start: dict[int, int]
    row_costs: tuple[int, ...]
    warfare_spaces: int
    track_values: tuple[tuple[int, ...], ...]  # by BI
    track_rewards: tuple[dict[int, tuple[Effect, ...]], ...]
    rep_spaces: int
    rep_start: int
    rep_crowns: tuple[int, ...]
    forms: dict[str, tuple[int, int]]
    disc_values: tuple[int, ...]
    discs_removed: dict[int, tuple[int, ...]]
    cities: dict[str, Any]
    city_ability: dict[str, tuple[Effect, ...]]
    city_banner: int
    republic_form: dict[str, str]
    republic_crowns: dict[str, int]
    swap_pool: tuple[str, ...]
    deal: dict[int, dict[str, int]]
    crowned_bonus: int
    trades: dict[str, tuple[tuple[int, ...], int]]  # name -> (banners needed by BI, crowns)
    schemes: dict[str, Any]
    scheme_effects: dict[str, tuple[Effect, ...]]
    scheme_shift: dict[str, int]
    scheme_slots: int
    shift_from: int
    card_effects: dict[str, tuple[Effect, ...]]
    card_expansion: dict[str, bool]
    first_action_required: bool
    burn_limit: int
    burn_bonus: tuple[dict[int, tuple[Effect, ...]], ...]  # by CI
    fewest_bonus: int
    crown_every: int
    second_order: tuple[str, ...]
    jokers: dict[str, str]
    solo: Solo | None = None
    # Worked out once here because every setup (and every replay of one) needs them:
    decks: dict[bool, tuple[tuple[str, ...], ...]] = field(default_factory=dict)  # by expansion: each colour's cards, sorted
    scheme_pool: dict[bool, tuple[str, ...]] = field(default_factory=dict)  # by expansion: the schemes in play, sorted
    # by city: (counts to the supply, the cubes for the Market in order, counts taken from the reserve with the bag's)
    city_cubes: dict[str, tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...]]] = field(default_factory=dict)


def _by_colour(d: Any, keys: tuple[str, ...] = COLOURS) -> tuple[int, ...]:
    return tuple(int(d.get(c, 0)) for c in keys)


def _build(edition: Edition) -> Tables:
    d = edition.data
    trades = {
        name: (_by_colour(t["banners"], BANNERS), int(t["crowns"])) for name, t in d["republic_trades"].items()
    }
    return Tables(
        rounds=d["rounds"],
        cubes_base=_by_colour(d["cubes"]["base"]),
        cubes_expansion=_by_colour(d["cubes"]["expansion"]),
        bag_start=_by_colour(d["bag_start"]),
        city_to_supply=d["city_cubes_to_supply"],
        upgrade_start={int(k): v for k, v in d["upgrade_start"].items()},
        row_costs=tuple(d["market"]["row_costs"]),
        warfare_spaces=d["warfare_spaces"],
        track_values=tuple(tuple(d["tracks"][c]["values"]) for c in BANNERS),
        track_rewards=tuple({int(k): _effects_of(v) for k, v in d["tracks"][c]["rewards"].items()} for c in BANNERS),
        rep_spaces=d["republic_track"]["spaces"],
        rep_start=d["republic_track"]["start"],
        rep_crowns=tuple(d["republic_track"]["crowns"]),
        forms={k: (v[0], v[1]) for k, v in d["republic_track"]["forms"].items()},
        disc_values=tuple(d["war_discs"]["values"]),
        discs_removed={int(k): tuple(v) for k, v in d["war_discs"]["removed_by_players"].items()},
        cities=dict(d["cities"]),
        city_ability={k: _effects_of(v["ability"]) for k, v in d["cities"].items()},
        city_banner=d["city_action_banner"],
        republic_form={k: v["form"] for k, v in d["republic_cards"].items()},
        republic_crowns={k: int(v["crowns"]) for k, v in d["republic_cards"].items()},
        swap_pool=tuple(d["republic_swap_pool"]),
        deal={int(k): dict(v) for k, v in d["republic_deal_by_players"].items()},
        crowned_bonus=d["crowned_card_bonus"],
        trades=trades,
        schemes=dict(d["schemes"]),
        scheme_effects={k: _effects_of(v["effects"]) for k, v in d["schemes"].items()},
        scheme_shift={k: v["shift"] for k, v in d["schemes"].items()},
        scheme_slots=d["scheme_slots"],
        shift_from=d["scheme_shift_from_level"],
        card_effects={k: _effects_of(v["effects"]) for k, v in d["cards"].items()},
        card_expansion={k: v["expansion"] for k, v in d["cards"].items()},
        first_action_required=d["first_action_required"],
        burn_limit=d["burn_limit"],
        burn_bonus=tuple({int(k): _effects_of(v) for k, v in d["burn_bonus"][c].items()} for c in COLOURS),
        fewest_bonus=d["round_draw_bonus_fewest_vp"],
        crown_every=d["vp_track_crown_every"],
        second_order=tuple(d["second_scoring_order"]),
        jokers=dict(d["jokers"]),
        solo=_solo(d.get("solo")),
        decks={
            x: tuple(tuple(sorted(k for k, v in d["cards"].items() if k[0] == c and (x or not v["expansion"]))) for c in COLOURS)
            for x in (False, True)
        },
        scheme_pool={x: tuple(sorted(k for k, v in d["schemes"].items() if x or not v["expansion"])) for x in (False, True)},
        city_cubes={k: _city_cubes(v["cubes"], d["city_cubes_to_supply"], _by_colour(d["bag_start"])) for k, v in d["cities"].items()},
    )


def _city_cubes(cubes: Any, to_supply: int, bag: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...]]:
    """A City card's cubes split as setup step 10 places them (see fold._city_cubes)."""
    supply = tuple(sum(1 for c in cubes[:to_supply] if c == colour) for colour in COLOURS)
    taken = tuple(b + sum(1 for c in cubes if c == colour) for b, colour in zip(bag, COLOURS, strict=True))
    return supply, tuple(cubes[to_supply:]), taken


def tables(edition: Edition) -> Tables:
    return derived(edition, _build)
