"""A press made in Davay-ka!'s Mini App, handled as a button press is: it came through the
inbox as an update of the bot's own making (``cardroom_app``, written by the socket that took
it, for the player Telegram signed), and goes through the same ``act`` — the same authority,
transaction, action log and "too late" — then to both players' pages at once, and to the
panels and the table through the sender."""

from __future__ import annotations

import logging
from typing import Any

from telegram import Update
from telegram.ext import BaseHandler, ContextTypes

from bot.i18n import translator
from bot.services.authority import Origin
from bot.services.types import ServiceError, StorageRefused
from bot.telegram.handlers.room import by_the_rules, cardroom, refusal_text
from bot.telegram.inbox import OWN_FIELD
from bot.telegram.render import press_refusal

logger = logging.getLogger(__name__)

#: The update's field that carries a Mini App press.
FIELD = OWN_FIELD


class AppPressHandler(BaseHandler[Update, Any, None]):
    """Matches the updates that carry a Mini App press (and nothing Telegram sends)."""

    def __init__(self) -> None:
        super().__init__(handle_app_press)

    def check_update(self, update: object) -> dict[str, Any] | None:
        if not isinstance(update, Update):
            return None
        press = update.api_kwargs.get(FIELD)
        return press if isinstance(press, dict) else None


async def handle_app_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    room = cardroom(context)
    press = update.api_kwargs.get(FIELD)
    app = room.miniapp
    if not isinstance(press, dict) or app is None:
        return
    user_id, game_id, code = press.get("user"), press.get("game"), press.get("code")
    socket, seq = str(press.get("socket")), press.get("seq")
    if not (isinstance(user_id, int) and isinstance(game_id, int) and isinstance(code, str)):
        logger.warning("A Mini App press without its user, game or code: dropped")
        return
    try:
        snapshot = await room.play.act(game_id, user_id, None, code, Origin.mini_app(user_id))
    except (ServiceError, StorageRefused) as error:
        now = await _snapshot_or_none(room, game_id)
        seat = None if now is None else now.seat_of(user_id)
        t = translator(seat.language if seat is not None else "en")
        if isinstance(error, StorageRefused):
            # Nothing was saved (the outage is logged once, where it was noticed).
            app.answer(socket, seq, False, t("error.storage.refused"))
            return
        said = None
        if now is not None and by_the_rules(error):
            said = press_refusal(t, now, user_id, error.code, code)
        app.answer(socket, seq, False, said or refusal_text(t, error))
        return
    room.publisher.pressed(user_id)
    room.publisher.publish(snapshot)  # both pages at once (the Mini App watches), then chats
    app.answer(socket, seq, True, None)


async def _snapshot_or_none(room: Any, game_id: int) -> Any:
    try:
        return await room.play.snapshot(game_id)
    except (ServiceError, StorageRefused):
        return None
