"""Words as a native speaker of each seed language reads them (issue #35, item 15).

One term per thing in each language, the reader addressed one way throughout (the chat says
«ты»/«ти»/«ti», and so does the Mini App), each language's own quotation marks and apostrophe,
and none of the calques the read-through found coming back.
"""

from __future__ import annotations

import re

import pytest

from bot.i18n import read_catalog, translator


def texts(language: str) -> dict[str, str]:
    """Every message of a language by key, plural forms joined by a space."""
    found = {}
    for message in read_catalog(language):
        if not message.id:
            continue
        key = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
        raw = message.string
        found[key] = " ".join(raw) if isinstance(raw, (tuple, list)) else str(raw)
    return found


RU, UK, HR = texts("ru"), texts("uk"), texts("hr")
CATALOGS = {"ru": RU, "uk": UK, "hr": HR}
DAVAYKA = re.compile(r"^(davayka\.|event\.davayka\.|error\.davayka\.|rules\.davayka$|app\.)")


def words(text: str) -> list[str]:
    """The lower-case words of a text, placeholders and tags left out."""
    return re.findall(r"[^\W\d_]+(?:[’'][^\W\d_]+)*", re.sub(r"{\w+}|<[^<>]*>", " ", text).lower())


# --- One word for a round of Davay-ka! -------------------------------------------------------


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_davayka_calls_its_round_a_round_and_never_a_kon(language: str) -> None:
    catalog = CATALOGS[language]
    davayka = {key: text for key, text in catalog.items() if DAVAYKA.match(key)}
    assert not [key for key, text in davayka.items() if "кон" in words(text)]
    for key in ("davayka.answer_out", "error.davayka.not_yet", "event.davayka.timeout.countdown"):
        assert "раунд" in catalog[key].lower(), (key, catalog[key])


def test_ukrainian_davayka_calls_every_pile_a_kupka() -> None:
    """Its rules say «купка» for the row's and the centre's piles; so does every answer."""
    davayka = {key: text for key, text in UK.items() if DAVAYKA.match(key)}
    assert not [key for key, text in davayka.items() if re.search(r"стопк|стопц", text.lower())]
    for key in ("davayka.where_left", "davayka.answer_played", "davayka.answer_played_empty"):
        assert "куп" in UK[key].lower(), (key, UK[key])


def test_croatian_calls_a_board_no_plate() -> None:
    """«Ploča» is the player's panel (pings); a leaderboard or history is never one."""
    assert {key for key, text in HR.items() if "ploč" in text.lower()} <= {"pings.on", "pings.off"}


@pytest.mark.parametrize("language", ["ru", "uk", "hr"])
def test_the_mini_app_uses_the_chats_words_for_its_buttons_and_stock(language: str) -> None:
    t = translator(language)
    assert t("app.ready") == t("davayka.button_ready")
    assert t("app.flip") == t("davayka.button_flip")
    # The stock is the one Davay-ka! names on the table: «запас», not Rank's «колода».
    assert t("app.stock").lower() in t("davayka.seat", name="", stock="", won="").lower()


@pytest.mark.parametrize("language", ["uk", "hr"])
def test_private_chat_is_called_one_way(language: str) -> None:
    """Ukrainian says «приватний чат», Croatian «privatni razgovor» — for the same chat."""
    other = {"uk": r"особист", "hr": r"privatn\w* chat"}[language]
    assert not [key for key, text in CATALOGS[language].items() if re.search(other, text)]


# --- The reader addressed one way -------------------------------------------------------------

#: The polite (or plural) «вы»/«ви» and its imperatives: «откройте», «чекайте», «тисніть».
FORMAL = {
    "ru": re.compile(r"^(?:вы|вас|вам|вами|ваш\w*|\w+(?:ите|йте))$"),
    "uk": re.compile(r"^(?:ви|вас|вам|вами|ваш\w*|\w+(?:іть|їть|йте|ите))$"),
}
#: Messages spoken to both players of a table at once, where the plural is the right form.
TO_BOTH = {"davayka.phase_play", "davayka.phase_ready"}


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_the_reader_is_addressed_with_ty_everywhere(language: str) -> None:
    formal = FORMAL[language]
    found = {
        key: [w for w in words(text) if formal.match(w)]
        for key, text in CATALOGS[language].items()
        if key not in TO_BOTH
    }
    assert {key: w for key, w in found.items() if w} == {}


@pytest.mark.parametrize("language", ["ru", "uk", "hr"])
def test_the_mini_app_says_you_as_the_chat_does(language: str) -> None:
    t = translator(language)
    assert t("app.you").lower() == t("davayka.you").lower()
    assert t("app.you").lower() in {"ты", "ти", "ti"}


