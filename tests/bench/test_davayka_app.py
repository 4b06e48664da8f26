"""The pieces of the Mini App bench (``python -m bench --only davayka``, issue #30): the
network's hold on each frame, a quick player's decision and tap on hand-built views, how a
press's fate is told, and the figures. No bot is started here; the bench plays for minutes."""

from __future__ import annotations

import asyncio
from random import Random
from typing import Any

import orjson

from bench.davayka_app import (
    NETWORK,
    Intent,
    Link,
    Player,
    Press,
    Published,
    Run,
    Stage,
    Timings,
    answer_kind,
    decide,
    figures,
    mistapped,
    tap_code,
    why_refused,
)
from tests.fakes import FakeUser

LOW, HIGH = NETWORK
#: Room for a busy machine: the event loop may wake late, never early.
LATE = 0.25
EARLY = 0.002


def pile(top: str | None, down: int = 0) -> dict[str, Any]:
    return {"top": top, "down": down}


def a_view(**changes: Any) -> dict[str, Any]:
    """Seat 0's page in the middle of round 3: 5♥ fits nothing, 9♣ fits the left centre (8♠),
    K♦ the right one (Q♦)."""
    view: dict[str, Any] = {
        "game": 7,
        "version": 10,
        "status": "playing",
        "seat": 0,
        "phase": "play",
        "round": 3,
        "rows": [
            [pile("5h"), pile(None), pile("9c", 2), pile("Kd", 1)],
            [pile("2s", 3), pile("Jh", 2), pile("4d", 1), pile(None)],
        ],
        "centres": [
            {"top": "8s", "size": 3, "owner": 0},
            {"top": "Qd", "size": 2, "owner": 1},
        ],
        "plays": {"2": [0], "3": [1]},
        "can_ready": False,
        "can_flip": False,
        "finished": False,
        "last_move": None,
    }
    view.update(changes)
    return view


def centres(left: str | None, right: str | None) -> list[dict[str, Any]]:
    return [{"top": left, "size": 3, "owner": 0}, {"top": right, "size": 2, "owner": 1}]


# -- the network ------------------------------------------------------------------------------


def test_each_frame_is_held_between_the_bounds_and_never_overtakes_the_one_before() -> None:
    link = Link(Random(5))
    dues = [link.due(0.0) for _ in range(200)]
    assert all(LOW <= due <= HIGH for due in dues)
    assert dues == sorted(dues), "a frame arrived before one sent earlier"
    spaced = Link(Random(5))
    delays = [spaced.due(sent) - sent for sent in range(200)]  # a second apart: no queueing
    assert min(delays) < LOW + 0.01 and max(delays) > HIGH - 0.01, "not spread over the range"
    assert len(set(delays)) == len(delays), "the delays are not drawn independently"
    again, other = Link(Random(5)), Link(Random(6))
    assert [again.due(sent) - sent for sent in range(200)] == delays, "not seeded"
    assert [other.due(sent) - sent for sent in range(200)] != delays


class Wire:
    """A socket's two ends as the player's page uses them."""

    def __init__(self) -> None:
        self.incoming: asyncio.Queue[str | None] = asyncio.Queue()
        self.written: list[tuple[float, dict[str, Any]]] = []

    async def read_message(self) -> str | None:
        return await self.incoming.get()

    async def write_message(self, data: str) -> None:
        self.written.append((asyncio.get_running_loop().time(), orjson.loads(data)))

    def send(self, frame: dict[str, Any]) -> None:
        self.incoming.put_nowait(orjson.dumps(frame).decode())


def a_player(react: tuple[float, float] = (0.4, 0.6)) -> Player:
    return Player(0, FakeUser(1, "Anna"), Random(1), Link(Random(2)), Link(Random(3)), react)


async def test_a_received_state_reaches_the_screen_only_after_the_network_holds_it() -> None:
    loop = asyncio.get_running_loop()
    player, wire = a_player(), Wire()
    tasks = [asyncio.create_task(player._read(wire)), asyncio.create_task(player._show())]  # type: ignore[arg-type]
    try:
        sent = loop.time()
        for version in range(10, 30):
            wire.send({"t": "state", "view": a_view(version=version)})
        shown: list[tuple[float, int]] = []
        while not shown or shown[-1][1] < 29:
            await asyncio.sleep(0.002)
            if player.screen is not None and (
                not shown or shown[-1][1] != player.screen["version"]
            ):
                shown.append((loop.time(), player.screen["version"]))
            assert loop.time() - sent < 2, "the frames never reached the screen"
        assert shown[0][0] - sent >= LOW - EARLY, "shown before the network could bring it"
        assert shown[-1][0] - sent <= HIGH + LATE
        assert [version for _, version in shown] == sorted(v for _, v in shown)
    finally:
        for task in tasks:
            task.cancel()


