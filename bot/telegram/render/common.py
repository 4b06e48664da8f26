"""Rendering shared by every game: names, cards, time, the lobby, events and the results."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from html import escape
from typing import Any

from bot.games.cards import SUITS, Card, Suit
from bot.games.engine import AUTOPILOT_AFTER, TURN_SECONDS, Event
from bot.i18n import Translator
from bot.services.lobby import LOBBY_IDLE_SECONDS, REMATCH_SECONDS
from bot.services.types import INVITED, REMATCH_OF, REMATCHED, SERIES, GameSnapshot, SeatInfo
from bot.telegram.callbacks import LobbyPress, RematchPress, RulesPress
from bot.telegram.render.content import Button, Content, Keyboard, rows

#: Longest name shown; Telegram allows 64 characters, but a table must stay narrow.
NAME_LIMIT = 24
#: Longest group title shown (Telegram allows 128 characters): it heads a line of its own.
TITLE_LIMIT = 48
PLACE_MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def esc(text: str) -> str:
    return escape(text, quote=False)


def game_name(t: Translator, game_key: str) -> str:
    return t(f"game.{game_key}.name")


def private_game(snapshot: GameSnapshot) -> bool:
    """Whether the game is played in its player's private chat (against the computer): the
    table and his panel are then one message (:func:`~bot.telegram.render.solo_content`), so
    what the table shows, the panel leaves out."""
    return snapshot.chat_kind == "private"


def owner_seat(snapshot: GameSnapshot) -> int | None:
    """The seat of the person whose private chat the game is played in (``None`` in a group)."""
    if not private_game(snapshot):
        return None
    owner = snapshot.seat_of(snapshot.chat_id)
    if owner is None:  # the chat's person not found (never in practice): the first person
        owner = next((s for s in snapshot.seats if not s.is_computer), None)
    return None if owner is None else owner.seat


def seat_name(t: Translator, snapshot: GameSnapshot, seat: int, *, marker: bool = True) -> str:
    """The seat's name as :func:`person_name` gives it; computers are numbered in order.

    With ``marker``, a person the computer is playing for now is marked: 💤 while he is away
    (he missed his turns), 🚪 once he has left the game (left the group, blocked the bot).
    """
    info = snapshot.seats[seat]
    if info.is_computer:
        number = 1 + sum(1 for s in snapshot.seats[:seat] if s.is_computer)
        return "🤖 " + esc(t("seat.computer", n=number))
    mark = (" 🚪" if info.left else " 💤") if marker and info.autopilot else ""
    return person_name(info.name) + mark


def seat_names(
    t: Translator, snapshot: GameSnapshot, seats: Iterable[int], *, marker: bool = True
) -> str:
    """ "Anna, Boris": these seats' names, as :func:`seat_name` gives them."""
    return ", ".join(seat_name(t, snapshot, seat, marker=marker) for seat in seats)


#: Unicode's bidirectional formatting characters — marks, embeddings, overrides, isolates
#: (U+061C, U+200E–F, U+202A–E, U+2066–9): in a name, an override such as U+202E would turn
#: the rest of the line around; nobody needs one to write his name.
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: First Strong Isolate … Pop Directional Isolate: a right-to-left name between them reads in
#: its own direction without reordering the text around it (nor setting the line's direction).
FSI, PDI = "\u2068", "\u2069"


def short(name: str) -> str:
    """A person's name as a table shows it: without bidi controls, trimmed, and cut to
    :data:`NAME_LIMIT`."""
    name = BIDI_CONTROLS.sub("", name).strip() or "?"
    return name if len(name) <= NAME_LIMIT else name[: NAME_LIMIT - 1] + "…"


def person_name(name: str) -> str:
    """A name a person gave himself, ready for a message: shortened (:func:`short`),
    HTML-escaped, and — if it holds right-to-left letters — isolated (FSI … PDI), so that
    it cannot reorder the line it stands in. Every user-supplied name goes through here."""
    return _isolated(esc(short(name)))


