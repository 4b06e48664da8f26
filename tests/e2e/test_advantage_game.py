"""Whole games of Advantage through the real bot and the fake Bot API, as players see them.

Besides playing to the end, every step checks the promise of hidden cards: a card drawn from
the stock is seen by its owner only, until it is played — it never appears in the group nor
in the other player's DM before that. The truth about who holds which hidden card comes from
the stored game state.

Set ``ADVANTAGE_TRANSCRIPT=/path/file.txt`` to write the two-player game, step by step, as
the group and both players see it.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path
from random import Random

from tests.e2e.harness import Harness
from tests.fakes import FakeCallback, FakeChat, FakeMessage, FakeUser, render_message

SUITS = {"s": "♠", "h": "♥️", "d": "♦️", "c": "♣"}
HIDDEN_LINE = re.compile(r"^🔒 Only you see: (.+)$", re.MULTILINE)


async def press(h: Harness, user: FakeUser, message: object, button: str) -> FakeCallback:
    callback = await h.api.press(user, message, button)  # type: ignore[arg-type]
    await h.api.wait_until(lambda: callback.answered, timeout=10)
    await h.settle()
    return callback


def label(code: str) -> str:
    """How the bot writes a card code: ``Th`` → ``10♥️``."""
    return code[:-1].replace("T", "10") + SUITS[code[-1]]


def stored_hidden(h: Harness, game_id: int) -> list[set[str]]:
    """Each seat's hidden cards (as labels) in the stored state: the ground truth."""
    path = h.database_url.removeprefix("sqlite+aiosqlite:///")
    with sqlite3.connect(path) as db:
        (state,) = db.execute("SELECT state FROM games WHERE id = ?", (game_id,)).fetchone()
    return [{label(code) for code in hand} for hand in json.loads(state)["private"]]


def every_version(messages: list[FakeMessage]) -> list[str]:
    texts = []
    for message in messages:
        texts += [v.text or "" for v in message.history]
        texts.append(message.text or "")
    return texts


def game_number(h: Harness, group: FakeChat) -> int:
    match = re.search(r"game (\d+)", h.table(group).text)
    assert match is not None
    return int(match.group(1))


class Watch:
    """Checks, after every step, that no hidden card has ever been shown to anyone else."""

    def __init__(self, h: Harness, group: FakeChat, players: list[FakeUser | None]) -> None:
        self.h, self.group, self.players = h, group, players
        self.game_id = game_number(h, group)
        self.checks = 0
        self.hidden_seen = 0

    def check(self) -> None:
        h = self.h
        before = stored_hidden(h, self.game_id)
        group_texts = every_version(h.api.bot_messages(self.group))
        dm_texts = [
            every_version(h.api.bot_messages(user)) if user is not None else []
            for user in self.players
        ]
        # A card hidden both before and after the look was hidden all along: never shown.
        after = stored_hidden(h, self.game_id)
        # While a person is to move nothing changes by itself: the panels are up to date.
        steady = any(user is not None and h.panel_buttons(user) for user in self.players)
        for seat, user in enumerate(self.players):
            hidden = before[seat] & after[seat]
            self.hidden_seen += len(hidden)
            others = [text for s, texts in enumerate(dm_texts) if s != seat for text in texts]
            for card in hidden:
                assert not any(card in text for text in group_texts), (card, "group")
                assert not any(card in text for text in others), (card, "other DM")
            if user is not None:
                # The owner's panel lists exactly his hidden cards, marked 🔒.
                panel = h.panel(user)
                assert panel is not None
                found = HIDDEN_LINE.search(panel.text)
                shown = set(found.group(1).split()) if found else set()
                if steady and before[seat] == after[seat]:
                    assert shown == after[seat], (shown, after[seat])
        self.checks += 1


async def take_turn(
    h: Harness, user: FakeUser, rng: Random, log: list[str], transcript: list[str]
) -> None:
    """A simple player: any button of the panel; a card that opens a pile picker, then a pile."""
    buttons = h.panel_buttons(user)
    text, data = rng.choice(buttons)
    await press(h, user, h.panel(user), text)
    log.append(f"{user.first_name} pressed [{text}]")
    if data.startswith("U:"):
        screen = h.panel_buttons(user)
        assert screen[-1][0] == "↩️ Back", screen
        panel = h.panel(user)
        assert panel is not None and "Which pile" in panel.text
        title = f"===== {user.first_name} pressed [{text}]: the pile picker in his DM"
        transcript += [title, *render_message(panel)]
        pile, _ = rng.choice(screen[:-1])
        await press(h, user, h.panel(user), pile)
        log.append(f"{user.first_name} pressed [{pile}]")


def save_transcript(lines: list[str]) -> None:
    target = os.environ.get("ADVANTAGE_TRANSCRIPT")
    if target:
        Path(target).write_text("\n".join(lines) + "\n", encoding="utf-8")


