"""Each chat counts its own games (1, 2, 3…): what their tables call them."""

from __future__ import annotations

from bot.services.types import ChatRef
from bot.storage.database import Database
from tests.services.helpers import GROUP, at_table, make_services, person
from tests.services.test_boards import finish_game, play_game

ANNA, BORIS = person(1, "Anna"), person(2, "Boris")
OTHER_GROUP = ChatRef(-100456, "supergroup", "Another club")
TOPIC = ChatRef(GROUP.chat_id, GROUP.kind, GROUP.title, topic_id=77)


async def test_games_are_numbered_per_chat_across_its_topics_and_rematches(db: Database) -> None:
    services = make_services(db)
    first = await play_game(services, [ANNA, BORIS], [1, 2])
    elsewhere = await services.lobby.open(OTHER_GROUP, BORIS, "rank")
    in_a_topic = await services.lobby.open(TOPIC, ANNA, "rank")
    rematch = await services.lobby.rematch(first, ANNA, at_table(GROUP))
    assert (elsewhere.game_id, elsewhere.number) == (2, 1)
    assert (in_a_topic.game_id, in_a_topic.number) == (3, 2)
    assert (rematch.game_id, rematch.number) == (4, 3)
    # The number stays the game's through its life.
    await services.lobby.join(rematch.game_id, BORIS, at_table(rematch))
    assert (await services.play.snapshot(rematch.game_id)).number == 3
    await finish_game(services, rematch.game_id, [2, 1])
    assert (await services.play.snapshot(rematch.game_id)).number == 3


async def test_a_group_that_became_a_supergroup_goes_on_counting(db: Database) -> None:
    services = make_services(db)
    group = ChatRef(-4001, "group", "Card club")
    supergroup = ChatRef(-1004001, "supergroup", "Card club")
    for _ in range(2):
        await services.lobby.open(group, ANNA, "rank")
        await services.lobby.cancel_in_topic(group, ANNA)
    # Someone opened a game in the supergroup before the bot heard of the move.
    early = await services.lobby.open(supergroup, BORIS, "rank")
    assert early.number == 1
    await services.lobby.chat_moved(group.chat_id, supergroup.chat_id)
    assert (await services.play.snapshot(early.game_id)).number == 3
    await services.lobby.cancel_in_topic(supergroup, BORIS)
    assert (await services.lobby.open(supergroup, ANNA, "rank")).number == 4
