"""The wheel works anywhere: built from the source, installed into a fresh virtualenv and run
from an empty folder, the bot migrates its database and serves every page and file it offers.

An installed copy has only what ``pyproject.toml`` declares: a file the bot reads at run time
(the Mini App's page and scripts, the sandbox's page, the catalogs, Alembic's migrations) that
is not package data works from the source folder and nowhere else — the Mini App once answered
500 from any installed copy. So the wheel is built as an operator's ``pip install`` builds it,
installed with ``pip`` (its dependencies taken from this environment: nothing is downloaded),
and run by its own ``python -m bot`` in a folder that holds nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from alembic.script import ScriptDirectory

from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.server import FakeBotApiServer

ROOT = Path(__file__).resolve().parents[1]
#: The packages the wheel ships (``[tool.setuptools.packages.find]``).
PACKAGES = ("bot", "migrations")
#: Environment variables a bot process may inherit: none of them is a setting.
INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "MPLCONFIGDIR", "XDG_CACHE_HOME")
START_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Installed:
    """The built wheel and the virtualenv's interpreter it is installed for."""

    wheel: Path
    python: Path


def source_files(package: str) -> set[str]:
    """The files of ``package`` in the source tree that are not Python code, as wheel paths."""
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / package).rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and path.suffix not in {".py", ".pyc"}
    }


def build_wheel(folder: Path) -> Path:
    """The wheel ``pip wheel`` builds from a clean copy of the source (a build in the working
    tree would leave ``build/`` behind, whose stale files could hide a missing one)."""
    source = folder / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    dist = folder / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    if built.returncode != 0:
        if "No matching distribution found" in built.stderr:  # setuptools not at hand, offline
            pytest.skip(f"cannot build the wheel here: {built.stderr.strip().splitlines()[-1]}")
        pytest.fail(f"pip wheel failed:\n{built.stdout}\n{built.stderr}")
    (wheel,) = dist.glob("cardroom-*.whl")
    return wheel


def install(wheel: Path, folder: Path) -> Path:
    """A fresh virtualenv with ``wheel`` installed by ``pip``, and this environment's
    dependencies on its path; its interpreter."""
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # pip installs for the new interpreter (--python) before the dependencies are on its path,
    # so it never sees this environment's editable install of the project.
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    subprocess.run(
        [*pip, "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=120,
    )
    # The dependencies, from this environment, after the venv's own site-packages: plain
    # paths, so no .pth file there (the editable install's finder among them) is run.
    site_packages = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site_packages / "dependencies-of-the-test.pth").write_text("\n".join(sorted(ours)) + "\n")
    return python


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    folder = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(folder)
    return Installed(wheel, install(wheel, folder))


def clean_env(**settings: str) -> dict[str, str]:
    """An environment with no setting and no path to the source, but ``settings``."""
    env = {name: os.environ[name] for name in INHERITED if name in os.environ}
    # Warnings only: nobody reads a process's output until it stops, so it must stay short.
    env.update(PYTHONDONTWRITEBYTECODE="1", LOG_LEVEL="WARNING", **settings)
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def head_revision() -> str:
    head = ScriptDirectory(str(ROOT / "migrations")).get_current_head()
    assert head is not None
    return head


