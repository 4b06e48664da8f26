"""A process out of open files rests its listening sockets and says so once a minute; tornado's
own accept loop logs a traceback per attempt, thousands a second (issue #34).

The server runs in a process of its own whose limit of open files is lowered to a few more
than it has open; this test then opens more connections to it than it can take.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
#: A web server with a few files to spare, for ``argv[1]`` seconds; its port on stdout.
SERVER = """
import asyncio, logging, os, resource, sys
from tornado.netutil import bind_sockets
from tornado.web import Application, RequestHandler
from bot.telegram.webserver import WebServer

class Ok(RequestHandler):
    def get(self):
        self.finish("ok")

async def main():
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    sockets = bind_sockets(0, "127.0.0.1")
    port = sockets[0].getsockname()[1]
    WebServer(Application([("/", Ok)])).add_sockets(sockets)
    files = len(os.listdir("/proc/self/fd"))
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (files + 3, hard))
    print(port, flush=True)
    await asyncio.sleep(float(sys.argv[1]))

asyncio.run(main())
"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts files in /proc")
def test_out_of_open_files_the_server_rests_says_so_once_and_accepts_again_once_freed() -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, "3.5"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        # Ten connections where it has files for about three: the rest wait in the backlog.
        waiting = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
        time.sleep(1.5)
        for connection in waiting:
            connection.close()
        # Files freed, accepting goes on.
        answer = httpx.get(f"http://127.0.0.1:{port}/", timeout=3)
        assert answer.status_code == 200 and answer.text == "ok"
        _, log = server.communicate(timeout=10)
    finally:
        server.kill()
        server.wait()
    said = [line for line in log.splitlines() if "Could not accept connections" in line]
    assert len(said) == 1, log[-3000:]
    assert said[0].startswith("WARNING bot.telegram.webserver: ")
    assert "Too many open files" in said[0]
    assert "Traceback" not in log and "Exception in callback" not in log
    assert len(log) < 2000, "a line, not a flood"
