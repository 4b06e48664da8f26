"""Leaving never pays, through the bot: a player ahead who blocks it, or lets the computer take
his seat, does not bank the win.

Two people play Rank in a group until the standings have a sole leader; then he leaves. Where
a test needs the game to end by the cards with the computer having won it for him, the end is
forced through the game store with that final state (the computer's own play would make the
test a coin toss) and the bot shows the table as it shows any finished game.
"""

from __future__ import annotations

from typing import Any

from bot.services.games import GameStore
from bot.services.play import PlayService
from bot.services.stats import GameStats
from tests.e2e.harness import Harness
from tests.e2e.test_absent_players import two_player_game
from tests.e2e.test_rank_game import press
from tests.fakes import FakeChat, FakeUser
from tests.services.test_boards import rank_places_state

MEDALS = {"🥇": 1, "🥈": 2, "🥉": 3}


def room(h: Harness) -> Any:
    assert h.app is not None
    return h.app.bot_data["cardroom"]


async def game_id(h: Harness, group: FakeChat) -> int:
    shown = await room(h).play.snapshot_in_topic(group.id, 0)
    assert shown is not None
    return int(shown.game_id)


async def sole_leader(h: Harness, game: int) -> int | None:
    """The seat the standings put first alone, if any (what a referee would say now)."""
    play: PlayService = room(h).play
    async with play.db.transaction() as session:
        loaded = await play.store.load(session, game)
        standings = loaded.rules.standings(loaded.rules.load(loaded.row.state or {}))
    if standings is None or standings.places.count(1) != 1:
        return None
    return standings.places.index(1)


def actions(h: Harness, user: FakeUser) -> list[str]:
    return [label for label, data in h.panel_buttons(user) if data.startswith("A:")]


async def play_until_someone_leads(h: Harness, group: FakeChat, players: list[FakeUser]) -> int:
    """Both play their first move until one of them leads alone; his seat."""
    game = await game_id(h, group)
    for _ in range(12):
        seat = await sole_leader(h, game)
        if seat is not None:
            return seat
        mover = next(p for p in players if actions(h, p))
        await press(h, mover, h.panel(mover), actions(h, mover)[0])
    raise AssertionError("nobody took the lead")


async def play_on_without(h: Harness, group: FakeChat, stayer: FakeUser, leaver: str) -> None:
    """The one who stayed makes three moves against the computer in the leaver's seat."""
    moves = 0
    for _ in range(30):
        # Marked 🚪 when he left (blocked the bot), 💤 when he only missed his turns.
        away = any(f"{leaver} {mark}" in h.table(group).text for mark in ("🚪", "💤"))
        if (away and moves >= 3) or "Game over" in h.table(group).text:
            return
        if actions(h, stayer):
            await press(h, stayer, h.panel(stayer), actions(h, stayer)[0])
            moves += 1
        else:
            # The computer's pause, or (not yet seen to be away) the leaver's turn running out.
            await h.tick(2 if away else 61)
    raise AssertionError("the game did not go on without the leaver")


async def computer_wins_for(h: Harness, group: FakeChat, seat: int) -> None:
    """The game ends by the cards, the computer in ``seat`` having gone out first."""
    play: PlayService = room(h).play
    store: GameStore = play.store
    if await play.snapshot_in_topic(group.id, 0) is None:
        return  # it ended by itself meanwhile (the seed is random): the leaver left anyway
    game = await game_id(h, group)
    async with play.locks.hold(game), play.db.transaction() as session:
        loaded = await store.load(session, game, lock=True)
        places = [2, 2]
        places[seat] = 1
        final = rank_places_state(loaded.rules.load(loaded.row.state or {}), places)
        assert loaded.rules.outcome(final).places[seat] == 1, "by the cards, he won"
        snapshot = await store.commit_step(
            loaded, final, (), seat=seat, source="computer", action=None, now=store.clock()
        )
    room(h).publisher.publish(snapshot)
    await h.settle()


def places_shown(h: Harness, group: FakeChat) -> dict[str, int]:
    """The places the finished table lists: name → place."""
    text = h.table(group).text
    assert "Game over" in text, text
    shown = {}
    for line in text.splitlines():
        medal, _, name = line.partition(" ")
        if medal in MEDALS:
            # "Boris 💤 — 12 points · rating 927 (−73)": the name comes first.
            name = name.split(" · ")[0].split(" — ")[0]
            shown[name.replace(" 💤", "").replace(" 🚪", "")] = MEDALS[medal]
    return shown


