"""The image's recipe, held to its rules and to the code (no Docker daemon needed).

The ``Dockerfile`` is parsed as Docker reads it (continued lines joined, comments dropped,
``ARG`` defaults put into ``FROM``): the base pinned by digest; the dependencies installed in a
layer of their own before the code arrives, from ``requirements.lock`` alone, which pins every
dependency ``pyproject.toml`` declares (transitive ones too) at a version it admits; one copy
of the code, the installed package; no ``VOLUME``; exec-form commands, so the bot gets
SIGTERM; every setting it sets a setting of the bot; a ``.dockerignore`` that keeps secrets
and data out of the build. Its ``HEALTHCHECK`` command is run as Docker would run it, against
the health listener of a real bot process.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from fnmatch import fnmatch
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from pathlib import Path
from threading import Thread

import httpx
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.server import FakeBotApiServer
from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"


@dataclass(frozen=True, slots=True)
class Instruction:
    keyword: str
    arguments: str


def instructions(text: str) -> list[Instruction]:
    """The Dockerfile's instructions, its continued lines joined and its comments dropped."""
    found: list[Instruction] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if pending and line.lstrip().startswith("#"):  # a comment inside a continued line
            continue
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        keyword, _, arguments = pending.strip().partition(" ")
        found.append(Instruction(keyword.upper(), arguments.strip()))
        pending = ""
    assert not pending, "the Dockerfile ends in a continued line"
    return found


def stages(found: list[Instruction]) -> list[list[Instruction]]:
    """The build stages: each from its ``FROM`` on (the ``ARG`` before the first apart)."""
    result: list[list[Instruction]] = []
    for instruction in found:
        if instruction.keyword == "FROM":
            result.append([])
        if result:
            result[-1].append(instruction)
    return result


def global_args(found: list[Instruction]) -> dict[str, str]:
    """The ``ARG`` defaults declared before the first ``FROM`` (the ones ``FROM`` may use)."""
    values: dict[str, str] = {}
    for instruction in found:
        if instruction.keyword == "FROM":
            break
        if instruction.keyword == "ARG":
            name, _, value = instruction.arguments.partition("=")
            values[name] = value
    return values


def exec_form(instruction: Instruction, prefix: str = "") -> list[str]:
    """The JSON array of an exec-form instruction (after ``prefix``, e.g. ``CMD``)."""
    text = instruction.arguments.removeprefix(prefix).strip()
    assert text.startswith("["), f"{instruction.keyword} must be in exec form: {text}"
    command = json.loads(text)
    assert isinstance(command, list) and all(isinstance(part, str) for part in command)
    return command


@pytest.fixture(scope="module")
def dockerfile() -> list[Instruction]:
    return instructions(DOCKERFILE.read_text(encoding="utf-8"))


def healthcheck_command(found: list[Instruction]) -> list[str]:
    (check,) = [i for i in stages(found)[-1] if i.keyword == "HEALTHCHECK"]
    options, _, command = check.arguments.partition("CMD ")
    assert "--start-period" in options, "a bot that migrates and waits for its database first"
    return exec_form(Instruction("HEALTHCHECK", command))


def test_the_base_is_pinned_by_digest(dockerfile: list[Instruction]) -> None:
    arguments = global_args(dockerfile)
    names: set[str] = set()
    for stage in stages(dockerfile):
        image, _, name = stage[0].arguments.partition(" AS ")
        image = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: arguments[m[1] or m[2]], image.strip())
        if image not in names:
            assert re.fullmatch(r"[\w./-]+:\d+\.\d+\.\d+[\w.-]*@sha256:[0-9a-f]{64}", image), (
                f"FROM {image}: an exact version and its digest"
            )
        names.add(name.strip())


