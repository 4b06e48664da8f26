"""The bot's web server: tornado's, resting a moment when the process is out of open files.

tornado accepts connections in ``tornado.netutil.add_accept_handler``: whenever a listening
socket is readable it calls ``accept()``. Out of open files, ``accept()`` raises ``EMFILE`` and
leaves the connection waiting in the kernel's backlog, so the socket stays readable: the
event loop calls again at once, and asyncio logs a traceback each time — thousands a second,
hundreds of megabytes of log in minutes, while every other task waits its turn behind them.

:class:`WebServer` listens through :class:`RestingSocket`\\ s instead: an ``accept()`` that finds
no file to open takes the socket off the event loop for :data:`ACCEPT_REST` seconds (the
connections wait in the backlog meanwhile, and the kernel refuses new ones once it is full),
is counted in ``cardroom_accept_failed_total``, and is said in the log once a minute with a
count. As soon as files are freed — a socket closed, a connection finished — accepting goes on.
"""

from __future__ import annotations

import errno
import logging
import resource
import socket
from collections.abc import Iterable
from typing import Any, Final

from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop

from bot.telegram import metrics
from bot.telegram.tally import LogTally

logger = logging.getLogger(__name__)

#: What ``accept()`` raises when the process (``EMFILE``) or the machine (``ENFILE``) has no
#: file left for one more connection, or the kernel no memory for it.
OUT_OF_FILES: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: Seconds a listening socket rests after an ``accept()`` that found no file to open: long
#: enough not to spin, short enough that a waiting connection hardly notices.
ACCEPT_REST: Final = 0.5


class RestingSocket(socket.socket):
    """A listening socket whose ``accept()``, out of open files, takes it off the event loop
    for a moment and tells tornado there is nothing to accept (``BlockingIOError``), rather
    than raising the same error again and again."""

    def __init__(self, listening: socket.socket, tally: LogTally, rest: float) -> None:
        super().__init__(
            listening.family, listening.type, listening.proto, fileno=listening.detach()
        )
        self.setblocking(False)
        self.tally = tally
        self.rest = rest
        self._io_loop: IOLoop | None = None
        self._resting = False

    def accept(self) -> tuple[socket.socket, Any]:
        try:
            return super().accept()
        except OSError as error:
            if error.errno not in OUT_OF_FILES:
                raise  # EAGAIN (all taken), ECONNABORTED: tornado's own cases
            metrics.accept_failed()
            limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
            self.tally.add(error.strerror or errno.errorcode.get(error.errno or 0), limit)
            self._take_a_rest()
            # To tornado's accept loop: nothing more to take now.
            raise BlockingIOError(errno.EAGAIN, "accepting rests: out of open files") from None

    def _take_a_rest(self) -> None:
        if self._resting:
            return
        self._resting = True
        io_loop = self._io_loop = IOLoop.current()
        io_loop.update_handler(self, 0)
        io_loop.call_later(self.rest, self._wake)

    def _wake(self) -> None:
        self._resting = False
        if self.fileno() == -1 or self._io_loop is None:
            return  # the server has stopped meanwhile (its sockets are closed)
        self._io_loop.update_handler(self, IOLoop.READ)


class WebServer(HTTPServer):
    """tornado's ``HTTPServer``, whose listening sockets rest a moment when the process is
    out of open files (:class:`RestingSocket`)."""

    #: Seconds a listening socket rests after an ``accept()`` that found no file to open.
    accept_rest: float = ACCEPT_REST

    def add_sockets(self, sockets: Iterable[socket.socket]) -> None:
        tally = LogTally(
            logger,
            logging.WARNING,
            "Could not accept connections (%d in %.0f s): %s, the limit is %d open files; "
            "accepting rests a moment each time (see ulimit -Hn and WEBAPP_MAX_SOCKETS)",
        )
        super().add_sockets([RestingSocket(s, tally, self.accept_rest) for s in sockets])
