"""Every word the bot says: gettext catalogs per language and the translator.

Messages are looked up by key (``"lobby.joined"``); the English catalog holds the English
text. A language's catalog is every ``.po`` file under ``locales/<lang>/LC_MESSAGES/``
(``cardroom.po`` for the bot, one file per game), merged and compiled with Babel when first
used, so a fresh checkout needs no build step.
"""

from __future__ import annotations

import gettext
import io
import logging
from functools import cache
from pathlib import Path
from typing import Any, Final

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

logger = logging.getLogger(__name__)

DOMAIN: Final = "cardroom"
LOCALES: Final = Path(__file__).parent / "locales"
DEFAULT_LANGUAGE: Final = "en"
#: Every language with a catalog folder, English first.
SUPPORTED_LANGUAGES: Final = tuple(
    sorted(
        (p.name for p in LOCALES.iterdir() if (p / "LC_MESSAGES").is_dir()),
        key=lambda code: (code != DEFAULT_LANGUAGE, code),
    )
)


def catalog_paths(language: str) -> list[Path]:
    """The ``.po`` files of a language, the bot's own first."""
    folder = LOCALES / language / "LC_MESSAGES"
    return sorted(folder.glob("*.po"), key=lambda p: (p.stem != DOMAIN, p.name))


def read_catalog(language: str) -> Catalog:
    """Every message of a language, merged from its ``.po`` files."""
    paths = catalog_paths(language)
    if not paths:
        raise FileNotFoundError(f"no catalog for {language}")
    merged: Catalog | None = None
    for path in paths:
        with path.open("rb") as po_file:
            catalog = read_po(po_file, locale=language, domain=DOMAIN)
        if merged is None:
            merged = catalog
            continue
        for message in catalog:
            if message.id:
                if message.id in merged:
                    raise ValueError(f"{path.name}: {message.id!r} is defined twice")
                merged[message.id] = message
    assert merged is not None
    return merged


def _compile(language: str) -> gettext.GNUTranslations:
    catalog = read_catalog(language)
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
