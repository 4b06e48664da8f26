"""What the sender remembers by chat or by user stays bounded however many chats it has seen:
the newest message of each chat, whether it may pin there, who pressed lately, which chats'
drops were logged."""

from __future__ import annotations

from bot.telegram.metrics import REGISTRY
from bot.telegram.sender.budget import CallBudget
from bot.telegram.sender.notes import TOLD, Note, Notes, message_call
from bot.telegram.sender.pings import PRESSERS, Pings
from bot.telegram.sender.pins import GROUPS, Pins
from bot.telegram.sender.sight import CHATS, Sight
from bot.telegram.sender.slots import Slot

MANY = 100_000


async def test_the_newest_message_of_a_hundred_thousand_chats_stays_bounded() -> None:
    sight = Sight()
    for chat in range(1, MANY + 1):
        sight.seen(-chat, None, 10)
    assert len(sight._latest) == CHATS
    # The chats heard of lately are still known: a table there under five messages is buried.
    table = Slot(1, None, -MANY, None, False, message_id=4)
    sight.seen(-MANY, None, 9)
    assert sight.under(table)


async def test_pinning_rights_and_presses_of_a_hundred_thousand_chats_stay_bounded() -> None:
    pins = Pins(Notes(object(), CallBudget()))  # type: ignore[arg-type]
    pings = Pings(lambda: 0.0)
    for n in range(1, MANY + 1):
        pins.may_pin(-n, n % 2 == 0)
        pings.pressed(n)
    assert len(pins._may_pin) == GROUPS and len(pings._pressed) == PRESSERS
    assert pins.allowed(-MANY, ask=False) and not pins.allowed(-(MANY - 1), ask=False)
    assert pings.pressed_since(MANY, 0.0)


async def test_chats_whose_drops_were_logged_stay_bounded() -> None:
    notes = Notes(object(), CallBudget())  # type: ignore[arg-type]
    for chat in range(1, MANY + 1):
        notes._drop(Note(-chat, message_call(-chat, "old news")), "out of time")
    assert len(notes._told) == TOLD and notes.dropped == MANY


async def test_a_message_given_up_is_counted_for_the_operator() -> None:
    notes = Notes(object(), CallBudget())  # type: ignore[arg-type]
    labels = {"why": "dropped"}
    before = REGISTRY.get_sample_value("cardroom_messages_given_up_total", labels) or 0.0
    notes._drop(Note(-1, message_call(-1, "old news")), "out of time")
    after = REGISTRY.get_sample_value("cardroom_messages_given_up_total", labels)
    assert after == before + 1
