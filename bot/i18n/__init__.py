"""Every word the bot says: gettext catalogs per language and the translator.

Messages are looked up by key (``"lobby.joined"``); the English catalog holds the English
text. Catalogs are ``.po`` files under ``locales/<lang>/LC_MESSAGES/cardroom.po``, compiled
with Babel when first used, so a fresh checkout needs no build step.
"""

from __future__ import annotations

import gettext
import io
import logging
from functools import cache
from pathlib import Path
from typing import Any, Final

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

logger = logging.getLogger(__name__)

DOMAIN: Final = "cardroom"
LOCALES: Final = Path(__file__).parent / "locales"
DEFAULT_LANGUAGE: Final = "en"
SUPPORTED_LANGUAGES: Final = ("en",)


def catalog_path(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def _compile(language: str) -> gettext.GNUTranslations:
    with catalog_path(language).open("rb") as po_file:
        catalog = read_po(po_file, locale=language, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def pick_language(*candidates: str | None) -> str:
    """The first supported language among ``candidates`` (IETF codes like ``pt-br`` too)."""
    for code in candidates:
        if code:
            base = code.lower().replace("_", "-").split("-")[0]
            if base in SUPPORTED_LANGUAGES:
                return base
    return DEFAULT_LANGUAGE


class Translator:
    """Text in one language: ``t("key", name=...)`` and ``t.plural("key", n, ...)``."""

    def __init__(self, language: str, translations: gettext.NullTranslations) -> None:
        self.language = language
        self._translations = translations

    def __call__(self, key: str, /, **kwargs: Any) -> str:
        text = self._translations.gettext(key)
        return text.format(**kwargs) if kwargs else text

    def plural(self, key: str, n: int, /, **kwargs: Any) -> str:
        """The plural form of ``key`` for ``n`` (``{n}`` is available in the text)."""
        return self._translations.ngettext(key, key, n).format(n=n, **kwargs)

    def has(self, key: str) -> bool:
        return self._translations.gettext(key) != key


@cache
def translator(language: str = DEFAULT_LANGUAGE) -> Translator:
    """The translator for a supported language (anything else gets English)."""
    language = pick_language(language)
    translations: gettext.NullTranslations
    try:
        translations = _compile(language)
    except FileNotFoundError:
        logger.warning("No catalog for %s; using message keys", language)
        translations = gettext.NullTranslations()
    if language != DEFAULT_LANGUAGE:
        translations.add_fallback(translator(DEFAULT_LANGUAGE)._translations)
    return Translator(language, translations)