def group_title(title: str) -> str:
    """A group's title, as a message names it: as :func:`person_name` gives a name, cut to
    :data:`TITLE_LIMIT` (members choose titles as freely as names)."""
    title = BIDI_CONTROLS.sub("", title).strip() or "?"
    if len(title) > TITLE_LIMIT:
        title = title[: TITLE_LIMIT - 1] + "…"
    return _isolated(esc(title))


def _isolated(shown: str) -> str:
    """``shown`` between FSI and PDI if it holds right-to-left letters."""
    if any(unicodedata.bidirectional(char) in ("R", "AL") for char in shown):
        return FSI + shown + PDI
    return shown


def rank_label(t: Translator, rank: int) -> str:
    return t(f"card.rank.{rank}")


def a_rank(t: Translator, rank: int) -> str:
    """A rank as a verb's object: "a 7", "an 8", "an A" in English; the rank elsewhere."""
    return t(f"card.a_rank.{rank}")


#: Red suits in emoji presentation (U+FE0F): Telegram's apps draw them red, where the bare
#: symbols print black like spades and clubs. Black suits stay text: they read alike.
RED = "\ufe0f"


def suit_label(suit: Suit) -> str:
    """``♥️`` (red) or ``♠``: a suit as the players read it."""
    return suit.symbol + RED if suit.is_red else suit.symbol


#: Suits in event arguments (stored by their letter), as the players read them.
_SUIT_SYMBOLS = {suit.value: suit_label(suit) for suit in SUITS}


def card_label(t: Translator, card: Card) -> str:
    """``10♥️``, ``K♠``, ``Joker`` — ranks the reader's way, suits as symbols, red ones red;
    the joker in words (its emoji, 🃏, is drawn as a boxed star by some systems' fonts)."""
    if card.suit is None:
        return t("card.joker")
    return rank_label(t, card.rank) + suit_label(card.suit)


def cards_label(t: Translator, cards: Iterable[Card]) -> str:
    return " ".join(card_label(t, c) for c in cards) or "—"


def seconds_left(deadline: float | None, now: float) -> int | None:
    if deadline is None:
        return None
    return max(0, math.ceil(deadline - now))


def time_left(t: Translator, deadline: float | None, now: float) -> str:
    left = seconds_left(deadline, now)
    return "" if left is None else t("time.left", seconds=left)


def format_args(
    t: Translator, snapshot: GameSnapshot | None, args: Mapping[str, Any]
) -> dict[str, Any]:
    """Event arguments made readable: cards and ranks drawn, names escaped."""
    readable: dict[str, Any] = {}
    for name, value in args.items():
        if isinstance(value, Card):
            readable[name] = card_label(t, value)
        elif isinstance(value, tuple):
            readable[name] = cards_label(t, value)
        elif name == "rank" and isinstance(value, int):
            readable[name] = rank_label(t, value)
        elif name == "suit" and isinstance(value, str) and value in _SUIT_SYMBOLS:
            readable[name] = _SUIT_SYMBOLS[value]
        elif name == "pile" and isinstance(value, int):
            readable[name] = value + 1  # engines count piles from 0, players from 1
        elif name.endswith("seat") and isinstance(value, int) and snapshot is not None:
            readable[name] = seat_name(t, snapshot, value, marker=False)
        else:
            readable[name] = value
    return readable


def event_line(t: Translator, snapshot: GameSnapshot, event: Event) -> str:
    """One sentence for an event: "Anna played 7♥". An event with a ``kind`` reads as its
    kind's own sentence where there is one (``event.<code>.<kind>``)."""
    args = format_args(t, snapshot, event.args)
    if event.seat is not None and event.seat < len(snapshot.seats):
        args["player"] = seat_name(t, snapshot, event.seat, marker=False)
    key = f"event.{event.code}"
    kind = event.args.get("kind")
    if isinstance(kind, str) and t.has(f"{key}.{kind}"):
        key = f"{key}.{kind}"
    return t(key, **args)


