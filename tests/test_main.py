"""``python -m bot`` with bad settings: one line per bad variable, exit status 2; a Bot API
not reachable yet, waited for up to ``TELEGRAM_WAIT_SECONDS``; a port another process holds,
exit status 3."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from telegram.error import BadRequest, InvalidToken, NetworkError, TimedOut

from bot.__main__ import log_in, main
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.server import FakeBotApiServer
from tests.e2e.test_start_up import closed_port, last_word, start_up
from tests.e2e.test_supervised_start import bot_process, lines_until, stopped_by_sigterm
from tests.test_startup import Clock

TOKEN = "123456789:AAFakeTokenForCardroomTests-0123456789"


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only the variables a test sets, and no ``.env`` file."""
    monkeypatch.chdir(tmp_path)
    for name in (
        "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_API_BASE_URL",
        "DATABASE_URL",
        "TURN_SECONDS",
        "COMPUTER_DELAY_SECONDS",
        "WEBHOOK_URL",
        "WEBHOOK_SECRET",
        "WEBHOOK_PORT",
        "LOG_LEVEL",
        "TELEGRAM_WAIT_SECONDS",
    ):
        monkeypatch.delenv(name, raising=False)


def test_a_bad_setting_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("TURN_SECONDS", "3")
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "cardroom: TURN_SECONDS must be between 10 and 3600 (got '3')\n"


def test_every_bad_setting_is_reported_and_a_secret_is_not_echoed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("WEBHOOK_SECRET", "not a valid secret!")
    monkeypatch.setenv("WEBHOOK_PORT", "https")
    monkeypatch.setenv("LOG_LEVEL", "chatty")
    assert main([]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "cardroom: WEBHOOK_SECRET must be 16 to 256 characters, each a letter A-Z or a-z, "
        "a digit, _ or -",
        "cardroom: WEBHOOK_PORT must be a whole number (got 'https')",
        "cardroom: LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (got 'chatty')",
    ]


def test_the_sandbox_reports_bad_settings_the_same_way(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPUTER_DELAY_SECONDS", "-1")
    assert main(["--sandbox", "--port", "0"]) == 2
    assert capsys.readouterr().err == (
        "cardroom: COMPUTER_DELAY_SECONDS must be between 0 and 30 (got '-1')\n"
    )


def test_without_a_token_the_bad_settings_come_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TURN_SECONDS", "many")
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err == "cardroom: TURN_SECONDS must be a whole number (got 'many')\n"


def test_a_token_not_shaped_like_one_is_one_line_before_anything_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mistyped = "123456789:AAFakeTokenForCardroomTests 0123456789"
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", mistyped)
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "cardroom: TELEGRAM_BOT_TOKEN is not shaped like a token from @BotFather: the bot's id "
        "(digits), a colon, then 35 letters, digits, _ or - (like 123456789:AAH…); copy it "
        "again\n"
    )
    assert not (tmp_path / "data").exists(), "no database was made"


def test_a_webhook_secret_short_enough_to_guess_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("WEBHOOK_URL", "https://cards.example.test/hook")
    monkeypatch.setenv("WEBHOOK_SECRET", "hunter2")
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardroom: WEBHOOK_SECRET must be at least 16 characters: ")
    assert "can be guessed" in err and err.count("\n") == 1
    assert "hunter2" not in err


