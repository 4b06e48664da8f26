"""``python -m bot.i18n.check``: what each language's catalogs lack against English.

Messages are keyed by id and English is the reference: a new message is added to the English
``.po`` of its area (``cardroom.po`` or ``<game>.po``), then translated in the same file of
every other language. This lists, per language, the ids missing or extra, and translations
whose ``{placeholders}`` differ from the English ones. Exit status 1 when anything is wrong.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field

from babel.messages.catalog import Catalog

from bot.i18n import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, read_catalog

_PLACEHOLDER = re.compile(r"{([a-z_]+)}")


@dataclass
class Report:
    language: str
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.placeholders or self.empty)


def _texts(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    texts: dict[str, tuple[str, ...]] = {}
    for message in catalog:
        if not message.id:
            continue
        key = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
        raw = message.string
        strings = list(raw) if isinstance(raw, (tuple, list)) else [raw]
        texts[key] = tuple(str(s or "") for s in strings)
    return texts


def placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def compare(language: str) -> Report:
    english = _texts(read_catalog(DEFAULT_LANGUAGE))
    other = _texts(read_catalog(language))
    report = Report(language)
    report.missing = sorted(set(english) - set(other))
    report.extra = sorted(set(other) - set(english))
    for key in sorted(set(english) & set(other)):
        if any(not text.strip() for text in other[key]):
            report.empty.append(key)
        wanted = set().union(*(placeholders(t) for t in english[key]))
        # A plural form may leave {n} out ("one card" for 1); nothing else may differ.
        if any(placeholders(t) - wanted or wanted - placeholders(t) - {"n"} for t in other[key]):
            report.placeholders.append(key)
    return report


def main() -> int:
    failed = False
    for language in SUPPORTED_LANGUAGES:
        if language == DEFAULT_LANGUAGE:
            continue
        report = compare(language)
        failed |= not report.ok
        print(f"{language}: {'ok' if report.ok else 'needs work'}")
        for name in ("missing", "extra", "placeholders", "empty"):
            keys = getattr(report, name)
            if keys:
                print(
                    f"  {name} ({len(keys)}): {', '.join(keys[:20])}"
                    + (" …" if len(keys) > 20 else "")
                )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
