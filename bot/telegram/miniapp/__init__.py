"""Davay-ka! in real time: a Mini App table, over a WebSocket.

A player opens the page (``GET /app/davayka?game=<id>``) from the ``web_app`` button of his
private panel; Telegram signs who he is (``initData``). The page talks to the bot over one
WebSocket (``/app/socket``), in JSON text frames:

page → bot
    ``{"t": "hello", "init_data": "<Telegram.WebApp.initData>", "game": <id>}`` — first, once.
    ``{"t": "act", "code": "<action code>", "seq": <n>}`` — a press: the same action codes as
    the panel's buttons (``r`` Ready, ``f`` «Давай-ка!», ``p<pile 0-3><centre 0|1|x><round>``
    a row pile's top card, onto a centre pile or wherever it fits).

bot → page
    ``{"t": "state", "view": {...}}`` — the player's view, at hello and after every change of
    the game (pushed to both players at once); see :func:`~bot.telegram.miniapp.views.view_json`.
    ``{"t": "answer", "seq": <n>, "ok": true}`` or ``{... "ok": false, "text": "Too late"}`` —
    each press judged on arrival, through the same path as a button press.
    ``{"t": "error", "code": "<code>", "text": "<words>"}`` — bad input; changes nothing. After
    an error at hello (``forged``, ``stale``, ``not_seated``, ``no_game``…) the socket closes.
    Sockets are capped (:class:`~bot.telegram.miniapp.server.SocketCaps`): one opened past a
    cap is sent ``busy`` and closed with 4000 (the page tries again later); a player's oldest
    page, past his cap, is sent ``elsewhere`` and closed with 4001 (it must not come back).

Trust: the player is who Telegram signed (HMAC-SHA256, :mod:`.auth`), an hour at most ago;
only a seated player's presses count; a socket carries only its player's view (Davay-ka!'s
views hold no face-down card); frames are capped in size and presses in rate; the Origin is the
page's own.
"""
