"""Every language the bot offers says everything English says, correctly formed.

A language is offered the moment its folder exists, so these tests run over every folder
(``SUPPORTED_LANGUAGES``): no message missing or empty, the same ``{placeholders}``, Telegram
HTML that stays valid, commands left untranslated, and plural forms right for 1, 2, 5 and 21.
The rules for choosing a language (a group's, a user's, the fallback to English, who may
change a group's) are checked on :class:`~bot.services.languages.LanguageService`.
"""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Catalog

from bot.i18n import DEFAULT_LANGUAGE, LOCALES, SUPPORTED_LANGUAGES, read_catalog, translator
from bot.i18n.check import compare, placeholders
from bot.services.languages import LanguageService
from bot.services.types import Actor, ChatRef, ServiceError
from bot.storage.database import Database
from tests.services.helpers import GROUP, FakeRights, make_services

TRANSLATED = [lang for lang in SUPPORTED_LANGUAGES if lang != DEFAULT_LANGUAGE]

#: The three-form rule of Russian, Ukrainian and Croatian (the header every .po must carry).
SLAVIC_PLURAL = (
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
    "(n%100<10 || n%100>=20) ? 1 : 2);"
)

#: "n cards" for 1, 2, 5 and 21, per language (a language without a folder yet is skipped).
CARDS = {
    "en": ("1 card", "2 cards", "5 cards", "21 cards"),
    "ru": ("1 карта", "2 карты", "5 карт", "21 карта"),
    "uk": ("1 карта", "2 карти", "5 карт", "21 карта"),
    "hr": ("1 karta", "2 karte", "5 karata", "21 karta"),
}

_TAG = re.compile(r"<(/?)([a-z]+)(?:\s[^<>]*)?>")
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#\d+);")
_COMMAND = re.compile(r"(?<![\w/<])/[a-z]+\b")
TELEGRAM_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre", "a"}