async def test_a_tap_is_written_after_the_network_holds_it_and_its_answer_is_kept() -> None:
    loop = asyncio.get_running_loop()
    player, wire = a_player(react=(0.01, 0.01)), Wire()
    player.screen = a_view(phase="ready", can_ready=True, plays={}, centres=[])
    tasks = [
        asyncio.create_task(player._read(wire)),  # type: ignore[arg-type]
        asyncio.create_task(player._show()),
        asyncio.create_task(player._write(wire)),  # type: ignore[arg-type]
    ]
    playing = asyncio.create_task(player.play(loop.time() + 0.05))
    try:
        while not wire.written:
            await asyncio.sleep(0.002)
            assert not playing.done(), playing
        written_at, frame = wire.written[0]
        assert frame == {"t": "act", "code": "r", "seq": 1}
        (press,) = player.presses
        assert LOW - EARLY <= written_at - press.tapped_at <= HIGH + LATE
        wire.send({"t": "state", "view": a_view(version=11, phase="ready", plays={})})
        wire.send({"t": "answer", "seq": 1, "ok": True})
        await asyncio.wait_for(playing, 2.0)  # he went on once he saw the answer
        assert press.ok is True and press.result is not None and press.result["version"] == 11
        assert len(wire.written) == 1, "Ready pressed twice"
    finally:
        for task in [*tasks, playing]:
            task.cancel()


# -- deciding and tapping ---------------------------------------------------------------------


def test_he_decides_on_the_leftmost_pile_that_fits_aimed_where_it_fits() -> None:
    assert decide(a_view()) == Intent("p", 2, "9c", 0)
    # A pile the view lists without a centre is passed over for one that fits.
    assert decide(a_view(plays={"0": [], "3": [1]})) == Intent("p", 3, "Kd", 1)
    # A card that fits both goes left.
    fits_both = a_view(centres=centres("8s", "Ts"), plays={"2": [0, 1]})
    assert decide(fits_both) == Intent("p", 2, "9c", 0)


def test_he_presses_ready_and_davayka_when_offered_and_nothing_else_otherwise() -> None:
    assert decide(a_view(phase="ready", can_ready=True, plays={})) == Intent("r")
    assert decide(a_view(phase="stall", can_flip=True, plays={})) == Intent("f")
    assert decide(a_view(phase="stall", plays={})) is None  # pressed already
    assert decide(a_view(plays={})) is None
    assert decide(a_view(finished=True)) is None
    assert decide(a_view(status="finished")) is None


def test_at_the_tap_he_goes_by_what_his_screen_shows_then() -> None:
    meant = Intent("p", 2, "9c", 0)
    assert tap_code(meant, a_view()) == "p203"
    # The left centre changed under his finger: the card still fits the right one.
    assert tap_code(meant, a_view(centres=centres("Jc", "Tc"))) == "p213"
    # It fits nothing on the screen any more: he does not tap.
    assert tap_code(meant, a_view(centres=centres("Jc", "Qd"))) is None
    # His pile shows another card now: not the one he meant.
    row = [pile("5h"), pile(None), pile("7c", 1), pile("Kd", 1)]
    moved = a_view(rows=[row, a_view()["rows"][1]])
    assert tap_code(meant, moved) is None
    # A new round began: the round in the code is the screen's.
    assert tap_code(meant, a_view(round=4)) == "p204"
    assert tap_code(Intent("r"), a_view(phase="play")) is None
    assert tap_code(Intent("f"), a_view(phase="stall", can_flip=True)) == "f"
    assert tap_code(meant, a_view(finished=True)) is None


# -- telling what happened --------------------------------------------------------------------


def test_a_mistap_is_told_by_the_move_pushed_with_the_answer() -> None:
    meant = Intent("p", 2, "9c", 0)
    played = a_view(last_move={"seat": 0, "pile": 2, "card": "9c", "centre": 0, "auto": False})
    assert mistapped(meant, 0, played, a_view()) is False
    other = a_view(last_move={"seat": 0, "pile": 2, "card": "7c", "centre": 0, "auto": False})
    assert mistapped(meant, 0, other, a_view()) is True
    wrong_pile = a_view(last_move={"seat": 0, "pile": 3, "card": "Kd", "centre": 1, "auto": False})
    assert mistapped(meant, 0, wrong_pile, a_view()) is True
    theirs = a_view(last_move={"seat": 1, "pile": 0, "card": "2s", "centre": 0, "auto": False})
    assert mistapped(meant, 0, theirs, a_view()) is None


def test_a_move_that_ended_the_round_is_told_by_the_cards_at_the_tap() -> None:
    meant = Intent("p", 2, "9c", 0)
    last_card = a_view(rows=[[pile(None), pile(None), pile("9c"), pile(None)], []])
    next_round = a_view(round=4, phase="ready", last_move=None)
    assert mistapped(meant, 0, next_round, last_card) is False
    # With other cards in his row (or under this one) the round's end does not say which went.
    two_cards = a_view(rows=[[pile("5h"), pile(None), pile("9c"), pile(None)], []])
    assert mistapped(meant, 0, next_round, two_cards) is None
    under = a_view(rows=[[pile(None), pile(None), pile("9c", 1), pile(None)], []])
    assert mistapped(meant, 0, next_round, under) is None


