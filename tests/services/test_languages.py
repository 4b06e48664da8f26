"""Which language the bot speaks, and who may change it."""

from __future__ import annotations

import pytest

from bot.services.languages import LanguageService
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