@pytest.mark.parametrize(
    ("language", "key"),
    [
        ("hr", "menu.expired_board"),
        ("hr", "error.lobby.too_many"),
        ("hr", "davayka.answer_round_on"),
        ("hr", "error.davayka.not_yet"),
    ],
)
def test_croatian_speaks_to_one_reader(language: str, key: str) -> None:
    """A reply goes to the one who pressed or wrote: «pošalji», «pokušaj», «igraj»."""
    plural = [w for w in words(CATALOGS[language][key]) if re.fullmatch(r"\w+(?:ite|jte|ete)", w)]
    assert plural == []


@pytest.mark.parametrize("key", ["app.won", "app.lost", "app.error.elsewhere"])
def test_croatian_mini_app_does_not_guess_the_readers_gender(key: str) -> None:
    """«Pobijedio si» / «Izgubio si» speak to a man only; the chat's «Pobjeda je tvoja!» does
    not."""
    text = HR[key]
    assert not re.search(r"\b\w+(?:o|la)\s+si\b|\bsi\s+\w+(?:o|la)\b", text), text


# --- Typography -----------------------------------------------------------------------------


def test_ukrainian_uses_the_typographic_apostrophe() -> None:
    """«Зв’язок», as «комп’ютер» everywhere else; a date format's quotes are CLDR syntax."""
    assert not [key for key, text in UK.items() if "'" in text and not key.endswith("date_format")]
    assert "’" in UK["app.offline"]


def test_croatian_quotes_are_low_and_high() -> None:
    """Croatian quotes „so“: never «so», never „so”."""
    assert not [key for key, text in HR.items() if re.search(r"[«»”]", text)]
    for key, text in HR.items():
        assert text.count("„") == text.count("“"), (key, text)
    assert "„{chat}“" in HR["waitlist.opened"]


#: Croatian button labels, and the keys that are those buttons themselves.
HR_BUTTONS = re.compile(r"(?<![„\w])(?<!„✋ )(Igram|Kreni|Idemo)\b")
BUTTON_KEYS = re.compile(r"^(button\.|app\.ready$|\w+\.button_)")


def test_croatian_quotes_every_button_it_names() -> None:
    """«Kreni pritišće onaj tko…» reads as "go, presses the one who…": a named button is
    quoted (or bold), so the sentence parses."""
    unquoted = {
        key: text
        for key, text in HR.items()
        if not BUTTON_KEYS.match(key) and HR_BUTTONS.search(re.sub(r"<b>\w+</b>", "", text))
    }
    assert unquoted == {}
    assert "„Igram“" in HR["lobby.hint"] and "„Kreni“" in HR["lobby.hint"]


# --- Rules: nothing the English has left out ------------------------------------------------


@pytest.mark.parametrize("language", ["ru", "uk", "hr"])
def test_davayka_rules_say_that_ten_cards_or_fewer_play_without_a_stock(language: str) -> None:
    english = translator("en")("rules.davayka").split("\n\n")
    index = next(i for i, p in enumerate(english) if "10 cards or fewer" in p)
    paragraph = translator(language)("rules.davayka").split("\n\n")[index]
    assert "10" in paragraph, paragraph
    one_pile = {"ru": "одну центральную стопку", "uk": "одну спільну купку", "hr": "jednu"}
    assert one_pile[language] in paragraph, paragraph


# --- Calques and slips that must not come back ----------------------------------------------

NOT_AGAIN = [
    # "The page has (not) signed in": a page does not "enter".
    ("ru", "app.error.hello_first", r"вошла"),
    ("ru", "app.error.hello_again", r"вошла"),
    ("uk", "app.error.hello_first", r"увійшла"),
    ("uk", "app.error.hello_again", r"увійшла"),
    # "Your phone tells you".
    ("ru", "pings.on", r"скажет"),
    ("uk", "pings.on", r"скаже"),
    # "Without the call of".
    ("ru", "event.davayka.timeout.stall", r"\bзова\b"),
    ("uk", "event.davayka.timeout.stall", r"поклик"),
    # "Three moves without the deck".
    ("ru", "event.progression.backstop", r"без колоды"),
    ("uk", "event.progression.backstop", r"без колоди"),
    # «Самотужки» is "by one's own effort", not "alone".
    ("uk", "results.draw", r"самотужки"),
    # "You deal … I'll deal".
    ("uk", "trumps.you_choose_first", r"роздам"),
    ("uk", "trumps.you_choose_second", r"роздам"),
    # «Vani» is outdoors.
    ("hr", "rank.status_out", r"\bvani\b"),
]


@pytest.mark.parametrize(("language", "key", "slip"), NOT_AGAIN)
def test_a_calque_does_not_come_back(language: str, key: str, slip: str) -> None:
    assert not re.search(slip, CATALOGS[language][key].lower()), CATALOGS[language][key]


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_a_joker_is_played_as_a_person_is_met(language: str) -> None:
    """«Джокер» is animate in the accusative: «кладёт джокера», as «сыграй туза или джокера»."""
    assert "джокера" in CATALOGS[language]["event.rank.joker"]
