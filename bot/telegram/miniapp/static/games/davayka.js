/*
 * Davay-ka!'s table (views/davayka.py sends its fields): the other player's row of four piles
 * at the top, the two centre piles, the call (Ready before a round, «Давай-ка!» in a stall,
 * their seconds in the status line) and the reader's own row at the bottom, as his hand.
 *
 * The game is a race: a tap must play at once and land where the finger went down. So a tap
 * plays on pointer-down, and the reader's piles, the centre piles and the two buttons are built
 * once per game and only refilled (`ui.keep`): a press that began on a pile lands on it even
 * when a new view arrives under the finger. A card that fits one centre pile is played there;
 * one that fits both is first aimed (`ui.state.aim`, the centre piles lit), then played on the
 * centre tapped next — or, tapped again, wherever it fits. The bot judges every press on
 * arrival, so the page never waits for an answer before taking the next tap.
 *
 * Onlookers (`ui.seat === null`) see both rows, seat 0's at the top, nothing to press.
 */
(() => {
  "use strict";

  const LANDED_MS = 120;
  const ROW = 4;

  const side = (ui, where) => {
    const box = ui.el("div", `dk-side dk-${where}`);
    const name = ui.el("bdi", "dk-name");
    const row = ui.el("div", "dk-row");
    box.append(name, row);
    return { box, name, row, piles: [] };
  };

  /** The page's elements for one game: built once, refilled by every view. */
  const build = (ui) => {
    const mine = ui.seat !== null;
    const dom = { seat: ui.seat, centreTops: [null, null] };
    dom.table = ui.el("div", "dk-table");
    dom.them = side(ui, "them");
    dom.me = side(ui, "me");
    dom.round = ui.el("span", "dk-round");
    const centre = ui.el("div", "dk-centre");
    dom.centres = [0, 1].map((index) => {
      const pile = ui.el(mine ? "button" : "div", "dk-centre-pile");
      pile.dataset.centre = String(index);
      if (mine) {
        pile.type = "button";
        ui.tapped(pile, () => pressCentre(ui, index));
      }
      centre.append(pile);
      return pile;
    });
    for (const [part, tappable] of [
      [dom.them, false],
      [dom.me, mine],
    ]) {
      for (let index = 0; index < ROW; index += 1) {
        const pile = ui.el(tappable ? "button" : "div", "dk-pile");
        pile.dataset.pile = String(index);
        if (tappable) {
          pile.type = "button";
          ui.tapped(pile, () => pressPile(ui, index));
        }
        part.row.append(pile);
        part.piles.push(pile);
      }
    }
    dom.ready = callButton(ui, "dk-ready", "r");
    dom.flip = callButton(ui, "dk-flip", "f");
    dom.table.append(dom.them.box, dom.round, centre);
    ui.table.replaceChildren(dom.table);
    ui.hand.replaceChildren(dom.me.box);
    ui.keep = true;
    return dom;
  };

  const callButton = (ui, className, code) => {
    const button = ui.el("button", `action primary ${className}`);
    button.type = "button";
    button.dataset.code = code;
    ui.tapped(button, () => {
      if (ui.moveWith((move) => move.code === code)) ui.act(code);
    });
    return button;
  };

  // -- presses ------------------------------------------------------------------------------

  const playCode = (view, pile, centre) => `p${pile}${centre}${view.round}`;

  const setAim = (ui, aim) => {
    ui.state.aim = aim;
    ui.redraw();
  };

  /** A tap on one of his row piles: played where it fits, or first aimed when it fits both. */
  function pressPile(ui, pile) {
    const view = ui.state.view;
    if (!view || !Array.isArray(view.rows) || view.finished || ui.seat === null) return;
    const top = view.rows[ui.seat][pile] && view.rows[ui.seat][pile].top;
    if (!top) return;
    const aim = ui.state.aim || null;
    if (aim !== null && aim.pile === pile) {
      // A second tap on the aimed pile: wherever it fits.
      ui.act(playCode(view, pile, "x"));
      setAim(ui, null);
      return;
    }
    const fits = (view.plays && view.plays[String(pile)]) || [];
    if (fits.length >= 2) {
      ui.haptic("select");
      setAim(ui, { pile, card: top, round: view.round });
      return;
    }
    // One centre: there. None: the view may be behind the game; the bot judges on arrival.
    ui.act(playCode(view, pile, fits.length === 1 ? fits[0] : "x"));
    if (aim !== null) setAim(ui, null);
  }

  function pressCentre(ui, centre) {
    const view = ui.state.view;
    const aim = ui.state.aim || null;
    if (aim === null || !view) return;
    ui.act(playCode(view, aim.pile, centre));
    setAim(ui, null);
  }

  // -- drawing ------------------------------------------------------------------------------

  const fillRow = (ui, part, seat, view, mine) => {
    const row = view.rows[seat] || [];
    part.name.textContent = ui.name(seat);
    part.box.dataset.seat = String(seat);
    part.piles.forEach((element, index) => {
      const pile = row[index] || { top: null, down: 0 };
      const fits = mine ? (view.plays && view.plays[String(index)]) || [] : [];
      const card = ui.card(pile.top);
      if (fits.length > 0) card.classList.add("legal");
      const down = ui.el("span", "dk-down", pile.down > 0 ? `×${pile.down}` : "");
      element.replaceChildren(card, down);
      element.dataset.top = pile.top || "";
      if (mine) {
        const aim = ui.state.aim || null;
        element.classList.toggle("fits", fits.length > 0);
        element.classList.toggle("aiming", aim !== null && aim.pile === index);
        element.setAttribute("aria-disabled", pile.top ? "false" : "true");
      }
    });
  };

  const fillCentres = (ui, dom, view) => {
    const centres = Array.isArray(view.centres) ? view.centres : [];
    const aiming = Boolean(ui.state.aim);
    dom.centres.forEach((element, index) => {
      const centre = centres[index];
      // Before a round starts there are no centre piles: two outlines keep their places.
      element.hidden = centres.length === 1 && index === 1;
      const top = centre ? centre.top : null;
      const card = ui.card(top);
      const before = dom.centreTops[index];
      if (top && before !== null && before !== top) {
        card.classList.add("landed");
        setTimeout(() => card.classList.remove("landed"), LANDED_MS);
      }
      dom.centreTops[index] = top;
      const size = ui.el("span", centre ? "dk-size" : "dk-size none", String(centre ? centre.size : 0));
      element.replaceChildren(card, size);
      element.dataset.top = top || "";
      const target = aiming && Boolean(centre);
      element.classList.toggle("target", target);
      element.setAttribute("aria-disabled", target ? "false" : "true");
    });
  };

  /** Aiming ends when the aimed card is no longer there to play. */
  const checkAim = (ui, view) => {
    const aim = ui.state.aim || null;
    if (aim === null) return;
    const pile = ui.seat !== null && Array.isArray(view.rows) ? view.rows[ui.seat][aim.pile] : null;
    if (view.phase !== "play" || view.round !== aim.round || !pile || pile.top !== aim.card) {
      ui.state.aim = null;
    }
  };

  const render = (view, ui) => {
    ui.state.view = view;
    if (!Array.isArray(view.rows)) {
      // Not dealt yet, or called off before the deal: nothing of the table to draw.
      ui.state.dom = null;
      ui.keep = false;
      ui.table.replaceChildren();
      ui.hand.replaceChildren();
      return [];
    }
    let dom = ui.state.dom;
    if (!dom || dom.seat !== ui.seat || !ui.table.contains(dom.table)) {
      dom = build(ui);
      ui.state.dom = dom;
    }
    checkAim(ui, view);
    const mine = ui.seat !== null;
    const bottom = mine ? ui.seat : 1;
    const top = bottom === 0 ? 1 : 0;
    dom.table.dataset.phase = view.phase || "";
    dom.table.dataset.reader = mine ? "player" : "onlooker";
    dom.round.textContent = view.round ? ui.say("round", view.round) : "";
    fillRow(ui, dom.them, top, view, false);
    fillRow(ui, dom.me, bottom, view, mine);
    fillCentres(ui, dom, view);

    const shown = [];
    const calling = !view.finished;
    dom.ready.textContent = ui.say("ready");
    dom.flip.textContent = ui.say("flip");
    if (calling && view.phase === "ready" && view.can_ready) {
      ui.actions.append(dom.ready);
      shown.push("r");
    }
    if (calling && view.phase === "stall" && view.can_flip) {
      ui.actions.append(dom.flip);
      shown.push("f");
    }
    // Every play is a tap on its pile (and, when it fits both, on a centre pile).
    for (const move of ui.movesOf("play")) shown.push(move.code);
    return shown;
  };

  /** Under each name: ✓ once pressed, rounds won, cards in all, the stock. */
  const facts = (view, seat, ui) => {
    if (!Array.isArray(view.rows)) return "";
    const parts = [];
    const calling = view.phase === "ready" || view.phase === "stall";
    if (calling && view.pressed && view.pressed[seat] && !view.finished) parts.push("✓");
    parts.push(`🏆 ${view.rounds_won[seat]}`);
    parts.push(ui.say("cards", view.cards[seat]));
    parts.push(ui.say("stock", view.stocks[seat]));
    // A narrow line breaks between the counts, never inside one ("Stock" | "12").
    return parts.map((part) => part.replace(/ /g, "\u00a0")).join(" · ");
  };

  /** The status line: the countdown to the round, the stall's window, or why there is
   * nothing to do; no words while the race is on. */
  const turn = (view, ui) => {
    if (!Array.isArray(view.rows) || view.finished || view.status !== "playing") return null;
    const deadline = typeof view.deadline === "number" ? view.deadline : undefined;
    const pressed = ui.seat !== null && view.pressed && view.pressed[ui.seat];
    if (view.phase === "ready" || view.phase === "stall") {
      const word = view.phase === "ready" ? "countdown" : "stall";
      if (pressed) return { text: ui.say("waiting"), deadline };
      return { text: ui.say(word), deadline, mine: ui.seat !== null };
    }
    if (view.phase === "play" && ui.seat !== null && ui.movesOf("play").length === 0) {
      return { text: ui.say("no_move") };
    }
    return { text: "" };
  };

  window.Cardroom.register("davayka", { render, facts, turn });
})();
