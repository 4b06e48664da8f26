/*
 * The Mini App's shell: one page for every game of Cardroom.
 *
 * The shell signs in (Telegram's signed initData, and the game: `?game=<id>` from a private
 * panel's button, or the `startapp` of the group's direct link, which the bot reads from
 * initData), keeps one WebSocket open (reconnecting, waiting longer after each failure),
 * follows Telegram's theme, gives haptic feedback, and draws what every game has: the title,
 * the players (whose move it is, who is the reader), whose move and the time left, the log,
 * the result and the next game of a series. The protocol is bot/telegram/miniapp/__init__.py's.
 *
 * Each game's own part is drawn by its renderer (games/<key>.js), registered with
 *
 *     Cardroom.register("<key>", {
 *       render(view, ui) { ...; return ["<code>", ...]; },  // the move codes it put on screen
 *       facts(view, seat, ui) { return "5 cards"; },         // optional: under a player's name
 *       turn(view, ui) { return { text, deadline }; },       // optional: the status line
 *     });
 *
 * `render` fills `ui.table` (the middle of the screen) and `ui.hand` (the reader's own cards,
 * at the bottom), both emptied before each call unless the renderer keeps its elements
 * (`ui.keep`), and may add buttons to `ui.actions`. Every legal move whose code it does not
 * return is shown by the shell as a button in `ui.actions`, labelled as the chat's panel
 * labels it: no move is ever out of reach. `ui`:
 *
 *   seat          the reader's seat, or null for an onlooker (then `view.moves` is empty)
 *   say(key, v)   a word of the page in the reader's language (`labels`), `v` put in its {}
 *   name(seat)    a player's name, as text
 *   el(tag, className, text)                      an element
 *   card(code, {move, small, selected, onTap})    a card's face ("Ts"; "XJ" a joker; null an
 *                 empty place; "back" a face-down card); with `move` (one of view.moves) it
 *                 is highlighted as legal and a tap sends that move
 *   back(count, {small})                          a face-down stack with its count
 *   button(label, move | fn, {primary})           a button that sends a move, or calls fn
 *   act(code)     send a move now
 *   moves         the reader's legal moves (view.moves); `movesOf(kind)`, `moveWith(pred)`
 *   others()      the other seats, in play order after the reader's (all seats for onlookers)
 *   rank(code)    a card's rank as the reader's chat writes it; `cardText(code)`: "10♥"
 *   suits         the suits in order, `[letter, symbol]` each; `symbol(letter)`: "♥";
 *                 `isRed(letter)`: hearts and diamonds
 *   tapped(element, handler)  pointer-down calls `handler` at once (a quick hand); a
 *                 keyboard's Enter or Space clicks
 *   state         an object kept across views of one game (selections and the like)
 *   redraw()      draw the last view again (after a change of `state`)
 *   countdown(deadline)  a span that counts down to `deadline` (the server's epoch seconds)
 *   haptic(kind)  "select", "ok", "error"
 */