def frame(h: Harness, group: FakeChat, humans: list[FakeUser], title: str) -> list[str]:
    lines = [f"===== {title}", "--- group"]
    lines += render_message(h.table(group))
    for user in humans:
        panel = h.panel(user)
        if panel is not None:
            lines += [f"--- DM {user.first_name}", *render_message(panel)]
    return lines


async def play_to_the_end(
    h: Harness, group: FakeChat, humans: list[FakeUser], watch: Watch, seed: int
) -> list[str]:
    """Humans press buttons as long as they have any; computers move when time passes."""
    rng = Random(seed)
    transcript = frame(h, group, humans, "the deal")
    for _ in range(600):
        if "Game over" in h.table(group).text:
            return transcript
        log: list[str] = []
        for user in humans:
            if h.panel_buttons(user):
                await take_turn(h, user, rng, log, transcript)
        if not log:
            await h.tick(1.5)  # a computer's pause passes
            log.append("time passes: the computer moves")
        watch.check()
        transcript += frame(h, group, humans, "; ".join(log))
    raise AssertionError("the game did not end")


async def open_game(
    h: Harness, group: FakeChat, anna: FakeUser, boris: FakeUser | None, strict: bool = False
) -> FakeMessage:
    await h.api.send_text(anna, group, "/new advantage")
    await h.api.wait_until(lambda: bool(h.api.bot_messages(group)))
    await h.settle()
    lobby = h.table(group)
    assert "Advantage" in lobby.text and "1. Anna" in lobby.text
    if boris is not None:
        await press(h, boris, lobby, "✋ Join")
    else:
        await press(h, anna, lobby, "🤖 Add computer")
    if strict:
        await press(h, anna, h.table(group), "🎨 Strict colours: off")
        assert "🎨 Strict colours: on" in h.table(group).text
    await press(h, anna, h.table(group), "▶️ Start")
    table = h.table(group)
    assert table.message_id == lobby.message_id, "the lobby message becomes the table"
    return table


def assert_finished(h: Harness, group: FakeChat, humans: list[FakeUser]) -> None:
    final = h.table(group)
    assert "🏁 Game over" in final.text
    assert "🥇" in final.text
    assert "wins: pairs" in final.text or "A draw: pairs" in final.text
    assert "🔄 Rematch" in [text for row in h.api.buttons(final) for text, _ in row]
    for user in humans:
        panel = h.panel(user)
        assert panel is not None and "Game over — you finished" in panel.text
        assert h.panel_buttons(user) == []
    assert h.api.unanswered_callbacks() == []
    group_text = "\n".join(every_version(h.api.bot_messages(group)))
    assert "Your hand" not in group_text and "Only you see" not in group_text
    assert "You drew" not in group_text


async def test_two_people_play_a_whole_game(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    table = await open_game(h, group, anna, boris)
    assert "🔁 Cycle 1 · ⬇️ Drop phase" in table.text
    assert "🂠 Stock: 43 cards" in table.text
    assert table.text.count("· 1 card") == 3, "three piles of one card each"
    for user in (anna, boris):
        panel = h.panel(user)
        assert panel is not None and "Your hand" in panel.text
    mover = anna if h.panel_buttons(anna) else boris
    waiter = boris if mover is anna else anna
    assert f"{mover.first_name} drops a card on a pile, if one fits." in table.text
    assert "Your move" in (h.panel(mover) or table).text
    assert "Not your turn" in (h.panel(waiter) or table).text

    watch = Watch(h, group, [anna, boris])
    watch.check()
    transcript = await play_to_the_end(h, group, [anna, boris], watch, seed=4)
    assert watch.checks > 10 and watch.hidden_seen > 0
    assert_finished(h, group, [anna, boris])
    assert "last cycles:" in "\n".join(every_version(api.bot_messages(group)))
    save_transcript(transcript)


async def test_one_person_plays_a_computer_to_the_end(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    table = await open_game(h, group, anna, None, strict=True)
    assert "🤖 Computer 1" in table.text
    watch = Watch(h, group, [anna, None])
    watch.check()
    await play_to_the_end(h, group, [anna], watch, seed=11)
    assert watch.hidden_seen > 0
    assert_finished(h, group, [anna])
    results = h.table(group).text.split("Game over")[1]
    assert "Anna" in results and "🤖 Computer 1" in results


async def test_the_bot_plays_for_an_absent_player(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await open_game(h, group, anna, boris)
    mover = "Anna" if h.panel_buttons(anna) else "Boris"
    await h.tick(61)
    table = h.table(group).text
    assert f"⏰ {mover} ran out of time" in table
    # The drop phase default dropped or drew, and the other player is to move now.
    other = "Boris" if mover == "Anna" else "Anna"
    assert f"To move: {other}" in table
    assert api.unanswered_callbacks() == []
