"""Pickers lose their buttons when they are done with: aged, chosen from, or pressed after a
restart (issue #35, item 5)."""

from __future__ import annotations

from tests.e2e.harness import Harness
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press

EXPIRED = "This menu has expired — send the command again."


async def test_the_language_picker_loses_its_buttons_once_chosen(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await say(h, anna, group, "/language")
    picker = api.bot_messages(group)[-1]
    await press(h, anna, picker, "Русский")
    await api.wait_until(lambda: api.buttons(picker) == [], timeout=5)


async def test_the_language_picker_in_private_loses_its_buttons_once_chosen(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    await say(h, anna, None, "/language")
    picker = api.bot_messages(anna)[-1]
    await press(h, anna, picker, "Hrvatski")
    await api.wait_until(lambda: api.buttons(picker) == [], timeout=5)


async def test_a_picker_whose_first_tidy_was_lost_loses_its_buttons_when_pressed(
    harness: Harness,
) -> None:
    """Its ten minutes ran out while the group was busy (the call that takes its buttons away
    failed): a press on it later still answers "expired" — and asks again."""
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    assert h.app is not None
    menus = h.app.bot_data["cardroom"].menus
    menus.seconds = 0.2
    api.fail_next("editMessageReplyMarkup", 400, "Bad Request: message can't be edited")
    await say(h, anna, group, "/new")
    picker = api.bot_messages(group)[-1]
    await api.wait_until(lambda: bool(api.calls_of("editMessageReplyMarkup")), timeout=5)
    await h.settle()
    assert api.buttons(picker) != [], "the first tidy failed"
    h.clock.advance(40 * 60)
    answer = await press(h, anna, picker, "Rank")
    assert answer.text == EXPIRED
    await api.wait_until(lambda: api.buttons(picker) == [], timeout=5)
