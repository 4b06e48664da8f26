"""Boards and pickers: what is remembered of them stays bounded however many chats get one,
and what is forgotten first is what was sent (or redrawn) longest ago."""

from __future__ import annotations

from bot.telegram.sender.menus import MENUS_REMEMBERED, Menus

CHATS = 100_000
NOW = 1_700_000_000.0


class TidyingNotes:
    """Stands in for the notes: remembers which menus lost their buttons."""

    def __init__(self) -> None:
        self.tidied: list[tuple[int, int]] = []

    def tidy(self, _endpoint: str, chat_id: int, message_id: int) -> None:
        self.tidied.append((chat_id, message_id))


def menus() -> tuple[Menus, TidyingNotes]:
    notes = TidyingNotes()
    return Menus(notes, lambda: NOW), notes


async def test_100k_chats_boards_are_remembered_within_the_bound() -> None:
    board, notes = menus()
    try:
        for n in range(1, CHATS + 1):
            board.sent(-n, None, "top", 10)
            assert len(board._live) <= MENUS_REMEMBERED
        # The latest chats' boards are live: an older board there has aged, by its id.
        board.sent(-CHATS, None, "top", 11)
        assert notes.tidied == [(-CHATS, 10)], "the board it replaced loses its buttons"
        assert board.aged(-CHATS, None, "top", 10, NOW)
        assert not board.aged(-CHATS, None, "top", 11, NOW)
    finally:
        board.close()


async def test_a_chat_that_gets_a_new_board_is_not_the_first_forgotten() -> None:
    board, _ = menus()
    try:
        board.sent(-1, None, "top", 1)
        for n in range(2, MENUS_REMEMBERED + 1):
            board.sent(-n, None, "top", 1)
        board.sent(-1, None, "top", 2)  # the first chat's board, sent anew just now
        for n in range(MENUS_REMEMBERED + 1, MENUS_REMEMBERED + 10):
            board.sent(-n, None, "top", 1)
        assert board.aged(-1, None, "top", 1, NOW), "replaced by the board sent just now"
        assert (-2, 0, "top") not in board._live, "the one sent longest ago is forgotten"
    finally:
        board.close()


async def test_a_forgotten_board_still_ages_by_its_date() -> None:
    board, _ = menus()
    try:
        for n in range(1, MENUS_REMEMBERED + 2):
            board.sent(-n, None, "top", 1)
        assert (-1, 0, "top") not in board._live
        assert board.aged(-1, None, "top", 1, NOW - board.seconds - 1)
    finally:
        board.close()


def test_what_100k_boards_show_is_remembered_newest_first() -> None:
    board, _ = menus()
    previous: tuple[int, int] | None = None
    for n in range(1, CHATS + 1):
        assert board.showing(-n, 5, fingerprint=n)
        assert len(board._showing) <= MENUS_REMEMBERED
        if previous is not None:
            # The board redrawn a moment ago is still known: no second redraw of the same.
            assert not board.showing(*previous, fingerprint=n - 1)
        previous = (-n, 5)


def test_a_board_that_loses_its_buttons_is_forgotten_at_once() -> None:
    board, notes = menus()
    assert board.showing(-1, 5, fingerprint=1)
    board.disarm(-1, 5)
    assert notes.tidied == [(-1, 5)]
    assert (-1, 5) not in board._showing