def test_the_dependencies_are_installed_from_the_lock_alone_before_the_code_arrives(
    dockerfile: list[Instruction],
) -> None:
    """A change of the bot's code or version must reuse the dependencies' layer: only the
    lock is copied before it, and the layer installs exactly that."""
    final = stages(dockerfile)[-1]
    brings_code = [
        n
        for n, i in enumerate(final)
        if (i.keyword == "COPY" and ("--from" in i.arguments or "bot" in i.arguments.split()))
        or (i.keyword == "RUN" and "--mount" in i.arguments and "from=" in i.arguments)
    ]
    assert brings_code, "the final stage installs the bot"
    before = final[: brings_code[0]]
    copied = [i.arguments.split() for i in before if i.keyword in {"COPY", "ADD"}]
    assert [words[:-1] for words in copied] == [["requirements.lock"]], (
        f"only requirements.lock before the dependencies are installed, not {copied}"
    )
    lock = copied[0][-1]
    (install,) = [
        i.arguments for i in before if i.keyword == "RUN" and "pip install" in i.arguments
    ]
    assert f"pip install --no-deps --requirement {lock}" in install, install
    assert "pip check" in install, "a package the lock lacks fails the build"
    assert "pyproject" not in install


def locked() -> dict[str, Version]:
    """requirements.lock: each package's canonical name, and the one version pinned."""
    pins: dict[str, Version] = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        requirement = Requirement(line)
        (pin,) = requirement.specifier
        assert pin.operator == "==" and "*" not in pin.version, f"not pinned: {line}"
        assert not requirement.extras and requirement.marker is None, line
        name = canonicalize_name(requirement.name)
        assert name not in pins, f"{name} pinned twice"
        pins[name] = Version(pin.version)
    return pins