def revision_of(database: Path) -> str:
    assert database.exists(), f"{database} was not created"
    with contextlib.closing(sqlite3.connect(database)) as connection:
        (revision,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return str(revision)


@contextlib.asynccontextmanager
async def running(
    python: Path, folder: Path, env: dict[str, str], *arguments: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The installed ``python -m bot`` run in ``folder``, stopped by SIGTERM at the end."""
    process = await asyncio.create_subprocess_exec(
        str(python),
        "-m",
        "bot",
        *arguments,
        cwd=folder,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 20)
            except TimeoutError:
                process.kill()
                await process.wait()


async def output_of(process: asyncio.subprocess.Process) -> str:
    assert process.stdout is not None
    with contextlib.suppress(TimeoutError):
        return (await asyncio.wait_for(process.stdout.read(), 5)).decode(errors="replace")
    return ""


async def first_answer(
    client: httpx.AsyncClient, url: str, process: asyncio.subprocess.Process
) -> httpx.Response:
    """The first answer to ``GET url`` once the process listens (its output if it stops)."""
    deadline = asyncio.get_running_loop().time() + START_SECONDS
    while True:
        if process.returncode is not None:
            pytest.fail(f"the bot stopped ({process.returncode}):\n{await output_of(process)}")
        try:
            return await client.get(url)
        except httpx.TransportError:
            if asyncio.get_running_loop().time() > deadline:
                pytest.fail(f"nothing answered at {url} in {START_SECONDS:.0f} s")
            await asyncio.sleep(0.2)


async def sandbox_url(process: asyncio.subprocess.Process) -> str:
    """The address the sandbox says it serves its page at, once it does."""
    assert process.stdout is not None
    said = b""
    async with asyncio.timeout(START_SECONDS):
        while line := await process.stdout.readline():
            said += line
            found = re.search(rb"Cardroom sandbox: (http://127\.0\.0\.1:\d+)/", line)
            if found:
                return found.group(1).decode()
    pytest.fail(f"the sandbox stopped ({await process.wait()}):\n{said.decode()}")


def test_the_wheel_holds_every_file_of_the_source(installed: Installed) -> None:
    """Every file beside the code (pages, scripts, styles, catalogs, templates) ships."""
    with zipfile.ZipFile(installed.wheel) as wheel:
        shipped = set(wheel.namelist())
    expected = set().union(*(source_files(package) for package in PACKAGES))
    assert "bot/telegram/miniapp/static/table.html" in expected  # the walk finds them
    assert sorted(expected - shipped) == []


async def test_the_installed_bot_migrates_and_serves_its_pages_from_an_empty_folder(
    installed: Installed, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    probe = await asyncio.to_thread(
        subprocess.run,
        [str(installed.python), "-c", "import bot, migrations; print(bot.__file__)"],
        cwd=empty,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(probe.stdout.strip()).is_relative_to(installed.python.parents[1]), (
        "the bot must be imported from the wheel, not from the source"
    )
    static = ROOT / "bot" / "telegram" / "miniapp" / "static"
    api = FakeBotApi(flood_limits=False)
    port = free_port()
    bot_env = clean_env(
        TELEGRAM_BOT_TOKEN=api.token,
        WEBHOOK_URL="https://cards.example.test/hook",
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBAPP_URL="https://cards.example.test",
        HEALTH_PORT="0",
    )
    async with (
        FakeBotApiServer(api) as fake,
        httpx.AsyncClient(timeout=10) as client,
        running(
            installed.python, empty, {**bot_env, "TELEGRAM_API_BASE_URL": fake.base_url}
        ) as bot,
        running(installed.python, empty, clean_env(), "--sandbox", "--port", "0") as sandbox,
    ):
        # The Mini App, on the webhook's port: the page and every file it loads.
        page = await first_answer(client, f"http://127.0.0.1:{port}/app/table?game=1", bot)
        assert page.status_code == 200, page.text
        assert "<html" in page.text
        loaded = set(re.findall(r"""(?:src|href)="/app/static/([^"?#]+)""", page.text))
        assert loaded, "the page loads its scripts and styles from /app/static/"
        shipped = {str(p.relative_to(static)) for p in static.rglob("*") if p.is_file()}
        for name in sorted(loaded | shipped):
            answer = await client.get(f"http://127.0.0.1:{port}/app/static/{name}")
            assert answer.status_code == 200, name
            assert answer.content == (static / name).read_bytes(), name

        # The sandbox: its page and the files it loads, where it says it is.
        url = await sandbox_url(sandbox)
        page = await client.get(url + "/")
        assert page.status_code == 200
        assert page.content == (ROOT / "bot" / "sandbox" / "static" / "index.html").read_bytes()
        for name in ("sandbox.js", "sandbox.css"):
            answer = await client.get(f"{url}/static/{name}")
            assert answer.status_code == 200, name
            assert answer.content == (ROOT / "bot" / "sandbox" / "static" / name).read_bytes()

    # Each made its database in the empty folder and brought it to the newest revision.
    assert revision_of(empty / "data" / "cardroom.db") == head_revision()
    assert revision_of(empty / "data" / "sandbox.db") == head_revision()
