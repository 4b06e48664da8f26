"""Telegram text formatting: parse modes, message entities and UTF-16 offsets.

Telegram turns a ``text`` + ``parse_mode`` pair into *plain text plus entities*; the Bot API
returns that pair (never the markup) and compares it when deciding whether an edit changes
anything. This module reproduces that parsing closely enough for a bot's tests:

* ``HTML`` follows Telegram's parser (tdlib's ``parse_html``): the supported tags, ``&lt;``,
  ``&gt;``, ``&amp;``, ``&quot;`` and numeric escapes (an unknown ``&...`` stays literal),
  tag balance, and Telegram's error texts such as ``Unsupported start tag "x" at byte
  offset 3``.
* ``MarkdownV2`` and legacy ``Markdown`` follow Telegram's rules for reserved characters,
  escapes and unclosed entities.
* Entity offsets and lengths are counted in UTF-16 code units, as in the Bot API.
* Leading and trailing whitespace is trimmed from the result, as Telegram does.

Everything here is pure (no I/O, no state), so it can be reused by any fake transport.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "PARSE_MODES",
    "EntityParseError",
    "FormattedText",
    "format_text",
    "html_escape",
    "normalize_parse_mode",
    "parse_html",
    "parse_markdown",
    "parse_markdown_v2",
    "utf16_len",
]

#: Canonical parse mode names, keyed by their lower-case spelling.
PARSE_MODES: dict[str, str] = {"html": "HTML", "markdown": "Markdown", "markdownv2": "MarkdownV2"}

Entity = dict[str, Any]

# Lower sorts first when two entities cover exactly the same span (mirrors tdlib's ordering,
# so that equivalent markup such as <b><i>x</i></b> and <i><b>x</b></i> compares equal).
_ENTITY_PRIORITY: dict[str, int] = {
    name: index
    for index, name in enumerate(
        [
            "mention",
            "hashtag",
            "bot_command",
            "url",
            "email",
            "bold",
            "italic",
            "code",
            "pre",
            "text_link",
            "text_mention",
            "cashtag",
            "phone_number",
            "underline",
            "strikethrough",
            "blockquote",
            "expandable_blockquote",
            "spoiler",
            "custom_emoji",
        ]
    )
}


class EntityParseError(ValueError):
    """The text could not be parsed in the requested parse mode.

    ``str(error)`` is Telegram's own wording, e.g. ``Unsupported start tag "x" at byte offset
    3``; the Bot API prefixes it with ``Bad Request: can't parse entities: ``.
    """


@dataclass(frozen=True)
class FormattedText:
    """Plain text plus Bot API entity dicts (offsets and lengths in UTF-16 code units)."""

    text: str
    entities: tuple[Entity, ...] = field(default=())

    def entity_list(self) -> list[Entity]:
        """The entities as fresh JSON-ready dicts (safe to hand out)."""
        return [dict(entity) for entity in self.entities]


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, the unit of Bot API entity offsets."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def html_escape(text: str) -> str:
    """Escape ``<``, ``>`` and ``&`` the way Telegram's HTML parse mode expects."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def normalize_parse_mode(parse_mode: str | None) -> str | None:
    """Return the canonical parse mode name, ``None`` for none, or raise ``ValueError``."""
    if parse_mode is None or parse_mode == "":
        return None
    try:
        return PARSE_MODES[parse_mode.lower()]
    except KeyError:
        raise ValueError(f"unsupported parse_mode {parse_mode!r}") from None


def format_text(
    text: str,
    parse_mode: str | None = None,
    entities: Sequence[Entity] | None = None,
) -> FormattedText:
    """Turn what a bot sends into what Telegram stores: trimmed plain text plus entities.

    Explicit ``entities`` win over ``parse_mode``, as in the Bot API. Raises
    :class:`EntityParseError` for malformed markup and ``ValueError`` for an unknown parse mode.
    """
    if entities:
        parsed = FormattedText(text, tuple(_sorted_entities(dict(e) for e in entities)))
    else:
        mode = normalize_parse_mode(parse_mode)
        if mode == "HTML":
            parsed = parse_html(text)
        elif mode == "MarkdownV2":
            parsed = parse_markdown_v2(text)
        elif mode == "Markdown":
            parsed = parse_markdown(text)
        else:
            parsed = FormattedText(text)
    return _trim(parsed)


# --------------------------------------------------------------------------------------------
# Shared helpers


