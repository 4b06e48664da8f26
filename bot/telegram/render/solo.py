"""The lobby of a game against the computer, in its player's private chat.

Nobody else joins there, so it offers what a group's lobby offers its host and nothing
more: the game's options (one a row, each pressed to its next choice), how many computers
sit in, Deal and Cancel. It is the one message of the game: the deal turns it into the table
and the hand (:func:`~bot.telegram.render.solo_content`).
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.callbacks import LobbyPress, RulesPress
from bot.telegram.render.common import esc, game_name, option_label, seat_name
from bot.telegram.render.content import Button, Content, Keyboard


def render_solo_lobby(
    t: Translator, snapshot: GameSnapshot, option_keys: Iterable[str]
) -> Content:
    """Options, seats and Deal of a game about to be dealt against the computer."""
    game = snapshot.game_id
    keys = list(option_keys)
    lines = [
        t("lobby.title", game=esc(game_name(t, snapshot.game_key))),
        *(f"{s.seat + 1}. {seat_name(t, snapshot, s.seat)}" for s in snapshot.seats),
        "",
        " · ".join(option_label(t, key, snapshot.options.get(key)) for key in keys),
        "",
        t("lobby.solo_hint"),
    ]
    computers = [s for s in snapshot.seats if s.is_computer]
    count: list[Button] = []
    if len(snapshot.seats) < snapshot.max_players:
        count.append(Button(t("button.add_computer"), LobbyPress(game, "bot").encode()))
    if computers and len(snapshot.seats) > snapshot.min_players:
        count.append(Button(t("button.remove_computer"), LobbyPress(game, "unbot").encode()))
    keyboard: Keyboard = (
        # One a row: a label in full on a phone, in every language.
        *(
            (Button(option_label(t, key, snapshot.options.get(key)), _option(game, key)),)
            for key in keys
        ),
        *((tuple(count),) if count else ()),
        (
            Button(t("button.deal"), LobbyPress(game, "start").encode()),
            Button(t("button.cancel"), LobbyPress(game, "cancel").encode()),
        ),
        (Button(t("button.rules"), RulesPress(snapshot.game_key).encode()),),
    )
    return Content("\n".join(lines), keyboard)


def _option(game_id: int, key: str) -> str:
    return LobbyPress(game_id, f"o.{key}").encode()