def test_a_refusal_is_put_down_to_what_changed_the_centre_and_when() -> None:
    press = Press(1, 7, Intent("p", 2, "9c", 0), "p203", 10.0, 10, ("8s", "Qd"))
    press.tapped_at, press.answered_at = 10.5, 10.7
    before = Published(9.0, 10, ("8s", "Qd"), None, False)
    theirs = Published(10.6, 11, ("Jc", "Qd"), 1, False)
    assert why_refused(press, 0, [before, theirs]) == "other"
    early = Published(10.3, 11, ("Jc", "Qd"), 1, False)
    assert why_refused(press, 0, [before, early]) == "other_before_tap"
    unseen = Published(9.9, 11, ("Jc", "Qd"), 1, False)
    assert why_refused(press, 0, [before, unseen]) == "unseen"
    flip = Published(10.6, 11, ("3h", "Qd"), None, False)
    assert why_refused(press, 0, [before, flip]) == "flip"
    assert why_refused(press, 0, [before]) == "unexplained"
    after = Published(10.8, 11, ("Jc", "Qd"), 1, False)  # after the refusal: not its cause
    assert why_refused(press, 0, [before, after]) == "unexplained"


def test_refusals_are_grouped_by_their_words_without_the_cards() -> None:
    a = answer_kind("⚡ Too late — the table has changed. Centre: 9♣ · 10♥\ufe0f.")
    b = answer_kind("⚡ Too late — the table has changed. Centre: K♠ · 2♦.")
    assert a == b == "⚡ Too late — the table has changed. Centre: ▢ · ▢."


def test_the_share_counts_moves_only_and_the_ceiling_adds_the_news_not_yet_shown() -> None:
    player = a_player()
    published = [Published(9.0, 10, ("8s", "Qd"), None, False)]

    def press(
        seq: int, intent: Intent, ok: bool, at: float = 10.0, on: tuple[int, str] = (10, "8s")
    ) -> Press:
        version, left = on
        made = Press(seq, 7, intent, "x", at, version, (left, "Qd"), a_view(), at)
        made.ok, made.answered_at, made.text = ok, at + 1, None if ok else "Too late"
        return made

    moved = a_view(last_move={"seat": 0, "pile": 2, "card": "9c", "centre": 0, "auto": False})
    good = [press(n, Intent("p", 2, "9c", 0), True) for n in range(1, 7)]
    for made in good:
        made.result = moved
    player.presses = [
        *good,
        press(7, Intent("r"), True),
        press(8, Intent("f"), False),
        # Decided after the other's move had changed the centre, before it was shown.
        press(9, Intent("p", 2, "9c", 0), False, at=9.5),
        # Decided on the news, and beaten by the other's next move.
        press(10, Intent("p", 2, "Tc", 0), False, at=10.0, on=(11, "Jc")),
    ]
    published.append(Published(9.2, 11, ("Jc", "Qd"), 1, False))
    published.append(Published(10.5, 12, ("Qc", "Qd"), 1, False))
    run = Run([player], 1, 0, {7: published}, [3.0, 4.0, 60.0], Timings(), 0, 10, 20, 60.0)
    by_key = {figure.key: figure for figure in figures(run)}
    assert by_key["davayka_app_accepted_share"].value == 6 / 8
    assert by_key["davayka_app_accepted_share_ceiling"].value == 7 / 8
    assert by_key["davayka_app_mistaps"].value == 0
    assert by_key["davayka_app_push_p99_ms"].value == 60.0
    assert by_key["davayka_app_presses"].value == 10
    assert "2 refused: 2 × 'Too late'" in by_key["davayka_app_presses"].what


def test_a_slow_press_is_told_by_what_held_the_process_up_meanwhile() -> None:
    timings = Timings()
    slow = Stage(1.0, 1.002, 1.06)
    timings.stages = [Stage(0.5, 0.501, 0.504), slow]
    timings.loop_late = [(0.9, 1.0, 1.0), (1.05, 40.0, 12.0), (2.0, 300.0, 300.0)]
    timings.collections = [(1.01, 1.03), (3.0, 3.5)]
    held, cpu, gc_ms = timings.held_up(slow)
    assert (held, cpu) == (40.0, 12.0)
    assert abs(gc_ms - 20.0) < 1e-6
    run = Run([a_player()], 1, 0, {}, [4.0, 60.0], timings, 0, 10, 20, 60.0)
    push = next(f for f in figures(run) if f.key == "davayka_app_push_p99_ms")
    assert "1 over 50 ms: 60 ms = 2 storing in the inbox + 58 after" in push.what
    assert "woke 40 ms late, having run 12 ms of its own CPU; garbage collection 20 ms" in (
        push.what
    )