class _Builder:
    """Accumulates plain text while tracking the current UTF-16 offset."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self.offset = 0  # UTF-16 code units written so far
        self.entities: list[Entity] = []

    def append(self, chunk: str) -> None:
        self._parts.append(chunk)
        self.offset += utf16_len(chunk)

    def text(self) -> str:
        return "".join(self._parts)

    def text_since(self, utf16_offset: int) -> str:
        encoded = self.text().encode("utf-16-le")
        return encoded[utf16_offset * 2 :].decode("utf-16-le")

    def add_entity(self, entity_type: str, start: int, **extra: Any) -> None:
        if self.offset > start:
            entity: Entity = {"type": entity_type, "offset": start, "length": self.offset - start}
            entity.update({key: value for key, value in extra.items() if value is not None})
            self.entities.append(entity)

    def result(self) -> FormattedText:
        return FormattedText(self.text(), tuple(_sorted_entities(self.entities)))


def _sorted_entities(entities: Iterable[Entity]) -> list[Entity]:
    return sorted(
        entities,
        key=lambda e: (
            int(e["offset"]),
            -int(e["length"]),
            _ENTITY_PRIORITY.get(str(e["type"]), len(_ENTITY_PRIORITY)),
        ),
    )


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def _trim(formatted: FormattedText) -> FormattedText:
    """Strip surrounding whitespace and clip the entities to what remains."""
    text = formatted.text
    stripped = text.strip()
    if stripped == text:
        return formatted
    lead = utf16_len(text[: len(text) - len(text.lstrip())])
    end = lead + utf16_len(stripped)
    entities: list[Entity] = []
    for entity in formatted.entities:
        start = max(int(entity["offset"]), lead)
        stop = min(int(entity["offset"]) + int(entity["length"]), end)
        if stop > start:
            entities.append({**entity, "offset": start - lead, "length": stop - start})
    return FormattedText(stripped, tuple(entities))


# --------------------------------------------------------------------------------------------
# HTML

_HTML_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "s",
        "strike",
        "del",
        "u",
        "ins",
        "tg-spoiler",
        "tg-emoji",
        "span",
        "pre",
        "code",
        "blockquote",
    }
)
_SIMPLE_HTML_ENTITY = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "u": "underline",
    "ins": "underline",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
}
_NAMED_HTML_ESCAPES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_HTML_ESCAPE = re.compile(
    r"&(?:#(?P<dec>[0-9]{1,7})|#[xX](?P<hex>[0-9a-fA-F]{1,6})|(?P<name>[a-zA-Z]+));"
)
_TG_USER_LINK = re.compile(r"^tg://user\?id=(?P<id>[0-9]{1,20})$")


@dataclass
class _OpenTag:
    name: str
    start: int  # UTF-16 offset in the output
    byte_offset: int
    argument: str = ""
    expandable: bool = False
    code_language: str | None = None


def _decode_html_escape(text: str, index: int) -> tuple[str, int] | None:
    """Decode an escape at ``text[index] == '&'``; return (char, next index) or None."""
    match = _HTML_ESCAPE.match(text, index)
    if match is None:
        return None
    if match["name"] is not None:
        char = _NAMED_HTML_ESCAPES.get(match["name"])
        if char is None:
            return None
    else:
        code = int(match["dec"]) if match["dec"] is not None else int(match["hex"], 16)
        if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return None
        char = chr(code)
    return char, match.end()


_MARKUP = re.compile("[<&]")


def parse_html(text: str) -> FormattedText:
    """Parse Telegram HTML into plain text and entities (raises :class:`EntityParseError`)."""
    out = _Builder()
    stack: list[_OpenTag] = []
    size = len(text)
    i = 0
    while i < size:
        char = text[i]
        if char == "&":
            decoded = _decode_html_escape(text, i)
            if decoded is not None:
                out.append(decoded[0])
                i = decoded[1]
                continue
        if char != "<":
            # Plain text (or an "&" that starts no escape) up to the next markup.
            found = _MARKUP.search(text, i + 1)
            end = found.start() if found else size
            out.append(text[i:end])
            i = end
            continue
        begin = i
        i += 1
        if i < size and text[i] == "/":
            i = _close_html_tag(text, begin, i + 1, stack, out)
        else:
            i = _open_html_tag(text, begin, i, stack, out)
    if stack:
        raise EntityParseError(
            f'Can\'t find end tag corresponding to start tag "{stack[-1].name}"'
        )
    return out.result()


def _open_html_tag(text: str, begin: int, i: int, stack: list[_OpenTag], out: _Builder) -> int:
    size = len(text)
    name_start = i
    while i < size and not text[i].isspace() and text[i] != ">":
        i += 1
    if i >= size:
        raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(text, begin)}")
    name = text[name_start:i].lower()
    if name not in _HTML_TAGS:
        raise EntityParseError(
            f'Unsupported start tag "{name}" at byte offset {_byte_offset(text, begin)}'
        )
    tag = _OpenTag(name=name, start=out.offset, byte_offset=_byte_offset(text, begin))
    attributes: dict[str, str] = {}
    while True:
        while i < size and text[i].isspace():
            i += 1
        if i >= size:
            raise EntityParseError(
                f"Unclosed start tag at byte offset {_byte_offset(text, begin)}"
            )
        if text[i] == ">":
            i += 1
            break
        attr_start = i
        while i < size and not text[i].isspace() and text[i] not in "=>":
            i += 1
        attr_name = text[attr_start:i].lower()
        if not attr_name:
            raise EntityParseError(
                f'Empty attribute name in the tag "{name}" at byte offset '
                f"{_byte_offset(text, begin)}"
            )
        while i < size and text[i].isspace():
            i += 1
        if name == "blockquote" and attr_name == "expandable" and (i >= size or text[i] != "="):
            tag.expandable = True
            continue
        if i >= size or text[i] != "=":
            raise EntityParseError(
                "Expected equal sign in declaration of an attribute of the tag "
                f'"{name}" at byte offset {_byte_offset(text, begin)}'
            )
        i += 1
        while i < size and text[i].isspace():
            i += 1
        if i >= size:
            raise EntityParseError(
                f'Unclosed start tag "{name}" at byte offset {_byte_offset(text, begin)}'
            )
        value, i = _read_html_attribute_value(text, i)
        if i >= size:
            raise EntityParseError(
                f"Unclosed start tag at byte offset {_byte_offset(text, begin)}"
            )
        attributes[attr_name] = value
    if name == "a":
        tag.argument = attributes.get("href", "")
    elif name == "code":
        css_class = attributes.get("class", "")
        if css_class.startswith("language-"):
            tag.code_language = css_class[len("language-") :]
    elif name == "span" and attributes.get("class") != "tg-spoiler":
        raise EntityParseError(
            f'Tag "span" must have class "tg-spoiler" at byte offset {tag.byte_offset}'
        )
    elif name == "tg-emoji":
        tag.argument = attributes.get("emoji-id", "")
        if not tag.argument.isdigit():
            raise EntityParseError(
                f"Expected custom emoji identifier at byte offset {tag.byte_offset}"
            )
    stack.append(tag)
    return i


def _read_html_attribute_value(text: str, i: int) -> tuple[str, int]:
    size = len(text)
    if text[i] not in "'\"":
        start = i
        while i < size and (text[i].isalnum() or text[i] in ".-"):
            i += 1
        if i < size and not text[i].isspace() and text[i] != ">":
            raise EntityParseError(
                f"Unexpected end of name token at byte offset {_byte_offset(text, start)}"
            )
        return text[start:i].lower(), i
    quote = text[i]
    i += 1
    value: list[str] = []
    while i < size and text[i] != quote:
        if text[i] == "&":
            decoded = _decode_html_escape(text, i)
            if decoded is not None:
                value.append(decoded[0])
                i = decoded[1]
                continue
        value.append(text[i])
        i += 1
    if i < size:
        i += 1  # the closing quote
    return "".join(value), i


def _close_html_tag(text: str, begin: int, i: int, stack: list[_OpenTag], out: _Builder) -> int:
    size = len(text)
    if not stack:
        raise EntityParseError(f"Unexpected end tag at byte offset {_byte_offset(text, begin)}")
    name_start = i
    while i < size and not text[i].isspace() and text[i] != ">":
        i += 1
    end_name = text[name_start:i].lower()
    while i < size and text[i].isspace():
        i += 1
    if i >= size or text[i] != ">":
        raise EntityParseError(f"Unclosed end tag at byte offset {_byte_offset(text, begin)}")
    tag = stack.pop()
    if end_name and end_name != tag.name:
        raise EntityParseError(
            f"Unmatched end tag at byte offset {_byte_offset(text, begin)}, "
            f'expected "</{tag.name}>", found "</{end_name}>"'
        )
    _emit_html_entity(tag, stack, out)
    return i + 1


def _emit_html_entity(tag: _OpenTag, stack: list[_OpenTag], out: _Builder) -> None:
    if tag.name in _SIMPLE_HTML_ENTITY:
        out.add_entity(_SIMPLE_HTML_ENTITY[tag.name], tag.start)
    elif tag.name == "a":
        user_link = _TG_USER_LINK.match(tag.argument)
        if user_link is not None:
            out.add_entity("text_mention", tag.start, user={"id": int(user_link["id"])})
        elif tag.argument:
            out.add_entity("text_link", tag.start, url=tag.argument)
    elif tag.name == "code":
        parent = stack[-1] if stack else None
        if parent is not None and parent.name == "pre" and parent.start == tag.start:
            # <pre><code class="language-x">...</code></pre> is one pre entity with a language.
            parent.code_language = tag.code_language or parent.code_language
        else:
            out.add_entity("code", tag.start)
    elif tag.name == "pre":
        out.add_entity("pre", tag.start, language=tag.code_language)
    elif tag.name == "blockquote":
        kind = "expandable_blockquote" if tag.expandable else "blockquote"
        out.add_entity(kind, tag.start)
    elif tag.name == "tg-emoji":
        out.add_entity("custom_emoji", tag.start, custom_emoji_id=tag.argument)


# --------------------------------------------------------------------------------------------
# MarkdownV2

_MDV2_RESERVED = "_*[]()~`>#+-=|{}.!"
_MDV2_END = {
    "Bold": "*",
    "Italic": "_",
    "Underline": "__",
    "Strikethrough": "~",
    "Spoiler": "||",
    "TextUrl": "]",
    "CustomEmoji": "]",
    "Code": "`",
    "Pre": "```",
}
_MDV2_ENTITY_TYPE = {
    "Bold": "bold",
    "Italic": "italic",
    "Underline": "underline",
    "Strikethrough": "strikethrough",
    "Spoiler": "spoiler",
    "Code": "code",
}


@dataclass
class _MdEntity:
    kind: str
    start: int
    byte_offset: int
    language: str | None = None


def _reserved_error(char: str) -> EntityParseError:
    return EntityParseError(
        f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
    )


def parse_markdown_v2(text: str) -> FormattedText:
    """Parse Telegram MarkdownV2 into plain text and entities."""
    out = _Builder()
    stack: list[_MdEntity] = []
    quote_start: int | None = None
    size = len(text)
    i = 0
    while i < size:
        char = text[i]
        in_code = bool(stack) and stack[-1].kind in ("Code", "Pre")
        at_line_start = i == 0 or text[i - 1] == "\n"
        if at_line_start and not in_code:
            if char == ">":
                if quote_start is None:
                    quote_start = out.offset
                i += 1
                continue
            if quote_start is not None:
                _close_quote(out, quote_start)
                quote_start = None
        if char == "\\" and i + 1 < size and 0 < ord(text[i + 1]) <= 126:
            out.append(text[i + 1])
            i += 2
            continue
        reserved = "`" if in_code else _MDV2_RESERVED
        if char not in reserved:
            out.append(char)
            i += 1
            continue
        if (
            stack
            and text.startswith(_MDV2_END[stack[-1].kind], i)
            and not (stack[-1].kind == "Italic" and text.startswith("__", i))
        ):
            i = _close_markdown_v2(text, i, stack.pop(), out)
            continue
        i = _open_markdown_v2(text, i, stack, out)
    if quote_start is not None:
        _close_quote(out, quote_start)
    if stack:
        raise EntityParseError(
            f"Can't find end of {stack[-1].kind} entity at byte offset {stack[-1].byte_offset}"
        )
    return out.result()


def _close_quote(out: _Builder, start: int) -> None:
    text = out.text_since(start)
    trailing = utf16_len(text) - utf16_len(text.rstrip("\n"))
    out.offset -= trailing
    out.add_entity("blockquote", start)
    out.offset += trailing


def _open_markdown_v2(text: str, i: int, stack: list[_MdEntity], out: _Builder) -> int:
    char = text[i]
    entity = _MdEntity(kind="", start=out.offset, byte_offset=_byte_offset(text, i))
    if char == "_":
        entity.kind = "Underline" if text.startswith("__", i) else "Italic"
        i += 2 if entity.kind == "Underline" else 1
    elif char == "*":
        entity.kind, i = "Bold", i + 1
    elif char == "~":
        entity.kind, i = "Strikethrough", i + 1
    elif char == "|" and text.startswith("||", i):
        entity.kind, i = "Spoiler", i + 2
    elif char == "[":
        entity.kind, i = "TextUrl", i + 1
    elif char == "!" and text.startswith("![", i):
        entity.kind, i = "CustomEmoji", i + 2
    elif char == "`" and text.startswith("```", i):
        entity.kind = "Pre"
        i += 3
        language_end = i
        while language_end < len(text) and not text[language_end].isspace():
            if text[language_end] == "`":
                break
            language_end += 1
        if language_end > i and language_end < len(text) and text[language_end] != "`":
            entity.language = text[i:language_end]
            i = language_end
        if i < len(text) and text[i] in "\r\n":
            pair = text[i : i + 2]
            i += 2 if pair in ("\r\n", "\n\r") else 1
    elif char == "`":
        entity.kind, i = "Code", i + 1
    else:
        raise _reserved_error(char)
    entity.start = out.offset
    stack.append(entity)
    return i


def _close_markdown_v2(text: str, i: int, entity: _MdEntity, out: _Builder) -> int:
    i += len(_MDV2_END[entity.kind])
    if entity.kind in _MDV2_ENTITY_TYPE:
        out.add_entity(_MDV2_ENTITY_TYPE[entity.kind], entity.start)
        return i
    if entity.kind == "Pre":
        out.add_entity("pre", entity.start, language=entity.language)
        return i
    # TextUrl / CustomEmoji: "](url)"
    if not text.startswith("(", i):
        if entity.kind == "TextUrl":
            out.add_entity("text_link", entity.start, url=out.text_since(entity.start))
            return i
        raise EntityParseError(
            f"Custom emoji entity must contain a tg://emoji URL at byte offset "
            f"{entity.byte_offset}"
        )
    i += 1
    url_start = i
    url_chars: list[str] = []
    while i < len(text) and text[i] != ")":
        if text[i] == "\\" and i + 1 < len(text) and 0 < ord(text[i + 1]) <= 126:
            url_chars.append(text[i + 1])
            i += 2
            continue
        url_chars.append(text[i])
        i += 1
    if i >= len(text):
        raise EntityParseError(
            f"Can't find end of a URL at byte offset {_byte_offset(text, url_start)}"
        )
    target = "".join(url_chars)
    if entity.kind == "CustomEmoji":
        match = re.fullmatch(r"tg://emoji\?id=([0-9]+)", target)
        if match is None:
            raise EntityParseError(
                f"Custom emoji URL must have an emoji identifier at byte offset "
                f"{entity.byte_offset}"
            )
        out.add_entity("custom_emoji", entity.start, custom_emoji_id=match[1])
        return i + 1
    user_link = _TG_USER_LINK.match(target)
    if user_link is not None:
        out.add_entity("text_mention", entity.start, user={"id": int(user_link["id"])})
    elif target:
        out.add_entity("text_link", entity.start, url=target)
    return i + 1


# --------------------------------------------------------------------------------------------
# Legacy Markdown

_MD_ENTITY = {"_": "italic", "*": "bold", "`": "code"}


def parse_markdown(text: str) -> FormattedText:
    """Parse Telegram's legacy ``Markdown`` parse mode into plain text and entities."""
    out = _Builder()
    size = len(text)
    i = 0
    while i < size:
        char = text[i]
        if char == "\\" and i + 1 < size and text[i + 1] in "_*`[":
            out.append(text[i + 1])
            i += 2
            continue
        if char not in "_*`[":
            out.append(char)
            i += 1
            continue
        begin = i
        is_pre = char == "`" and text.startswith("```", i)
        end_char = "]" if char == "[" else char
        language: str | None = None
        i += 3 if is_pre else 1
        if is_pre:
            language_end = i
            while language_end < size and not text[language_end].isspace():
                if text[language_end] == "`":
                    break
                language_end += 1
            if language_end > i and language_end < size and text[language_end] != "`":
                language = text[i:language_end]
                i = language_end
            if i < size and text[i] == "\n":
                i += 1
        start = out.offset
        while i < size and not (text.startswith("```", i) if is_pre else text[i] == end_char):
            out.append(text[i])
            i += 1
        if i >= size:
            raise EntityParseError(
                f"Can't find end of the entity starting at byte offset {_byte_offset(text, begin)}"
            )
        i += 3 if is_pre else 1
        if is_pre:
            out.add_entity("pre", start, language=language)
        elif char != "[":
            out.add_entity(_MD_ENTITY[char], start)
        else:
            url = out.text_since(start)
            if text.startswith("(", i):
                close = text.find(")", i)
                if close != -1:
                    url = text[i + 1 : close]
                    i = close + 1
            user_link = _TG_USER_LINK.match(url)
            if user_link is not None:
                out.add_entity("text_mention", start, user={"id": int(user_link["id"])})
            elif url:
                out.add_entity("text_link", start, url=url)
    return out.result()
