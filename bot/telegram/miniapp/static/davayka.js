/*
 * Davay-ka!'s Mini App table: one player's view, drawn as cards, and his presses.
 *
 * The page speaks the protocol of bot/telegram/miniapp/__init__.py over one WebSocket:
 * a hello with Telegram's signed initData, then the bot's `state` frames (the view of
 * views.view_json and the words to show, `labels`), `answer` frames for each press and
 * `error` frames. Every press is judged by the bot on arrival, so the page never waits for
 * an answer before taking the next tap, and draws only what the bot last sent.
 */
(() => {
  "use strict";

  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const RED = new Set(["h", "d"]);
  // Refusals at sign-in: asking again cannot help. The bot closes such a socket with 4001.
  // "elsewhere": the player opened the table in another window, which took this one's place.
  const FINAL = new Set([
    "forged", "stale", "not_seated", "no_game", "malformed", "not_davayka", "elsewhere",
  ]);
  const FINAL_CLOSE = 4001;
  const TOAST_MS = 1200;
  const LANDED_MS = 120;

  const webApp = (window.Telegram && window.Telegram.WebApp) || null;
  const $ = (selector, root = document) => root.querySelector(selector);

  const table = $("#table");
  const sides = { me: $("#me"), them: $("#them") };
  const centrePiles = [...document.querySelectorAll(".centre-pile")];
  const statusLine = $("#status");
  const readyButton = $("#ready");
  const flipButton = $("#flip");
  const notice = $("#notice");
  const toast = $("#toast");
  const link = $("#link");

  let view = null;
  let labels = {};
  let clockOffset = 0; // the server's clock minus ours, in seconds
  let socket = null;
  let attempt = 0;
  let final = false;
  let seq = 0;
  let aim = null; // {pile, card, round}: a row card that fits both centre piles
  let toastTimer = 0;
  const centreTops = [null, null];

  // -- words ------------------------------------------------------------------------------

  /** The label `key`, with `value` put in its placeholder (or after it when it has none). */
  const say = (key, value) => {
    const text = typeof labels[key] === "string" ? labels[key] : "";
    if (value === undefined) return text;
    if (/\{\w*\}/.test(text)) return text.replace(/\{\w*\}/, String(value));
    return text ? `${text} ${value}` : String(value);
  };

  const haptic = (method, arg) => {
    try {
      const feedback = webApp && webApp.HapticFeedback;
      if (feedback && typeof feedback[method] === "function") feedback[method](arg);
    } catch (error) {
      // An old Telegram without haptics: nothing to feel.
    }
  };

  const showToast = (text) => {
    if (!text) return;
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      toast.hidden = true;
    }, TOAST_MS);
  };

  const showNotice = (text) => {
    notice.textContent = text;
    notice.hidden = !text;
  };

  // -- cards ------------------------------------------------------------------------------

  const make = (tag, className, text) => {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  };

  /** A card's face ("Th": the ten of hearts), its back (`"back"`) or an empty place (null). */
  const cardElement = (code) => {
    if (code === "back") return make("div", "card back");
    if (!code) return make("div", "card empty");
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = SUITS[code[1]] || code[1];
    const card = make("div", `card face ${RED.has(code[1]) ? "red" : "black"}`);
    card.dataset.card = code;
    card.setAttribute("aria-label", `${rank}${suit}`);
    card.append(make("span", "corner", `${rank}${suit}`), make("span", "rank", rank));
    card.append(make("span", "suit", suit));
    return card;
  };

  // -- drawing ----------------------------------------------------------------------------

  const secondsLeft = (deadline) =>
    Math.max(0, Math.ceil(deadline - (Date.now() / 1000 + clockOffset)));

  const drawRow = (side, piles, mine) => {
    const row = $("[data-role=row]", side);
    // The player's own piles are built once and only refilled: a tap that began on a pile
    // must land on the same element even when a new view arrives under the finger.
    while (row.children.length < 4) {
      const index = row.children.length;
      const pile = make(mine ? "button" : "div", "pile");
      if (mine) {
        pile.type = "button";
        pile.dataset.pile = String(index);
        pile.addEventListener("pointerdown", (event) => {
          if (event.isPrimary && event.button === 0) pressPile(index);
        });
        pile.addEventListener("click", (event) => {
          if (event.detail === 0) pressPile(index); // the keyboard's Enter or Space
        });
      }
      row.append(pile);
    }
    piles.forEach((pile, index) => {
      const element = row.children[index];
      const card = cardElement(pile.top);
      const down = make("span", "down", pile.down > 0 ? `×${pile.down}` : "");
      element.replaceChildren(card, down);
      element.dataset.top = pile.top || "";
      if (mine) {
        const fits = (view.plays && view.plays[String(index)]) || [];
        element.classList.toggle("fits", fits.length > 0);
        element.classList.toggle("aiming", aim !== null && aim.pile === index);
        element.setAttribute("aria-disabled", pile.top ? "false" : "true");
      }
    });
  };

  const drawSide = (side, seat, mine) => {
    const names = view.names || [];
    $("[data-role=name]", side).textContent = names[seat] || "";
    const you = $("[data-role=you]", side);
    you.hidden = !mine;
    you.textContent = say("you");
    const has = Array.isArray(view.rows);
    $("[data-role=pressed]", side).hidden = !(
      has &&
      view.pressed &&
      view.pressed[seat] &&
      (view.phase === "ready" || view.phase === "stall")
    );
    $("[data-role=wins]", side).textContent = has ? `★ ${view.rounds_won[seat]}` : "";
    $("[data-role=cards]", side).textContent = has ? say("cards", view.cards[seat]) : "";
    $("[data-role=stock]", side).textContent = has ? say("stock", view.stocks[seat]) : "";
    $("[data-role=stock]", side).hidden = !has;
    if (has) drawRow(side, view.rows[seat], mine);
  };

  const drawCentres = () => {
    const centres = Array.isArray(view.centres) ? view.centres : [];
    centrePiles.forEach((button, index) => {
      const centre = centres[index];
      // Before a round starts there are no centre piles: two outlines keep their places.
      button.hidden = centres.length === 1 && index === 1;
      const top = centre ? centre.top : null;
      const card = cardElement(top);
      if (top && centreTops[index] !== null && centreTops[index] !== top) {
        card.classList.add("landed");
        setTimeout(() => card.classList.remove("landed"), LANDED_MS);
      }
      centreTops[index] = top;
      const size = make("span", centre ? "size" : "size none", centre ? String(centre.size) : "0");
      button.replaceChildren(card, size);
      button.dataset.top = top || "";
      const target = aim !== null && Boolean(centre);
      button.classList.toggle("target", target);
      button.setAttribute("aria-disabled", target ? "false" : "true");
    });
  };

  const drawCall = () => {
    const seat = view.seat;
    const phase = view.phase;
    readyButton.textContent = say("ready");
    flipButton.textContent = say("flip");
    readyButton.hidden = !(phase === "ready" && view.can_ready && !view.finished);
    flipButton.hidden = !(phase === "stall" && view.can_flip && !view.finished);
    statusLine.classList.remove("result");
    const words = [];
    let seconds = null;
    if (view.finished) {
      const result = view.winner === null || view.winner === undefined
        ? "drawn"
        : view.winner === seat
          ? "won"
          : "lost";
      statusLine.classList.add("result");
      statusLine.dataset.result = result;
      words.push(say(result));
    } else if (!phase) {
      words.push(say("waiting"));
    } else if (phase === "ready" || phase === "stall") {
      const pressed = view.pressed && view.pressed[seat];
      words.push(pressed ? say("waiting") : say(phase === "ready" ? "countdown" : "stall"));
      if (typeof view.deadline === "number") seconds = secondsLeft(view.deadline);
    } else if (phase === "play" && Object.keys(view.plays || {}).length === 0) {
      words.push(say("no_move"));
    }
    if (!view.finished) delete statusLine.dataset.result;
    statusLine.replaceChildren(make("span", "words", words.join(" ")));
    if (seconds !== null) statusLine.append(make("span", "seconds", String(seconds)));
  };

  const draw = () => {
    if (!view) return;
    const seat = view.seat;
    const other = seat === 0 ? 1 : 0;
    table.dataset.phase = view.phase || "";
    $("#round").textContent = view.round ? say("round", view.round) : "";
    drawSide(sides.them, other, false);
    drawSide(sides.me, seat, true);
    drawCentres();
    drawCall();
  };

  // Countdowns tick between views.
  setInterval(() => {
    if (view && !view.finished && (view.phase === "ready" || view.phase === "stall")) {
      const seconds = $(".seconds", statusLine);
      if (seconds && typeof view.deadline === "number") {
        seconds.textContent = String(secondsLeft(view.deadline));
      }
    }
  }, 200);

  // -- presses ----------------------------------------------------------------------------

  const send = (frame) => {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(frame));
      return true;
    }
    showToast(say("offline") || "…");
    return false;
  };

  const act = (code) => {
    seq += 1;
    send({ t: "act", code, seq });
  };

  const setAim = (next) => {
    aim = next;
    if (view) draw();
  };

  const playCode = (pile, centre) => `p${pile}${centre}${view.round}`;

  /** A tap on one of his row piles: played where it fits, or first aimed when it fits both. */
  function pressPile(pile) {
    if (!view || !Array.isArray(view.rows) || view.finished) return;
    const top = view.rows[view.seat][pile] && view.rows[view.seat][pile].top;
    if (!top) return;
    if (aim !== null && aim.pile === pile) {
      // A second tap on the aimed pile: wherever it fits.
      act(playCode(pile, "x"));
      setAim(null);
      return;
    }
    const fits = (view.plays && view.plays[String(pile)]) || [];
    if (fits.length >= 2) {
      haptic("selectionChanged");
      setAim({ pile, card: top, round: view.round });
      return;
    }
    // One centre: there. None: the view may be behind the game; the bot judges on arrival.
    act(playCode(pile, fits.length === 1 ? fits[0] : "x"));
    if (aim !== null) setAim(null);
  }

  const pressCentre = (centre) => {
    if (aim === null || !view) return;
    act(playCode(aim.pile, centre));
    setAim(null);
  };

  centrePiles.forEach((button, index) => {
    button.addEventListener("pointerdown", (event) => {
      if (event.isPrimary && event.button === 0) pressCentre(index);
    });
    button.addEventListener("click", (event) => {
      if (event.detail === 0) pressCentre(index);
    });
  });
  readyButton.addEventListener("click", () => act("r"));
  flipButton.addEventListener("click", () => act("f"));

  // -- frames from the bot ----------------------------------------------------------------

  const onState = (frame) => {
    if (frame.labels && typeof frame.labels === "object") labels = frame.labels;
    view = frame.view || {};
    if (typeof view.now === "number") clockOffset = view.now - Date.now() / 1000;
    // Aiming ends when the aimed card is no longer there to play.
    if (aim !== null) {
      const pile = Array.isArray(view.rows) ? view.rows[view.seat][aim.pile] : null;
      if (view.phase !== "play" || view.round !== aim.round || !pile || pile.top !== aim.card) {
        aim = null;
      }
    }
    attempt = 0;
    table.dataset.state = "live";
    table.removeAttribute("aria-busy");
    table.dataset.link = "online";
    link.textContent = "";
    showNotice("");
    draw();
  };

  const onAnswer = (frame) => {
    if (frame.ok) {
      haptic("impactOccurred", "light");
    } else {
      haptic("notificationOccurred", "error");
      showToast(frame.text || "");
    }
  };

  const onError = (frame) => {
    const text = frame.text || frame.code || "";
    // A press's refusal carries its seq; only a refusal at sign-in ends the page.
    if (FINAL.has(frame.code) && frame.seq === undefined) {
      final = true;
      table.dataset.state = "error";
      table.dataset.link = "closed";
      table.removeAttribute("aria-busy");
      link.textContent = "";
      showNotice(text);
      haptic("notificationOccurred", "error");
      if (socket) socket.close();
      return;
    }
    if (frame.seq !== undefined) haptic("notificationOccurred", "error"); // a press not taken
    showToast(text);
  };

  // -- the socket -------------------------------------------------------------------------

  const socketUrl = () => {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${window.location.host}/app/socket`;
  };

  const gameId = () => {
    const raw = new URLSearchParams(window.location.search).get("game") || "";
    return /^\d+$/.test(raw) ? Number(raw) : raw;
  };

  const connect = () => {
    if (final) return;
    const ws = new WebSocket(socketUrl());
    socket = ws;
    ws.addEventListener("open", () => {
      ws.send(
        JSON.stringify({ t: "hello", init_data: (webApp && webApp.initData) || "", game: gameId() })
      );
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
      if (event.code === FINAL_CLOSE && !final) {
        final = true;
        table.dataset.link = "closed";
        if (table.dataset.state !== "live") {
          table.dataset.state = "error";
          showNotice(say("offline") || "…");
        } else {
          link.textContent = say("offline");
        }
      }
      if (ws !== socket || final) return;
      socket = null;
      // Again, after a pause that grows with each failure (0.5 s … 10 s, a little jitter).
      const delay = Math.min(10000, 500 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
      attempt = Math.min(attempt + 1, 6);
      table.dataset.link = "offline";
      link.textContent = view ? say("offline") || "…" : "…";
      if (aim !== null) setAim(null);
      setTimeout(connect, delay);
    });
  };

  // -- start ------------------------------------------------------------------------------

  if (webApp) {
    try {
      webApp.ready();
      webApp.expand();
      // A swipe down on a card must not close the table in the middle of a race.
      if (webApp.isVersionAtLeast && webApp.isVersionAtLeast("7.7")) {
        webApp.disableVerticalSwipes();
      }
    } catch (error) {
      // Outside Telegram or an old one: the page works all the same.
    }
  }
  showNotice("…");
  connect();
})();