async def rank_record(h: Harness, user: FakeUser) -> GameStats:
    (stats,) = (await room(h).stats.player(user.id)).games
    return stats


async def the_leader_blocks_the_bot(h: Harness) -> tuple[FakeChat, int, FakeUser, FakeUser]:
    """Two play until one leads alone; he blocks the bot, the other plays on a little: the
    group, the leader's seat, the leader and the other."""
    anna, boris, group = await two_player_game(h)
    players = [anna, boris]
    ahead = await play_until_someone_leads(h, group, players)
    banker, other = players[ahead], players[1 - ahead]
    await h.api.block_bot(banker)
    await play_on_without(h, group, other, banker.first_name)
    return group, ahead, banker, other


async def test_blocking_the_bot_while_ahead_loses_to_the_one_who_stayed(
    harness: Harness,
) -> None:
    h = harness
    group, ahead, banker, stayer = await the_leader_blocks_the_bot(h)
    await computer_wins_for(h, group, ahead)

    assert places_shown(h, group) == {stayer.first_name: 1, banker.first_name: 2}
    panel = h.panel(stayer)
    assert panel is not None and "you finished 1 of 2" in panel.text
    lost, won = await rank_record(h, banker), await rank_record(h, stayer)
    assert (lost.wins, lost.losses) == (0, 1)
    assert lost.rating < 1000 < won.rating, "a newcomer's 1000 only falls by leaving"


async def test_blocking_the_bot_while_ahead_then_everyone_going_banks_nothing(
    harness: Harness,
) -> None:
    h = harness
    group, _ahead, banker, other = await the_leader_blocks_the_bot(h)
    players = [banker, other]
    # Now the other stops too: his turns time out until the computer has both seats.
    for _ in range(8):
        if "Everyone is away" in h.table(group).text or "Game over" in h.table(group).text:
            break
        await h.tick(61)
    if "Everyone is away" not in h.table(group).text:
        # The computer in the leader's seat played his cards out before the other's turns ran
        # out (the deal is random): he still ranks below the one who stayed to the end.
        shown = places_shown(h, group)
        assert shown[banker.first_name] > shown[other.first_name], shown
        record = await rank_record(h, banker)
        assert record.rating <= 1000, f"{banker.first_name} gained {record.rating - 1000}"
        return
    assert "Everyone is away: the game ends here" in h.table(group).text

    shown = places_shown(h, group)
    assert shown[banker.first_name] >= shown[other.first_name], shown
    assert shown[banker.first_name] == shown[other.first_name], "both left: tied"
    for player in players:
        record = await rank_record(h, player)
        assert (record.wins, record.draws, record.losses) == (0, 0, 1), player.first_name
        assert record.rating <= 1000, f"{player.first_name} gained {record.rating - 1000}"


async def test_missing_a_turn_while_ahead_with_the_computer_after_one_banks_nothing(
    harness: Harness,
) -> None:
    h = harness
    anna, boris = h.api.add_user("Anna"), h.api.add_user("Boris")
    group = h.api.add_group("Card club", admins=[anna], members=[boris])
    await h.api.send_text(anna, group, "/new rank")
    await h.api.wait_until(lambda: bool(h.api.bot_messages(group)))
    await h.settle()
    await press(h, boris, h.table(group), "✋ Join")
    for _ in range(4):
        if "computer after 1 missed" in h.table(group).text:
            break
        option = next(
            label
            for row in h.api.buttons(h.table(group))
            for label, _data in row
            if "computer after" in label
        )
        await press(h, anna, h.table(group), option)
    assert "😴 computer after 1 missed" in h.table(group).text
    await press(h, anna, h.table(group), "▶️ Start")
    players = [anna, boris]
    ahead = await play_until_someone_leads(h, group, players)
    banker, stayer = players[ahead], players[1 - ahead]

    # The leader stops pressing: his turn runs out once, and the computer takes his seat.
    for _ in range(4):
        if f"{banker.first_name} 💤" in h.table(group).text:
            break
        if actions(h, stayer):
            await press(h, stayer, h.panel(stayer), actions(h, stayer)[0])
        else:
            await h.tick(61)
    assert f"{banker.first_name} 💤" in h.table(group).text
    await play_on_without(h, group, stayer, banker.first_name)
    await computer_wins_for(h, group, ahead)

    assert places_shown(h, group) == {stayer.first_name: 1, banker.first_name: 2}
    panel = h.panel(banker)
    assert panel is not None and "you finished 2 of 2" in panel.text
    lost = await rank_record(h, banker)
    assert (lost.wins, lost.losses) == (0, 1) and lost.rating < 1000
