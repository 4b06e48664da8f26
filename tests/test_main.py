"""``python -m bot`` with bad settings: one line per bad variable, exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.__main__ import main

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
