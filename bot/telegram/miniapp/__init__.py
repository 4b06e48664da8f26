"""Every game at a table of cards: the Mini App, over a WebSocket.

One page serves every game (``GET /app/table``): a shell (sign-in, socket, reconnect, theme,
haptics, the turn and its countdown, the log, the result) and one renderer per game
(``static/games/<game>.js``), as the engines are per game. It is opened

- from a player's private panel, by its ``web_app`` button (``/app/table?game=<id>``);
- from the group's table, by a URL button to the bot's Mini App by direct link
  (``https://t.me/<bot>/<short name>?startapp=g<id>``; Telegram allows ``web_app`` buttons in
  private chats only). The page then knows its game from the ``start_param`` Telegram signs
  into ``initData``. A seated player gets his seat; any other member of the group (Telegram
  asked: :meth:`~bot.telegram.rights.TelegramRights.is_member`) **watches** — the public
  table only, live, and no moves.

Telegram signs who opened the page (``initData``). The page talks to the bot in JSON text
frames:

page → bot
    ``{"t": "hello", "init_data": "<Telegram.WebApp.initData>", "game": <id> | null}`` —
    first, once (``null``: the game the signed ``start_param`` names).
    ``{"t": "act", "code": "<action code>", "seq": <n>}`` — a press: the same action codes as
    the panel's buttons (each legal move in the view carries its own).

bot → page
    ``{"t": "state", "view": {...}, "labels": {...}, "faces": {...}}`` — the reader's view, at
    hello and after every change of the game (pushed to every page on it at once); see
    :func:`~bot.telegram.miniapp.views.page_view`; the words of the page and the card ranks in
    the reader's language.
    ``{"t": "answer", "seq": <n>, "ok": true}`` or ``{... "ok": false, "text": "Too late"}`` —
    each press judged on arrival, through the same path as a button press.
    ``{"t": "error", "code": "<code>", "text": "<words>"}`` — bad input; changes nothing. After
    an error at hello (``forged``, ``stale``, ``bad_link``, ``not_seated``, ``no_game``…) the
    socket closes. Sockets are capped (:class:`~bot.telegram.miniapp.server.SocketCaps`): one
    opened past a cap is sent ``busy`` and closed with 4000 (the page tries again later); a
    player's oldest page, past his cap, is sent ``elsewhere`` and closed with 4001 (it must
    not come back).

Trust: the reader is who Telegram signed (HMAC-SHA256, :mod:`.auth`), an hour at most ago;
``start_param`` is judged as a claim (its form, then the reader's seat or membership in the
game's chat); only a seated player's presses count; a socket carries only its reader's view
(an engine's view for a seat holds no other seat's hidden card and the public view none,
nor the deck's order); frames are capped in size and presses in rate; the Origin is the
page's own. While a player has the page open on a game, his private panel is left as it is
(his turn still pings him) and brought up to date when the page closes; with several
processes, one that holds such a page tells the leader (``{"kind": "paging", ...}``, again
every 30 s), which paces the panel as for its own.
"""
