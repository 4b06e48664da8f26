"""``python -m bot --sandbox``: no token, its own database, the page, the real bot, Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from pathlib import Path
from typing import Any

import httpx

from tests.sandbox.conftest import AS_THE_PAGE, SandboxProcess, sandbox_env, start_sandbox


async def state(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/sandbox/api/state")
    response.raise_for_status()
    result: dict[str, Any] = response.json()
    return result


def group_messages(world: dict[str, Any]) -> list[dict[str, Any]]:
    group = next(chat for chat in world["chats"] if chat["id"] == world["group_id"])
    messages: list[dict[str, Any]] = group["messages"]
    return messages


async def until(client: httpx.AsyncClient, test: Any, timeout: float = 20) -> dict[str, Any]:  # noqa: ASYNC109
    """The state once ``test(state)`` holds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        world = await state(client)
        if test(world):
            return world
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"not reached in {timeout}s: {world}")
        await asyncio.sleep(0.1)


async def test_the_sandbox_runs_the_real_bot_without_a_token(sandbox: SandboxProcess) -> None:
    assert sandbox.stdout.startswith("Cardroom sandbox: http://127.0.0.1:")
    assert (sandbox.folder / "data" / "sandbox.db").exists(), "its own database, migrated"
    assert not (sandbox.folder / "data" / "cardroom.db").exists()
    async with httpx.AsyncClient(base_url=sandbox.url, timeout=30) as client:
        page = await client.get("/")
        assert page.status_code == 200 and "Cardroom sandbox" in page.text
        world = await until(client, lambda w: bool(w["users"][0]["commands"]["group"]))
        anna = world["users"][0]
        sent = await client.post(
            "/sandbox/api/send",
            json={"user_id": anna["id"], "chat_id": world["group_id"], "text": "/new rank"},
            headers=AS_THE_PAGE,
        )
        assert sent.status_code == 200
        world = await until(
            client, lambda w: any("Add computer" in str(m["keyboard"]) for m in group_messages(w))
        )
        lobby = group_messages(world)[-1]
        assert lobby["from"]["is_bot"] and "Rank" in lobby["text"]
        assert any(entity["type"] == "bold" for entity in lobby["entities"])
        join = next(
            button for row in lobby["keyboard"] for button in row if "Join" in button["text"]
        )
        boris = world["users"][1]
        answer = await client.post(
            "/sandbox/api/press",
            json={
                "user_id": boris["id"],
                "chat_id": world["group_id"],
                "message_id": lobby["id"],
                "data": join["value"],
            },
            headers=AS_THE_PAGE,
        )
        assert answer.json()["answered"] and answer.json()["text"]
        await until(client, lambda w: "Boris" in group_messages(w)[-1]["text"])


async def test_ctrl_c_while_the_page_waits_stops_cleanly(sandbox: SandboxProcess) -> None:
    async with httpx.AsyncClient(base_url=sandbox.url, timeout=30) as client:
        revision = (await state(client))["revision"]
        waiting = asyncio.create_task(client.get(f"/sandbox/api/state?since={revision + 10**6}"))
        await asyncio.sleep(0.3)
        assert await sandbox.stop() == 0
        with contextlib.suppress(httpx.HTTPError):  # the server closed the connection
            await waiting
    assert "Stopping the sandbox" in sandbox.stderr


async def test_a_busy_port_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "--sandbox",
            "--port",
            str(port),
            cwd=tmp_path,
            env=sandbox_env(),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1
    assert out == b""
    last = err.decode().strip().splitlines()[-1]
    assert last.startswith("cardroom: cannot listen on 127.0.0.1:") and "--port" in last
    assert "Traceback" not in err.decode()


async def test_sandbox_options_need_the_sandbox(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "--port",
        "8080",
        cwd=tmp_path,
        env=sandbox_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    assert "--port and --database-url go with --sandbox" in err.decode()


async def test_a_database_url_can_be_given(tmp_path: Path) -> None:
    database = tmp_path / "elsewhere.db"
    running = await start_sandbox(tmp_path, "--database-url", f"sqlite+aiosqlite:///{database}")
    assert await running.stop() == 0, running.stderr
    assert database.exists() and not (tmp_path / "data").exists()


async def test_a_database_url_no_driver_can_open_is_one_clear_line(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "--sandbox",
        "--port",
        "0",
        "--database-url",
        "postgresql+nosuchdriver://cardroom:hunter2@db/cardroom",
        cwd=tmp_path,
        env=sandbox_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    assert out == b""
    (line,) = err.decode().splitlines()
    assert line.startswith(
        "cardroom: --database-url postgresql+nosuchdriver://cardroom:***@db/cardroom: the scheme "
        "'postgresql+nosuchdriver' is not one the bot can open; use sqlite+aiosqlite:///"
    ), line