def option_label(t: Translator, key: str, value: Any) -> str:
    if isinstance(value, bool):
        value = t("option.on") if value else t("option.off")
    special = f"option.{key}.{value}"  # a value with words of its own ("about 10 min")
    return t(special) if t.has(special) else t(f"option.{key}", value=value)


def render_lobby(t: Translator, snapshot: GameSnapshot, option_keys: Iterable[str]) -> Content:
    """The lobby message: who has joined and the buttons to join, configure and start."""
    game = snapshot.game_id
    title = "lobby.rematch_title" if REMATCH_OF in snapshot.options else "lobby.title"
    # "Players: 1 of 2" where the game is for so many; else how many may play.
    fixed = snapshot.min_players == snapshot.max_players
    lines = [
        t(title, game=esc(game_name(t, snapshot.game_key))),
        t(
            "lobby.players" if fixed else "lobby.players_range",
            count=len(snapshot.seats),
            min=snapshot.min_players,
            max=snapshot.max_players,
        ),
    ]
    lines += [f"{s.seat + 1}. {seat_name(t, snapshot, s.seat)}" for s in snapshot.seats]
    invited = [person_name(str(entry[1])) for entry in snapshot.options.get(INVITED) or ()]
    if invited:
        names = ", ".join(invited)
        lines.append(t.plural("lobby.invited", len(invited), names=names, seconds=REMATCH_SECONDS))
    elif not snapshot.seats:
        lines.append(t("lobby.nobody"))
    option_keys = list(option_keys)
    options = [option_label(t, key, snapshot.options.get(key)) for key in option_keys]
    lines += ["", " · ".join(options), "", t("lobby.hint")]
    if snapshot.creator_id is None:
        lines.append(t("lobby.admins_host"))
    lines.append(t("lobby.expires", minutes=LOBBY_IDLE_SECONDS // 60))
    buttons: list[tuple[Button, ...]] = [
        (
            Button(t("button.join"), LobbyPress(game, "join").encode()),
            Button(t("button.leave"), LobbyPress(game, "leave").encode()),
        ),
        (
            Button(t("button.add_computer"), LobbyPress(game, "bot").encode()),
            Button(t("button.remove_computer"), LobbyPress(game, "unbot").encode()),
        ),
        *rows(
            [
                Button(
                    option_label(t, key, snapshot.options.get(key)),
                    LobbyPress(game, f"o.{key}").encode(),
                )
                for key in option_keys
            ],
            1,  # one a row: a label in full on a phone, in every language
        ),
        (
            Button(t("button.start"), LobbyPress(game, "start").encode()),
            Button(t("button.cancel"), LobbyPress(game, "cancel").encode()),
        ),
        (Button(t("button.rules"), RulesPress(snapshot.game_key).encode()),),
    ]
    return Content("\n".join(lines), tuple(row for row in buttons if row))


def lobby_option_keys(
    snapshot: GameSnapshot, game_options: Iterable[str], *, realtime: bool = False
) -> list[str]:
    """The options a lobby offers: a real-time game has no turns, so no turn settings."""
    if realtime:
        return list(game_options)
    return [TURN_SECONDS, AUTOPILOT_AFTER, *game_options]


def signed(change: int) -> str:
    """``+56``, ``−12``, ``±0``."""
    if change > 0:
        return f"+{change}"
    return f"−{-change}" if change < 0 else "±0"


def rating_change(t: Translator, snapshot: GameSnapshot, seat: int) -> str:
    """ "rating 1038 (+38)" for a person's seat of a game that just finished; else nothing."""
    moved = snapshot.ratings.get(seat)
    if moved is None:
        return ""
    before, after = moved
    return t(
        "results.rating", rating=shown_rating(t, snapshot, seat), change=signed(after - before)
    )


def shown_rating(t: Translator, snapshot: GameSnapshot, seat: int) -> str:
    """A seat's rating after the game that just finished, marked "?" while it is provisional
    (as the boards mark it)."""
    after = snapshot.ratings[seat][1]
    if seat in snapshot.provisional:
        return t("board.provisional_rating", rating=after)
    return str(after)


def place_line(t: Translator, snapshot: GameSnapshot, seat: SeatInfo, place: int) -> str:
    medal = PLACE_MEDALS.get(place, f"{place}.")
    return f"{medal} {seat_name(t, snapshot, seat.seat)}"


def render_results(t: Translator, snapshot: GameSnapshot) -> list[str]:
    """Places, best first, for the table of a finished game."""
    outcome = snapshot.outcome
    if outcome is None:
        return []
    order = sorted(snapshot.seats, key=lambda s: (outcome.places[s.seat], s.seat))
    lines = []
    for seat in order:
        line = place_line(t, snapshot, seat, outcome.places[seat.seat])
        if outcome.scores is not None:
            value = outcome.scores[seat.seat]
            # "1 pair", "2 pairs"; a fraction ("1.5 points") takes the plural of 2.
            count = int(value) if float(value).is_integer() else 2
            key = f"results.score.{snapshot.game_key}"
            said = t.plural(key, count, score=score_text(value))
            if said == key:  # no words of the game's own: points
                said = t.plural("results.score", count, score=score_text(value))
            line += " — " + said
        rating = rating_change(t, snapshot, seat.seat)
        if rating:
            line += " · " + rating
        lines.append(line)
    places = [outcome.places[seat.seat] for seat in snapshot.seats]
    if len(places) > 1 and set(places) != {1} and len(set(places)) == 1:
        # All share the last place: nobody stayed to the end, so nobody won — a loss for
        # each (:func:`~bot.games.engine.counted_outcome`), not a draw nor a tie.
        lines.append(t("results.nobody_won"))
    elif len(places) > 1 and len(set(places)) == 1:
        lines.append(t("results.draw"))  # everyone first: say so, not only with medals
    elif len(set(places)) < len(places):
        shared = sorted({p for p in places if places.count(p) > 1})
        lines.append(t("results.tied", places=", ".join(str(p) for p in shared)))
    return lines


def score_text(value: float) -> str:
    """A score as a result shows it: ``12``, ``7.5``, ``−16`` — below zero with a minus sign
    (U+2212), as every number the bot shows, never the hyphen ``str`` gives."""
    shown = str(int(abs(value))) if float(value).is_integer() else f"{abs(value):.1f}"
    return f"−{shown}" if value < 0 else shown


def take_back_keyboard(t: Translator, snapshot: GameSnapshot) -> Keyboard:
    return ((Button(t("button.take_back"), LobbyPress(snapshot.game_id, "back").encode()),),)


def rematch_keyboard(t: Translator, snapshot: GameSnapshot) -> tuple[tuple[Button, ...], ...]:
    """A finished game's one button — until its rematch has been opened (one per game)."""
    if REMATCHED in snapshot.options:
        return ()
    return ((Button(t("button.rematch"), RematchPress(snapshot.game_id).encode()),),)


def recent_lines(
    t: Translator, snapshot: GameSnapshot, quiet: Collection[str] = frozenset()
) -> list[str]:
    """The table's log of recent events, but for those whose code is ``quiet`` (what the
    table shows otherwise)."""
    return [
        "· " + event_line(t, snapshot, event)
        for event in snapshot.recent
        if event.code not in quiet
    ]


def series_line(t: Translator, snapshot: GameSnapshot) -> list[str]:
    """ "Series: Anna 2 · Boris 1" for a rematch; nothing for a first game."""
    wins = snapshot.options.get(SERIES)
    if not isinstance(wins, list) or len(wins) != len(snapshot.seats):
        return []
    scores = " · ".join(
        f"{seat_name(t, snapshot, s.seat, marker=False)} {wins[s.seat]}" for s in snapshot.seats
    )
    return [t("table.series", scores=scores)]