def test_the_version_is_the_one_pyproject_gives(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import tomllib

    from bot import version as versions

    pyproject = Path(versions.__file__).resolve().parent.parent / "pyproject.toml"
    released = tomllib.loads(pyproject.read_text())["project"]["version"]
    assert main(["--version"]) == 0
    assert capsys.readouterr() == (f"cardroom {released}\n", "")
    # Installed, with no source tree beside the package: the package's metadata says it.
    monkeypatch.setattr(versions, "SOURCE_PYPROJECT", tmp_path / "pyproject.toml")
    monkeypatch.setattr(versions, "installed_version", lambda name: f"{name}-9.9.9")
    assert versions.version() == "cardroom-9.9.9"


# -- Telegram not reachable yet: waited for, up to TELEGRAM_WAIT_SECONDS ---------------------


class Bot:
    """A bot whose log-in (``getMe``) meets ``faults`` one after the other, then succeeds."""

    def __init__(self, *faults: Exception) -> None:
        self.faults = list(faults)
        self.tries = 0

    async def initialize(self) -> None:
        self.tries += 1
        if self.faults:
            raise self.faults.pop(0)


@pytest.fixture
def loops() -> Iterator[None]:
    """:func:`log_in` leaves its event loop as the thread's, for the run: closed after."""
    yield
    policy = asyncio.get_event_loop_policy()
    with contextlib.suppress(RuntimeError):  # none: a failed log-in closed and dropped it
        policy.get_event_loop().close()
    policy.set_event_loop(None)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


@pytest.mark.usefixtures("loops")
def test_telegram_not_reachable_is_tried_again_with_backoff_until_it_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot = Bot(NetworkError("httpx.ConnectError: All connection attempts failed"), TimedOut())
    clock = Clock()
    caplog.set_level(logging.INFO, "bot.startup")
    log_in(SimpleNamespace(bot=bot), 60, None, sleep=clock.sleep, clock=clock)  # type: ignore[arg-type]
    assert bot.tries == 3
    assert clock.pauses == [0.5, 1.0]
    assert warnings_of(caplog) == [
        "Could not reach Telegram at https://api.telegram.org (httpx.ConnectError: All "
        "connection attempts failed); trying again in 0.5 s",
        "Could not reach Telegram at https://api.telegram.org (Timed out); trying again in 1.0 s",
    ]
    assert "Reached Telegram at https://api.telegram.org (try 3)" in caplog.messages
    assert not asyncio.get_event_loop_policy().get_event_loop().is_closed(), "the run's loop"


@pytest.mark.usefixtures("loops")
def test_telegram_never_reachable_is_given_up_after_the_wait_with_the_last_fault(
    caplog: pytest.LogCaptureFixture,
) -> None:
    faults = [NetworkError(f"refused {n}") for n in range(20)]
    clock = Clock()
    caplog.set_level(logging.INFO, "bot.startup")
    base_url = "http://cardroom:hunter2@127.0.0.1:8081/bot"
    with pytest.raises(NetworkError) as raised:
        log_in(
            SimpleNamespace(bot=Bot(*faults)),  # type: ignore[arg-type]
            20,
            base_url,
            sleep=clock.sleep,
            clock=clock,
        )
    assert str(raised.value) == "refused 7"
    assert clock.pauses == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 2.5], "doubling up to 5 s, 20 s in all"
    lines = warnings_of(caplog)
    assert len(lines) == 7, "one line a try"
    assert lines[0] == (
        "Could not reach the Bot API at TELEGRAM_API_BASE_URL http://cardroom:***@127.0.0.1:8081"
        "/bot (refused 0); trying again in 0.5 s"
    )
    assert "hunter2" not in caplog.text