def declared() -> list[Requirement]:
    """What ``pip install ".[postgres]"`` asks for: the dependencies and the extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [
        Requirement(line)
        for line in project["dependencies"] + project["optional-dependencies"]["postgres"]
    ]


def test_the_lock_pins_every_declared_dependency_at_a_version_pyproject_admits() -> None:
    pins = locked()
    assert "cardroom" not in pins, "the bot itself comes from its wheel"
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} is not in requirements.lock: regenerate it"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {name}=={pins[name]}, which {requirement} does not admit: "
            "regenerate it (its header says how)"
        )


def test_the_lock_holds_every_transitive_dependency() -> None:
    """Followed from pyproject's requirements through the metadata of the packages installed
    here, wherever their version is the locked one (the others' requirements are not known
    here): every package reached is pinned."""
    pins = locked()
    unpinned: list[str] = []
    followed: set[str] = set()
    waiting = [(requirement, "pyproject.toml") for requirement in declared()]
    seen: set[tuple[str, frozenset[str]]] = set()
    while waiting:
        requirement, wanted_by = waiting.pop()
        name = canonicalize_name(requirement.name)
        if name not in pins:
            unpinned.append(f"{requirement} (for {wanted_by})")
            continue
        if (name, frozenset(requirement.extras)) in seen:
            continue
        seen.add((name, frozenset(requirement.extras)))
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if Version(distribution.version) != pins[name]:
            continue
        followed.add(name)
        for line in distribution.requires or []:
            needed = Requirement(line)
            extras = {"", *requirement.extras}
            if needed.marker is None or any(
                needed.marker.evaluate({"extra": extra}) for extra in extras
            ):
                waiting.append((needed, name))
    assert not unpinned, f"needed but not in requirements.lock (regenerate it): {unpinned}"
    assert len(followed) >= len(declared()), f"too few packages followed: {sorted(followed)}"


def test_no_volume_and_commands_in_exec_form(dockerfile: list[Instruction]) -> None:
    assert not [i for i in dockerfile if i.keyword == "VOLUME"], (
        "no anonymous volume: a PostgreSQL worker has no use for one (SQLite: -v name:/data)"
    )
    final = stages(dockerfile)[-1]
    (command,) = [i for i in final if i.keyword == "CMD"]
    assert exec_form(command) == ["python", "-m", "bot"]
    for entrypoint in (i for i in final if i.keyword == "ENTRYPOINT"):
        exec_form(entrypoint)


def test_what_it_sets_and_exposes_are_the_bots_settings(dockerfile: list[Instruction]) -> None:
    final = stages(dockerfile)[-1]
    settings = set(Settings.model_fields)
    for instruction in final:
        if instruction.keyword == "ENV":
            for assignment in shlex.split(instruction.arguments):
                name = assignment.partition("=")[0]
                if not name.startswith(("PYTHON", "PIP_")):
                    assert name.lower() in settings, f"ENV {name} is not a setting"
    (exposed,) = [i.arguments.split() for i in final if i.keyword == "EXPOSE"]
    defaults = Settings.model_fields
    assert set(exposed) == {
        str(defaults["webhook_port"].default),
        str(defaults["health_port"].default),
    }
    assert "HEALTH_PORT" in healthcheck_command(dockerfile)[-1]


def test_the_build_context_leaves_out_secrets_data_and_environments() -> None:
    ignored = {
        line.strip().rstrip("/")
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".env", "data", ".venv", ".git", "test-artifacts"} <= ignored
    assert not [line for line in ignored if line.startswith("!")]
    needed = ["requirements.lock", "pyproject.toml", "README.md", "bot", "migrations"]
    assert not [name for name in needed for line in ignored if fnmatch(name, line)], (
        "what the Dockerfile copies must reach the builder"
    )


# -- the HEALTHCHECK, run ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_check(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """The HEALTHCHECK's command as Docker runs it in the container (its ``python`` ours)."""
    assert command[0] == "python"
    assert not {"curl", "wget"} & set(" ".join(command).split()), "no curl in a slim image"
    base = {name: value for name, value in os.environ.items() if not name.startswith("HEALTH_")}
    return subprocess.run(
        [sys.executable, *command[1:]],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


class _Unready(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(503)
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


def test_the_healthcheck_fails_when_health_does_not_answer_200(
    dockerfile: list[Instruction],
) -> None:
    command = healthcheck_command(dockerfile)
    assert run_check(command, HEALTH_PORT=str(free_port())).returncode != 0  # nothing listens
    off = run_check(command, HEALTH_PORT="0")
    assert off.returncode != 0 and "--no-healthcheck" in off.stderr
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unready)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        answer = run_check(command, HEALTH_PORT=str(server.server_address[1]))
        assert answer.returncode != 0
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_the_healthcheck_passes_against_a_running_bot(
    dockerfile: list[Instruction], tmp_path: Path, mode: str
) -> None:
    command = healthcheck_command(dockerfile)
    api = FakeBotApi(flood_limits=False)
    port = free_port()
    async with FakeBotApiServer(api) as fake:
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(("TELEGRAM_", "DATABASE_", "WEBHOOK_", "WEBAPP_", "HEALTH_"))
        }
        env.update(
            PYTHONPATH=str(ROOT),
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_BASE_URL=fake.base_url,
            HEALTH_PORT=str(port),
            LOG_LEVEL="WARNING",
        )
        if mode == "webhook":  # the public port elsewhere: health keeps to its own
            env.update(
                WEBHOOK_URL="https://cards.example.test/hook",
                WEBHOOK_LISTEN="127.0.0.1",
                WEBHOOK_PORT=str(free_port()),
            )
        bot = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=tmp_path,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            async with httpx.AsyncClient(timeout=5) as client:
                for _ in range(300):
                    assert bot.returncode is None, "the bot stopped"
                    try:
                        if (await client.get(f"http://127.0.0.1:{port}/healthz")).is_success:
                            break
                    except httpx.TransportError:
                        pass
                    await asyncio.sleep(0.2)
            check = await asyncio.to_thread(run_check, command, HEALTH_PORT=str(port))
            assert check.returncode == 0, check.stderr
            # HEALTH_HOST=0.0.0.0 (Prometheus on a private network): it asks over loopback.
            check = await asyncio.to_thread(
                run_check, command, HEALTH_PORT=str(port), HEALTH_HOST="0.0.0.0"
            )
            assert check.returncode == 0, check.stderr
        finally:
            bot.send_signal(signal.SIGTERM)
            await asyncio.wait_for(bot.wait(), 20)
