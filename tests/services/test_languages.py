"""Which language the bot speaks, and who may change it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import cast

import pytest

from bot.services.languages import REMEMBERED, LanguageService
from bot.services.types import Actor, ChatRef, ServiceError
from bot.storage.database import Database
from tests.services.helpers import GROUP, FakeRights, make_services, person


async def test_a_user_is_answered_in_his_app_language_when_we_speak_it(db: Database) -> None:
    languages = LanguageService(db, FakeRights())
    assert await languages.for_user(Actor(1, "Anna", None, "en-GB")) == "en"
    assert await languages.for_user(Actor(2, "Zoe", None, "xx")) == "en"
    assert await languages.for_user(Actor(3, "Nobody", None, None)) == "en"


async def test_a_group_adopts_the_language_of_who_brought_the_bot(db: Database) -> None:
    languages = LanguageService(db, FakeRights())
    await languages.adopt(GROUP, Actor(1, "Anna", None, "en"))
    assert await languages.for_chat(GROUP, Actor(2, "Boris", None, "xx")) == "en"


async def test_only_an_admin_or_the_lobby_creator_sets_a_groups_language(db: Database) -> None:
    services = make_services(db)
    languages = LanguageService(db, services.rights)
    anna, boris = person(1, "Anna"), person(2, "Boris")
    with pytest.raises(ServiceError) as refused:
        await languages.choose(GROUP, boris, "en")
    assert refused.value.code == "language.admin_only"
    services.rights.admins.add((GROUP.chat_id, boris.user_id))
    assert await languages.choose(GROUP, boris, "en") == "en"
    await services.lobby.open(GROUP, anna, "rank")
    assert await languages.choose(GROUP, anna, "en") == "en"
    with pytest.raises(ServiceError) as unknown:
        await languages.choose(GROUP, anna, "tlh")
    assert unknown.value.code == "language.unknown"


async def test_in_a_private_chat_a_user_sets_his_own_language(db: Database) -> None:
    languages = LanguageService(db, FakeRights())
    anna = Actor(1, "Anna", None, "xx")
    dm = ChatRef(1, "private")
    assert await languages.choose(dm, anna, "en") == "en"
    assert await LanguageService(db, FakeRights()).for_user(anna) == "en", "the choice is stored"


class _NoRows:
    async def get(self, *_key: object) -> None:
        return None


class CountingDatabase:
    """Stands in for the database where nobody has chosen a language; counts the reads."""

    def __init__(self) -> None:
        self.reads = 0

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_NoRows]:
        self.reads += 1
        yield _NoRows()


async def test_the_languages_remembered_stay_bounded_and_the_recent_ones_kept() -> None:
    """100,000 people and 100,000 groups: memory holds the most recent of them, which are
    answered without asking the database again."""
    database = CountingDatabase()
    languages = LanguageService(cast(Database, database), FakeRights())
    for n in range(1, 100_001):
        assert await languages.for_user(Actor(n, "P", None, "ru")) == "ru"
        assert await languages.for_chat(ChatRef(-n, "group"), None) == "en"
        assert len(languages._users) <= REMEMBERED
        assert len(languages._chats) <= REMEMBERED
    reads = database.reads
    assert await languages.for_user(Actor(100_000, "P", None, "uk")) == "uk"
    assert await languages.for_chat(ChatRef(-100_000, "group"), None) == "en"
    assert database.reads == reads, "the recent ones are remembered"
    assert await languages.for_user(Actor(1, "P", None, "uk")) == "uk"
    assert database.reads == reads + 1, "the first one was forgotten: read again"


async def test_a_forgotten_choice_is_read_again_from_the_database(db: Database) -> None:
    rights = FakeRights()
    languages = LanguageService(db, rights, remembered=2)
    anna = Actor(1, "Anna", None, "en")
    assert await languages.choose(ChatRef(1, "private"), anna, "ru") == "ru"
    rights.admins.add((GROUP.chat_id, anna.user_id))
    assert await languages.choose(GROUP, anna, "uk") == "uk"
    for n in range(2, 6):
        await languages.for_user(Actor(n, "P", None, "en"))
        await languages.for_chat(ChatRef(-n, "group"), None)
    assert 1 not in languages._users and GROUP.chat_id not in languages._chats
    assert await languages.for_user(Actor(1, "Anna", None, "en")) == "ru"
    assert await languages.for_chat(GROUP, None) == "uk"