def _texts(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    texts = {}
    for message in catalog:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
        raw = message.string
        strings = raw if isinstance(raw, (tuple, list)) else (raw,)
        texts[str(key)] = tuple(str(text or "") for text in strings)
    return texts


ENGLISH = _texts(read_catalog(DEFAULT_LANGUAGE))


def html_problems(text: str) -> list[str]:
    """What would make Telegram refuse ``text`` as HTML: unknown or unbalanced tags, bare < &."""
    problems = []
    open_tags: list[str] = []
    for match in _TAG.finditer(text):
        closing, name = match.groups()
        if name not in TELEGRAM_TAGS:
            problems.append(f"unknown tag <{name}>")
        elif not closing:
            open_tags.append(name)
        elif not open_tags or open_tags.pop() != name:
            problems.append(f"unbalanced </{name}>")
    problems += [f"unclosed <{name}>" for name in open_tags]
    bare = _TAG.sub("", text)
    if "<" in bare or ">" in bare:
        problems.append("bare < or > (write &lt; &gt;)")
    if "&" in _ENTITY.sub("", bare):
        problems.append("bare & (write &amp;)")
    return problems


def test_every_folder_is_a_language_we_offer() -> None:
    folders = {p.name for p in LOCALES.iterdir() if (p / "LC_MESSAGES").is_dir()}
    assert set(SUPPORTED_LANGUAGES) == folders
    assert SUPPORTED_LANGUAGES[0] == DEFAULT_LANGUAGE
    assert "ru" in SUPPORTED_LANGUAGES


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_there_and_not_empty(language: str) -> None:
    report = compare(language)
    assert report.missing == [], f"{language} lacks these messages"
    assert report.extra == [], f"{language} has messages English no longer has"
    assert report.empty == [], f"{language} has empty messages"
    assert report.placeholders == [], f"{language} changes placeholders"
    assert report.ok


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_language_has_the_same_files_as_english(language: str) -> None:
    english = {p.name for p in (LOCALES / DEFAULT_LANGUAGE / "LC_MESSAGES").glob("*.po")}
    assert {p.name for p in (LOCALES / language / "LC_MESSAGES").glob("*.po")} == english


@pytest.mark.parametrize("language", TRANSLATED)
def test_placeholders_are_kept_and_every_text_formats(language: str) -> None:
    wrong = []
    for key, texts in _texts(read_catalog(language)).items():
        if key not in ENGLISH:
            continue
        wanted = set().union(*(placeholders(t) for t in ENGLISH[key]))
        plural = len(ENGLISH[key]) > 1
        for text in texts:
            found = placeholders(text)
            # A plural form may say "one card" without {n}; nothing else may differ.
            if found != wanted and not (plural and found == wanted - {"n"}):
                wrong.append(f"{key}: {sorted(found)} instead of {sorted(wanted)}")
            try:
                text.format(**{name: "x" for name in wanted | {"n"}})
            except (KeyError, IndexError, ValueError) as error:
                wrong.append(f"{key}: does not format ({error!r})")
    assert wrong == []


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_markup_is_valid_telegram_html(language: str) -> None:
    wrong = [
        f"{key}: {problem}"
        for key, texts in _texts(read_catalog(language)).items()
        for text in texts
        for problem in html_problems(text)
    ]
    assert wrong == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_commands_and_game_keys_are_not_translated(language: str) -> None:
    """ "/new rank" is typed by players: commands stay as they are in every language."""
    translated = _texts(read_catalog(language))
    wrong = []
    for key, texts in ENGLISH.items():
        commands = set(_COMMAND.findall(" ".join(texts)))
        for text in translated.get(key, ()):
            lost = commands - set(_COMMAND.findall(text))
            if lost:
                wrong.append(f"{key}: {sorted(lost)}")
    assert wrong == []


@pytest.mark.parametrize("language", ["ru", "uk", "hr"])
def test_plural_rule_in_the_header(language: str) -> None:
    if not (LOCALES / language / "LC_MESSAGES").is_dir():
        pytest.skip(f"no {language} catalog yet")
    for path in sorted((LOCALES / language / "LC_MESSAGES").glob("*.po")):
        header = "".join(re.findall(r'^"(.*)"$', path.read_text(), re.MULTILINE)[:20])
        assert f"Plural-Forms: {SLAVIC_PLURAL}" in header.replace("\\n", "\n"), path.name
        assert f"Language: {language}\\n" in header, path.name
    rule = translator(language)._translations.plural  # type: ignore[attr-defined]
    for n in range(300):
        form = (
            0
            if n % 10 == 1 and n % 100 != 11
            else (1 if 2 <= n % 10 <= 4 and not 10 <= n % 100 < 20 else 2)
        )
        assert rule(n) == form, n


@pytest.mark.parametrize("language", sorted(set(SUPPORTED_LANGUAGES) | set(CARDS)))
def test_plural_forms_for_1_2_5_and_21(language: str) -> None:
    if language not in SUPPORTED_LANGUAGES:
        pytest.skip(f"no {language} catalog yet")
    if language not in CARDS:
        pytest.skip(f"no expected forms written down for {language}")
    t = translator(language)
    assert t.language == language
    assert tuple(t.plural("rank.cards", n) for n in (1, 2, 5, 21)) == CARDS[language]


def test_russian_words() -> None:
    t = translator("ru")
    assert [t(f"card.rank.{r}") for r in (10, 11, 12, 13, 14)] == ["10", "В", "Д", "К", "Т"]
    assert [t.plural("count.games", n) for n in (1, 3, 11, 22)] == [
        "1 игра",
        "3 игры",
        "11 игр",
        "22 игры",
    ]
    assert t.plural("trumps.button_take", 1) == "📥 Взять 1 карту"
    assert t.plural("trumps.button_take", 5) == "📥 Взять 5 карт"
    assert t("game.trumps.name") == "Свои козыри"
    assert t("language.name") == "Русский"
    assert "сдатчик" in t("rules.rank") and "джокер" in t("rules.rank")


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_each_language_names_itself_and_says_so(language: str) -> None:
    t = translator(language)
    assert t.language == language
    names = {translator(other)("language.name") for other in SUPPORTED_LANGUAGES}
    assert len(names) == len(SUPPORTED_LANGUAGES), "two languages share a name"
    if language != DEFAULT_LANGUAGE:
        assert t("language.set") != translator(DEFAULT_LANGUAGE)("language.set")


# -- choosing the language ------------------------------------------------------------------


def russian(user_id: int, name: str, code: str | None = "ru") -> Actor:
    return Actor(user_id, name, None, code)


async def test_a_dm_user_is_answered_in_his_app_language(db: Database) -> None:
    languages = LanguageService(db, FakeRights())
    assert await languages.for_user(russian(1, "Аня", "ru-RU")) == "ru"
    assert await languages.for_user(russian(2, "Боря", "ru")) == "ru"
    assert await languages.for_chat(ChatRef(1, "private"), russian(1, "Аня", "ru-RU")) == "ru"


async def test_an_unsupported_app_language_falls_back_to_english(db: Database) -> None:
    languages = LanguageService(db, FakeRights())
    assert await languages.for_user(russian(1, "Zed", "tlh")) == "en"
    assert await languages.for_user(russian(2, "Zoe", "xx-YY")) == "en"
    assert await languages.for_user(russian(3, "Nobody", None)) == "en"
    assert translator("tlh").language == "en"


async def test_a_group_adopts_the_language_of_who_brought_the_bot(db: Database) -> None:
    languages = LanguageService(db, FakeRights())
    await languages.adopt(GROUP, russian(1, "Аня", "ru-RU"))
    assert await languages.for_chat(GROUP, Actor(2, "Bob", None, "en")) == "ru"
    # A later adder does not change it; and it is stored, not just remembered.
    await languages.adopt(GROUP, Actor(3, "Carl", None, "en"))
    assert (
        await LanguageService(db, FakeRights()).for_chat(GROUP, Actor(2, "Bob", None, "en"))
        == "ru"
    )


async def test_a_group_without_a_language_speaks_the_speakers(db: Database) -> None:
    languages = LanguageService(db, FakeRights())
    assert await languages.for_chat(GROUP, russian(1, "Аня")) == "ru"
    assert await languages.for_chat(GROUP, Actor(2, "Bob", None, "en-US")) == "en"
    assert await languages.for_chat(GROUP, None) == "en"


async def test_a_groups_language_is_changed_by_an_admin_or_the_lobby_creator(db: Database) -> None:
    services = make_services(db)
    languages = LanguageService(db, services.rights)
    anna, boris = russian(1, "Аня"), russian(2, "Боря")
    await languages.adopt(GROUP, Actor(9, "Eve", None, "en"))
    with pytest.raises(ServiceError) as refused:
        await languages.choose(GROUP, boris, "ru")
    assert refused.value.code == "language.admin_only"
    assert await languages.for_chat(GROUP, boris) == "en"
    services.rights.admins.add((GROUP.chat_id, boris.user_id))
    assert await languages.choose(GROUP, boris, "ru") == "ru"
    assert await languages.for_chat(GROUP, Actor(3, "Carl", None, "en")) == "ru"

    await languages.choose(GROUP, boris, "en")
    await services.lobby.open(GROUP, anna, "rank")
    assert await languages.choose(GROUP, anna, "ru") == "ru", "the lobby's creator"
    assert (
        await LanguageService(db, FakeRights()).for_chat(GROUP, Actor(3, "Carl", None, "en"))
        == "ru"
    )
    with pytest.raises(ServiceError) as unknown:
        await languages.choose(GROUP, anna, "tlh")
    assert unknown.value.code == "language.unknown"


async def test_a_users_own_choice_beats_his_app_language(db: Database) -> None:
    languages = LanguageService(db, FakeRights())
    anna = russian(1, "Аня", "en-GB")
    assert await languages.for_user(anna) == "en"
    assert await languages.choose(ChatRef(1, "private"), anna, "ru") == "ru"
    assert await LanguageService(db, FakeRights()).for_user(anna) == "ru"