@pytest.mark.usefixtures("loops")
@pytest.mark.parametrize(
    "fault",
    [NetworkError("down"), InvalidToken("Unauthorized"), BadRequest("Chat not found")],
    ids=["no-wait", "refused-token", "an-answer"],
)
def test_a_refused_token_an_answer_or_no_wait_is_one_try(
    fault: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    seconds = 0 if type(fault) is NetworkError else 600
    with pytest.raises(type(fault)):
        log_in(
            SimpleNamespace(bot=Bot(fault)),  # type: ignore[arg-type]
            seconds,
            None,
            sleep=clock.sleep,
            clock=clock,
        )
    assert clock.pauses == [] and warnings_of(caplog) == []
    with pytest.raises(RuntimeError):  # the loop closed and dropped: nothing left running
        asyncio.get_event_loop_policy().get_event_loop()


async def test_telegram_that_comes_up_during_the_wait_is_waited_for_then_the_bot_runs(
    tmp_path: Path,
) -> None:
    api = FakeBotApi(flood_limits=False)
    port = closed_port()
    said: list[str] = []
    async with bot_process(
        tmp_path,
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_API_BASE_URL=f"http://127.0.0.1:{port}/bot",
        TELEGRAM_WAIT_SECONDS="30",
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
    ) as process:
        assert process.stderr is not None
        first = await lines_until(process.stderr, "trying again in", said)
        second = await lines_until(process.stderr, "trying again in", said)
        async with FakeBotApiServer(api, port=port):
            await lines_until(process.stderr, "This process leads", said)
            process.send_signal(signal.SIGTERM)
            rest = (await asyncio.wait_for(process.stderr.read(), 20)).decode()
            await process.wait()
    assert " WARNING bot.startup: Could not reach the Bot API at TELEGRAM_API_BASE_URL " in first
    assert first.rstrip().endswith("; trying again in 0.5 s"), first
    assert second.rstrip().endswith("; trying again in 1.0 s"), second
    log = "".join(said) + rest
    assert f"Reached the Bot API at TELEGRAM_API_BASE_URL http://127.0.0.1:{port}/bot" in log
    assert process.returncode == 0, log
    assert api.token.partition(":")[2] not in log
    assert "Traceback" not in log and " ERROR " not in log, log


async def test_telegram_not_reachable_within_the_wait_is_one_line_and_status_3(
    tmp_path: Path,
) -> None:
    port = closed_port()
    started = time.monotonic()
    status, err = await start_up(
        tmp_path,
        TELEGRAM_API_BASE_URL=f"http://cardroom:hunter2@127.0.0.1:{port}/bot",
        TELEGRAM_WAIT_SECONDS="2",
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
        HEALTH_PORT="0",
    )
    assert time.monotonic() - started < 30
    assert status == 3, err
    tries = [line for line in err.splitlines() if " WARNING bot.startup: " in line]
    assert len(tries) >= 2, err
    assert tries[0].endswith("; trying again in 0.5 s"), tries[0]
    assert tries[1].endswith("; trying again in 1.0 s"), tries[1]
    line = last_word(err)
    assert line.startswith(
        "cardroom: could not reach the Bot API at TELEGRAM_API_BASE_URL "
        f"http://cardroom:***@127.0.0.1:{port}/bot: httpx.ConnectError"
    ), line
    assert "hunter2" not in err and "FakeTokenForCardroomTests" not in err


async def test_sigterm_while_waiting_for_telegram_stops_at_once_with_status_0(
    tmp_path: Path,
) -> None:
    async with bot_process(
        tmp_path,
        TELEGRAM_WAIT_SECONDS="600",
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
    ) as process:
        assert process.stderr is not None
        said: list[str] = []
        await lines_until(process.stderr, "trying again in", said)
        await stopped_by_sigterm(process, said)


# -- a port another process holds: it may pass, exit status 3 ---------------------------------


@pytest.mark.parametrize(
    ("mode", "serves", "setting"),
    [
        ({"WEBHOOK_URL": "https://cards.example.test/hook"}, "the webhook", "WEBHOOK_PORT"),
        (
            {"WEBAPP_URL": "https://cards.example.test"},
            "the Mini App (WEBAPP_URL)",
            "WEBHOOK_PORT",
        ),
        ({}, "/healthz, /readyz and /metrics", "HEALTH_PORT"),
    ],
    ids=["webhook", "polling-with-mini-app", "health"],
)
async def test_a_port_another_process_holds_is_one_line_and_status_3(
    tmp_path: Path, mode: dict[str, str], serves: str, setting: str
) -> None:
    """The process this one replaces may still hold its port while it stops: a supervisor
    should start the bot again (3), not give up on it (2)."""
    api = FakeBotApi(flood_limits=False)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        ports = {"WEBHOOK_PORT": str(closed_port()), "HEALTH_PORT": "0", setting: str(port)}
        async with FakeBotApiServer(api) as server:
            status, err = await start_up(
                tmp_path,
                TELEGRAM_BOT_TOKEN=api.token,
                TELEGRAM_API_BASE_URL=server.base_url,
                DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
                WEBHOOK_LISTEN="127.0.0.1",
                HEALTH_HOST="127.0.0.1",
                **ports,
                **mode,
            )
    assert status == 3, err
    assert last_word(err) == (
        f"cardroom: cannot listen for {serves} on 127.0.0.1:{port} (Address already in use): "
        "another process holds it (the one this replaces, still stopping?); free it or set "
        f"{setting} to a free port"
    )