(() => {
  "use strict";

  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const RED = new Set(["h", "d"]);
  // Refusals at sign-in: asking again cannot help. The bot closes such a socket with 4001.
  const FINAL = new Set([
    "forged", "stale", "not_seated", "no_game", "malformed", "bad_link", "elsewhere",
  ]);
  const FINAL_CLOSE = 4001;
  const TOAST_MS = 1800;
  const FOLLOW_MS = 4000;

  const webApp = (window.Telegram && window.Telegram.WebApp) || null;
  const $ = (selector, root = document) => root.querySelector(selector);
  const app = $("#app");
  const parts = {
    title: $("#title"),
    link: $("#link"),
    players: $("#players"),
    table: $("#game"),
    status: $("#status"),
    toast: $("#toast"),
    actions: $("#actions"),
    hand: $("#hand"),
    result: $("#result"),
    log: $("#log"),
    logTitle: $("#log-title"),
    logLines: $("#log-lines"),
    notice: $("#notice"),
  };

  const renderers = {};
  let view = null;
  let labels = {};
  let faces = {};
  let clockOffset = 0; // the server's clock minus ours, in seconds
  let socket = null;
  let attempt = 0;
  let final = false;
  let seq = 0;
  let toastTimer = 0;
  let followTimer = 0;
  let gameState = {};
  let stateGame = null;
  let game = initialGame();

  function initialGame() {
    const raw = new URLSearchParams(window.location.search).get("game") || "";
    return /^\d+$/.test(raw) ? Number(raw) : null;
  }

  // -- words and feedback ---------------------------------------------------------------

  /** The label `key`, with `value` put in its placeholder (or after it when it has none). */
  const say = (key, value) => {
    const text = typeof labels[key] === "string" ? labels[key] : "";
    if (value === undefined) return text;
    if (/\{\w*\}/.test(text)) return text.replace(/\{\w*\}/, String(value));
    return text ? `${text} ${value}` : String(value);
  };

  const haptic = (kind) => {
    try {
      const feedback = webApp && webApp.HapticFeedback;
      if (!feedback) return;
      if (kind === "select") feedback.selectionChanged();
      else if (kind === "ok") feedback.impactOccurred("light");
      else if (kind === "error") feedback.notificationOccurred("error");
    } catch (error) {
      // An old Telegram without haptics: nothing to feel.
    }
  };

  /** A short word in the status line's place: it covers no player, card or count. */
  const showToast = (text) => {
    if (!text) return;
    parts.toast.textContent = text;
    parts.toast.hidden = false;
    parts.status.hidden = true;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      parts.toast.hidden = true;
      parts.status.hidden = false;
    }, TOAST_MS);
  };

  const showNotice = (text) => {
    parts.notice.textContent = text;
    parts.notice.hidden = !text;
  };

  // -- pieces the renderers use ---------------------------------------------------------

  const el = (tag, className, text) => {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined && text !== null) element.textContent = text;
    return element;
  };

  const rank = (code) => {
    if (!code) return "";
    const face = faces[code[0]];
    if (face) return face;
    return code[0] === "T" ? "10" : code[0];
  };

  const isJoker = (code) => typeof code === "string" && code[0] === "X";

  const cardText = (code) => {
    if (!code) return "";
    if (isJoker(code)) return rank(code);
    return `${rank(code)}${SUITS[code[1]] || code[1]}`;
  };

  const tapped = (element, handler) => {
    // Pointer-down plays at once (a quick hand); a keyboard's Enter or Space clicks.
    element.addEventListener("pointerdown", (event) => {
      if (event.isPrimary && event.button === 0) handler(event);
    });
    element.addEventListener("click", (event) => {
      if (event.detail === 0) handler(event);
    });
  };

  const card = (code, options = {}) => {
    const { move = null, small = false, selected = false, onTap = null } = options;
    const interactive = Boolean(move || onTap);
    let element;
    if (code === "back") {
      element = el(interactive ? "button" : "div", "card back");
    } else if (!code) {
      element = el(interactive ? "button" : "div", "card empty");
    } else if (isJoker(code)) {
      element = el(interactive ? "button" : "div", "card face joker");
      // A star, not 🃏: some systems' fonts draw that emoji as a boxed star.
      element.append(el("span", "corner", "★"), el("span", "rank", "★"));
      element.append(el("span", "word", rank(code)));
      element.setAttribute("aria-label", rank(code));
    } else {
      const suit = SUITS[code[1]] || code[1];
      element = el(
        interactive ? "button" : "div",
        `card face ${RED.has(code[1]) ? "red" : "black"}`
      );
      element.append(el("span", "corner", `${rank(code)}${suit}`), el("span", "rank", rank(code)));
      element.append(el("span", "suit", suit));
      element.setAttribute("aria-label", cardText(code));
    }
    if (code) element.dataset.card = code;
    if (small) element.classList.add("small");
    if (selected) element.classList.add("selected");
    if (interactive) {
      element.type = "button";
      if (move) {
        element.classList.add("legal");
        element.dataset.code = move.code;
      }
      tapped(element, () => {
        if (onTap) onTap();
        else act(move.code);
      });
    }
    return element;
  };

  const back = (count, options = {}) => {
    const stack = el("div", `stack${options.small ? " small" : ""}`);
    stack.append(card(count > 0 ? "back" : null, { small: options.small }));
    stack.append(el("span", "count", String(count)));
    return stack;
  };

  const button = (label, target, options = {}) => {
    const element = el("button", `action${options.primary ? " primary" : ""}`, label);
    element.type = "button";
    if (typeof target === "function") {
      element.addEventListener("click", target);
    } else if (target) {
      element.dataset.code = target.code;
      element.addEventListener("click", () => act(target.code));
    }
    return element;
  };

  const secondsLeft = (deadline) =>
    Math.max(0, Math.ceil(deadline - (Date.now() / 1000 + clockOffset)));

  const countdown = (deadline) => {
    const span = el("span", "seconds");
    if (typeof deadline === "number") {
      span.dataset.deadline = String(deadline);
      span.textContent = say("seconds", secondsLeft(deadline));
    }
    return span;
  };

  const others = () => {
    const count = view && Array.isArray(view.names) ? view.names.length : 0;
    const seats = [];
    const from = view && typeof view.seat === "number" ? view.seat : -1;
    for (let step = 1; step <= count; step += 1) {
      const seat = (from + step + count) % count;
      if (seat !== from) seats.push(seat);
    }
    return from < 0 ? [...Array(count).keys()] : seats;
  };

  const ui = {
    table: parts.table,
    hand: parts.hand,
    actions: parts.actions,
    get seat() {
      return view && typeof view.seat === "number" ? view.seat : null;
    },
    get moves() {
      return (view && Array.isArray(view.moves) && view.moves) || [];
    },
    movesOf: (kind) => ui.moves.filter((move) => move.kind === kind),
    moveWith: (test) => ui.moves.find(test) || null,
    get state() {
      return gameState;
    },
    keep: false,
    say,
    name: (seat) => (view && view.names && view.names[seat]) || "",
    el,
    card,
    back,
    button,
    act: (code) => act(code),
    others,
    rank,
    cardText,
    suits: Object.entries(SUITS),
    symbol: (letter) => SUITS[letter] || letter,
    isRed: (letter) => RED.has(letter),
    tapped,
    redraw: () => draw(),
    countdown,
    haptic,
  };

  window.Cardroom = {
    register(key, renderer) {
      renderers[key] = renderer;
    },
  };

  // -- drawing --------------------------------------------------------------------------

  const drawPlayers = (renderer) => {
    const acting = new Set(view.acting || []);
    const chips = (view.names || []).map((name, seat) => {
      const chip = el("div", "player");
      chip.dataset.seat = String(seat);
      chip.classList.toggle("acting", acting.has(seat) && !view.pause);
      chip.classList.toggle("me", seat === view.seat);
      const line = el("span", "who");
      line.append(el("bdi", "name", name));
      if (seat === view.seat) line.append(el("span", "tag", say("you")));
      if (Array.isArray(view.series)) line.append(el("span", "wins", `★ ${view.series[seat]}`));
      chip.append(line);
      const facts = renderer && renderer.facts ? renderer.facts(view, seat, ui) : "";
      if (facts) chip.append(el("span", "facts", facts));
      return chip;
    });
    parts.players.replaceChildren(...chips);
  };

  const turnLine = (renderer) => {
    if (renderer && renderer.turn) {
      const own = renderer.turn(view, ui);
      if (own) return own;
    }
    if (view.status === "lobby") return { text: say("lobby") };
    if (view.status === "cancelled") return { text: say("cancelled") };
    if (view.status === "finished") return { text: say("over") };
    if (view.autopilot) return { text: say("autopilot") };
    if (view.pause) return { text: say("pause"), deadline: view.deadline };
    const acting = view.acting || [];
    if (view.seat !== null && acting.includes(view.seat) && ui.moves.length > 0) {
      return { text: say("your_move"), deadline: view.deadline, mine: true };
    }
    if (acting.length === 0) return { text: "" };
    const who = acting.map((seat) => ui.name(seat)).join(", ");
    return { text: `${say("their_move")} ${who}`, deadline: view.deadline };
  };

  const drawTurn = (renderer) => {
    const line = turnLine(renderer);
    parts.status.classList.toggle("mine", Boolean(line.mine));
    parts.status.replaceChildren(el("span", "words", line.text || ""));
    if (typeof line.deadline === "number") parts.status.append(countdown(line.deadline));
  };

  const drawLog = () => {
    const lines = Array.isArray(view.log) ? view.log.slice(-8) : [];
    parts.logTitle.textContent = say("log");
    parts.logLines.replaceChildren(...lines.map((line) => el("li", "", line)));
    parts.log.hidden = lines.length === 0;
  };

  const drawResult = () => {
    const result = view.result;
    parts.result.hidden = !result && view.status !== "cancelled";
    if (!result) {
      parts.result.replaceChildren();
      return;
    }
    const mine = view.seat !== null && Array.isArray(result.places) ? result.places[view.seat] : 0;
    const head = el("h2", "outcome");
    if (view.seat !== null) {
      const winners = result.places.filter((place) => place === 1).length;
      const word = mine === 1 ? (winners > 1 ? "draw" : "won") : "lost";
      head.textContent = say(word);
      parts.result.dataset.result = word;
    } else {
      head.textContent = say("result");
      delete parts.result.dataset.result;
    }
    const lines = el("ol", "places");
    for (const line of result.lines || []) lines.append(el("li", "", line));
    parts.result.replaceChildren(head, lines);
    if (typeof view.next === "number") {
      parts.result.append(button(`${say("next_game")} →`, () => follow(view.next), { primary: true }));
    }
  };

  function draw() {
    if (!view) return;
    const renderer = renderers[view.key] || null;
    app.dataset.game = view.key || "";
    app.dataset.status = view.status || "";
    app.dataset.reader = view.seat === null ? "onlooker" : "player";
    parts.title.textContent = view.title || "";
    if (view.seat === null) parts.title.append(el("span", "watching", ` · ${say("watching")}`));
    drawPlayers(renderer);
    if (!ui.keep) {
      parts.table.replaceChildren();
      parts.hand.replaceChildren();
    }
    parts.actions.replaceChildren();
    let shown = [];
    if (renderer && (view.table !== undefined || view.status !== "lobby")) {
      try {
        shown = renderer.render(view, ui) || [];
      } catch (error) {
        // A renderer's fault must not leave the player without his moves: they follow.
        console.error(error);
      }
    }
    const onScreen = new Set(shown);
    for (const move of ui.moves) {
      if (!onScreen.has(move.code)) {
        parts.actions.append(button(move.label || move.kind, move, { primary: true }));
      }
    }
    parts.actions.hidden = parts.actions.children.length === 0;
    parts.hand.hidden = parts.hand.children.length === 0;
    drawTurn(renderer);
    drawLog();
    drawResult();
  }

  // Countdowns tick between views.
  setInterval(() => {
    for (const span of document.querySelectorAll("[data-deadline]")) {
      span.textContent = say("seconds", secondsLeft(Number(span.dataset.deadline)));
    }
  }, 250);

  // -- presses --------------------------------------------------------------------------

  const send = (frame) => {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(frame));
      return true;
    }
    showToast(say("offline") || "…");
    return false;
  };

  function act(code) {
    seq += 1;
    haptic("select");
    send({ t: "act", code, seq });
  }

  // -- frames from the bot --------------------------------------------------------------

  const onState = (frame) => {
    if (frame.labels && typeof frame.labels === "object") labels = frame.labels;
    if (frame.faces && typeof frame.faces === "object") faces = frame.faces;
    view = frame.view || {};
    if (typeof view.now === "number") clockOffset = view.now - Date.now() / 1000;
    if (view.game !== stateGame) {
      gameState = {};
      stateGame = view.game;
      ui.keep = false;
    }
    game = view.game;
    attempt = 0;
    app.dataset.state = "live";
    app.removeAttribute("aria-busy");
    app.dataset.link = "online";
    parts.link.textContent = "";
    showNotice("");
    draw();
    // A rematch was opened: the page moves on to it, once its result has been seen.
    clearTimeout(followTimer);
    if (typeof view.next === "number") {
      followTimer = setTimeout(() => follow(view.next), FOLLOW_MS);
    }
  };

  const onAnswer = (frame) => {
    if (frame.ok) {
      haptic("ok");
    } else {
      haptic("error");
      showToast(frame.text || "");
    }
  };

  const onError = (frame) => {
    const text = frame.text || frame.code || "";
    // A press's refusal carries its seq; only a refusal at sign-in ends the page.
    if (FINAL.has(frame.code) && frame.seq === undefined) {
      final = true;
      app.dataset.state = "error";
      app.dataset.link = "closed";
      app.removeAttribute("aria-busy");
      parts.link.textContent = "";
      showNotice(text);
      haptic("error");
      if (socket) socket.close();
      return;
    }
    if (frame.seq !== undefined) haptic("error"); // a press not taken
    showToast(text);
  };

  // -- the socket -----------------------------------------------------------------------

  const socketUrl = () => {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${window.location.host}/app/socket`;
  };

  /** Move to another game (the next of a series): a new sign-in on it. */
  function follow(next) {
    clearTimeout(followTimer);
    if (typeof next !== "number" || next === stateGame) return;
    game = next;
    const old = socket;
    socket = null;
    if (old) old.close();
    attempt = 0;
    connect();
  }

  function connect() {
    if (final) return;
    const ws = new WebSocket(socketUrl());
    socket = ws;
    ws.addEventListener("open", () => {
      const initData = (webApp && webApp.initData) || "";
      ws.send(JSON.stringify({ t: "hello", init_data: initData, game }));
    });
    ws.addEventListener("message", (event) => {
      if (ws !== socket) return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (!frame || typeof frame !== "object") return;
      if (frame.t === "state") onState(frame);
      else if (frame.t === "answer") onAnswer(frame);
      else if (frame.t === "error") onError(frame);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== socket) return;
      if (event.code === FINAL_CLOSE && !final) {
        final = true;
        app.dataset.link = "closed";
        if (app.dataset.state !== "live") {
          app.dataset.state = "error";
          showNotice(say("offline") || "…");
        } else {
          parts.link.textContent = say("offline");
        }
      }
      if (final) return;
      socket = null;
      // Again, after a pause that grows with each failure (0.5 s … 10 s, a little jitter).
      const delay = Math.min(10000, 500 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
      attempt = Math.min(attempt + 1, 6);
      app.dataset.link = "offline";
      parts.link.textContent = view ? say("offline") || "…" : "…";
      setTimeout(connect, delay);
    });
  }

  window.Cardroom.start = () => {
    if (webApp) {
      try {
        webApp.ready();
        webApp.expand();
        // A swipe down on a card must not close the table in the middle of a move.
        if (webApp.isVersionAtLeast && webApp.isVersionAtLeast("7.7")) {
          webApp.disableVerticalSwipes();
        }
      } catch (error) {
        // Outside Telegram or an old one: the page works all the same.
      }
    }
    showNotice("…");
    connect();
  };
})();
