"""One outcome, told the same way everywhere (issue #35, items 3, 8 and 9).

A game everyone was away from at the end is a loss for each: the table, the result message,
each panel, the ratings and ``/stats`` say so alike. A finished game keeps its rating lines
when it is shown again (a Rematch republishes its table and panels), ``/stats`` marks a
provisional rating as the boards do, and ``/history`` in a private chat lists the person's own
games wherever he played them.
"""

from __future__ import annotations

import re

from tests.e2e.harness import Harness
from tests.e2e.test_absent_players import play_a_little, two_player_game
from tests.e2e.test_boards import Club, club  # noqa: F401  (the fixture)
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press
from tests.fakes import FakeChat, FakeMessage


def result_messages(h: Harness, group: FakeChat) -> list[FakeMessage]:
    return [m for m in h.api.bot_messages(group) if "is over" in (m.text or "")]


async def test_everyone_away_is_a_loss_for_each_on_every_page(harness: Harness) -> None:
    h = harness
    anna, boris, group = await two_player_game(h)
    await play_a_little(h, [anna, boris])
    for _ in range(8):
        await h.tick(61)
        if "Everyone is away" in h.table(group).text:
            break
    table = h.table(group)
    assert "Everyone is away: the game ends here — a loss for each person in it." in table.text
    (result,) = result_messages(h, group)
    for text in (table.text, result.text):
        # Nobody won: no gold, no draw, no tie — the loss the log line speaks of.
        assert "🏳 Nobody won: nobody stayed to the end, so it is a loss for each." in text
        assert "🥇" not in text and "draw" not in text and "Tied" not in text, text
        assert "🥈 Anna 💤" in text and "🥈 Boris 💤" in text, text
        assert "1000? (±0)" in text, "a loss raises no rating, and the mark stays"
    for player in (anna, boris):
        panel = h.panel(player)
        assert panel is not None
        assert "you finished 2 of 2" in panel.text, panel.text
        assert "a loss for each, you included" in panel.text
        assert "Your rating in this game: 1000 → 1000? (±0)" in panel.text

    stats = await say(h, boris, None, "/stats")
    assert "rating 1000?" in stats, "provisional, as on the table and the boards"
    assert "1 game · 0 wins · 0 draws · 1 loss" in stats, stats

    # A Rematch republishes the old game (its button goes): its rating lines stay.
    old_table = table.message_id
    await press(h, anna, table, "🔄 Rematch")
    again = h.api.message(group, old_table).text
    assert "🔄 Rematch" not in str(h.api.buttons(h.api.message(group, old_table)))
    assert "1000? (±0)" in again and "🏳 Nobody won" in again, again
    for player in (anna, boris):
        panels = [m for m in h.api.bot_messages(player) if "Game over" in (m.text or "")]
        assert panels and all("Your rating in this game" in m.text for m in panels)


async def test_history_in_a_private_chat_lists_his_own_games_wherever_played(
    club: Club,  # noqa: F811
) -> None:
    api = club.api
    anna, boris, clara, _ = club.people
    await club.seed([anna, boris], [1, 2], moves=2)
    elsewhere = api.add_group("Elsewhere", admins=[clara], members=[anna])
    await club.seed([clara, anna], [1, 2], chat=elsewhere, moves=2)
    not_hers = await club.seed([boris, clara], [1, 2], chat=elsewhere)

    listing = await club.say(anna, "/history", private=True)
    assert "Your last games" in listing.text, listing.text
    assert "1. Rank" in listing.text and "2. Rank" in listing.text and "3." not in listing.text
    assert "🥇 Clara" in listing.text and "🥇 Anna" in listing.text
    assert club.labels(listing) == ["1", "2"]

    # Each opens its summary (a game of either group), and the list comes back.
    await club.press(anna, listing, "2")
    summary = club.current(listing, anna)
    assert "Game over" in summary.text and "🥇 Anna" in summary.text, summary.text
    # Who moved depends on the deal: the seats, in their order, say which game it is.
    assert re.search(r"Anna: \d moves? · Boris: \d moves?", summary.text), summary.text
    assert "Rating where it was played: 🥇 Anna +" in summary.text
    await club.press(anna, summary, "↩️ Back to the list")
    await club.press(anna, club.current(listing, anna), "1")
    summary = club.current(listing, anna)
    assert re.search(r"Clara: \d moves? · Anna: \d moves?", summary.text), summary.text
    assert "🥇 Clara" in summary.text

    # A game she did not sit in is refused, even in her own chat.
    forged = await api.press_data(anna, anna, listing.message_id, f"Y:{not_hers}")
    await api.wait_until(lambda: forged.answered)
    assert forged.text == "That game is not in this chat's history."

    nobody = await club.say(club.people[3], "/history", private=True)
    assert nobody.text == "None of your games has finished yet."
