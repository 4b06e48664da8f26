/*
 * Progression's table (bot/telegram/miniapp/views/progression.py sends what it draws).
 *
 * In a deal: the deal and its target, the draw pile and the four public stacks of the middle,
 * then each player's four private stacks (ranks, bottom first, and each stack's score), the
 * reader's first. A turn is two taps or three: a card of the hand (it is lifted), then where
 * it goes — his own stack of its suit or the middle's, as buttons that say what the stack
 * would score more, or a tap on the highlighted stack itself; then the card to take: the
 * draw pile or a highlighted top card of the middle. Between deals and at the end: the score
 * sheet, a compact table of each stack's score, the total before the deal, the deal's score
 * and the new total, with who is ready for the next deal; the Next button is the shell's
 * (labelled as the chat's panel labels it).
 */
(() => {
  "use strict";


  /** A score with its sign, below zero with a minus sign (U+2212), as the chat writes it. */
  const signed = (value) => (value > 0 ? `+${value}` : value < 0 ? `−${-value}` : "0");

  const suitMark = (ui, suit) =>
    ui.el("span", `p-suit${ui.isRed(suit) ? " red" : ""}`, ui.symbol(suit));
  /** The suits' letters, in the stacks' order (♠ ♥ ♦ ♣). */
  const letters = (ui) => ui.suits.map(([letter]) => letter);

  const inDeal = (view) => view.phase === "play" || view.phase === "take";

  /** A private stack's cell: its suit, its ranks bottom first, its score. */
  const stackCell = (ui, suit, cards, score, target) => {
    const cell = ui.el(target ? "button" : "div", `p-cell${ui.isRed(suit) ? " red" : ""}`);
    cell.dataset.suit = suit;
    cell.append(suitMark(ui, suit));
    const ranks = cards.length ? cards.map((code) => ui.rank(code)).join(" ") : "·";
    cell.append(ui.el("span", "p-ranks", ranks));
    if (cards.length) cell.append(ui.el("span", "p-score", score));
    if (target) {
      cell.type = "button";
      cell.classList.add("p-target");
      cell.dataset.code = target.code;
      cell.addEventListener("click", () => ui.act(target.code));
    }
    return cell;
  };

  /** One player's four stacks under his name and his deal's score so far. */
  const stackRow = (ui, view, seat, stacks, scores, dealScore, targets) => {
    const row = ui.el("div", "p-row");
    row.dataset.seat = String(seat);
    row.classList.toggle("me", seat === ui.seat);
    row.classList.toggle("acting", seat === view.to_move);
    const who = ui.el("div", "who p-who");
    who.append(ui.el("bdi", "name", ui.name(seat)));
    if (seat === ui.seat) who.append(ui.el("span", "p-you", ui.say("you")));
    who.append(ui.el("span", "p-deal", dealScore));
    const cells = ui.el("div", "p-cells");
    letters(ui).forEach((suit, i) => {
      cells.append(stackCell(ui, suit, stacks[i] || [], scores[i], targets ? targets[i] : null));
    });
    row.append(who, cells);
    return row;
  };

  /** The reader first, then the others in play order (an onlooker: every seat in order). */
  const seatsInOrder = (ui) => (ui.seat === null ? ui.others() : [ui.seat, ...ui.others()]);

  const byCode = (ui, code) => (code ? ui.moveWith((move) => move.code === code) : null);

  /** The draw pile and the middle's four stacks, with the legal takes (and the middle stack
   * a lifted card may go onto) highlighted. */
  const centre = (ui, view, selectedPlay, shown) => {
    const row = ui.el("div", "p-centre");
    const draw = ui.el("div", "p-pile p-draw");
    const take = ui.moveWith((move) => move.kind === "take_card" && move.suit === null);
    const stack = ui.el("div", "stack");
    stack.append(ui.card(view.draw > 0 ? "back" : null, { move: take, small: true }));
    stack.append(ui.el("span", "count", String(view.draw)));
    draw.append(stack, ui.el("span", "p-label", ui.say("p_draw")));
    if (take) shown.push(take.code);
    row.append(draw);

    const middle = ui.el("div", "p-middle");
    letters(ui).forEach((suit, i) => {
      const cards = (view.middle && view.middle[i]) || [];
      const top = cards.length ? cards[cards.length - 1] : null;
      const from = ui.moveWith((move) => move.kind === "take_card" && move.suit === suit);
      const onto =
        selectedPlay && selectedPlay.code[1] === suit ? byCode(ui, selectedPlay.middle) : null;
      const pile = ui.el("div", "p-pile");
      pile.dataset.suit = suit;
      const holder = ui.el("div", "stack");
      const face = ui.card(top, { move: from || onto, small: true });
      if (onto) face.classList.add("p-target");
      if (!top) face.append(suitMark(ui, suit));
      holder.append(face);
      if (cards.length > 1) holder.append(ui.el("span", "count", String(cards.length)));
      pile.append(holder);
      if (from) shown.push(from.code);
      middle.append(pile);
    });
    const wrap = ui.el("div", "p-middle-wrap");
    wrap.append(middle, ui.el("span", "p-label", ui.say("p_middle")));
    row.append(wrap);
    return row;
  };

  /** The finished deal's score sheet, one row a player: it fits a phone's width. */
  const sheetTable = (ui, view) => {
    const sheet = view.sheet;
    const box = ui.el("div", "p-sheet");
    box.append(ui.el("div", "p-sheet-title", sheet.title));
    const grid = ui.el("table", "p-sheet-table");
    const head = ui.el("tr");
    head.append(ui.el("th", "p-nm", ""));
    letters(ui).forEach((suit) => {
      const th = ui.el("th", "p-num");
      th.append(suitMark(ui, suit));
      head.append(th);
    });
    for (const word of ["p_before_col", "p_deal_col", "p_total_col"]) {
      head.append(ui.el("th", "p-num p-wide", ui.say(word)));
    }
    grid.append(head);
    sheet.rows.forEach((row, seat) => {
      const line = ui.el("tr");
      line.dataset.seat = String(seat);
      line.classList.toggle("me", seat === ui.seat);
      const name = ui.el("th", "p-nm");
      name.append(ui.el("bdi", "", ui.name(seat)));
      if (view.phase === "between_deals" && view.ready && view.ready[seat]) {
        name.append(ui.el("span", "p-ok", " ✓"));
      }
      line.append(name);
      row.scores.forEach((score, i) => {
        const cell = ui.el("td", "p-num", row.stacks[i].length ? score : "·");
        line.append(cell);
      });
      line.append(ui.el("td", "p-num p-before", row.before));
      line.append(ui.el("td", "p-num p-dealt", row.deal));
      line.append(ui.el("td", "p-num p-total", row.total));
      grid.append(line);
    });
    box.append(grid);
    return box;
  };

  const render = (view, ui) => {
    const shown = [];
    if (!view.phase) return shown;
    const plays = view.plays || {};
    const state = ui.state;
    if (state.selected && !plays[state.selected]) state.selected = null;
    const chosen = state.selected ? { code: state.selected, ...plays[state.selected] } : null;
    for (const place of Object.values(plays)) {
      if (place.own) shown.push(place.own);
      if (place.middle) shown.push(place.middle);
    }

    ui.table.append(ui.el("div", "p-heading", view.heading || ""));

    if (!inDeal(view) && view.sheet) {
      ui.table.append(sheetTable(ui, view));
      const board = ui.el("div", "p-board p-final");
      for (const seat of seatsInOrder(ui)) {
        const row = view.sheet.rows[seat];
        board.append(stackRow(ui, view, seat, row.stacks, row.scores, row.deal, null));
      }
      ui.table.append(board);
      return shown;
    }

    ui.table.append(centre(ui, view, chosen, shown));

    const board = ui.el("div", "p-board");
    for (const seat of seatsInOrder(ui)) {
      const scores = (view.scores[seat] || []).map(signed);
      let targets = null;
      if (seat === ui.seat && chosen && chosen.own) {
        targets = letters(ui).map((suit) => (chosen.code[1] === suit ? byCode(ui, chosen.own) : null));
      }
      const dealScore = signed(view.deal_scores[seat]);
      board.append(stackRow(ui, view, seat, view.stacks[seat], scores, dealScore, targets));
    }
    ui.table.append(board);

    const mine = ui.seat !== null && view.to_move === ui.seat && ui.moves.length > 0;
    if (mine) {
      let words = "";
      if (view.phase === "play") {
        words = chosen ? `${ui.cardText(chosen.code)} — ${ui.say("p_where")}` : ui.say("p_play");
      } else {
        const how = ui.say(view.must_draw ? "p_must_draw" : "p_take");
        words = view.played_line ? `${view.played_line} ${how}` : how;
      }
      const prompt = ui.el("p", "p-prompt", words);
      prompt.classList.toggle("p-warn", Boolean(view.must_draw));
      ui.table.append(prompt);
    }

    if (chosen) {
      const suit = chosen.code[1];
      const own = byCode(ui, chosen.own);
      const middle = byCode(ui, chosen.middle);
      if (own) {
        const label = `${ui.say("p_to_mine", ui.symbol(suit))} (${chosen.gain})`;
        ui.actions.append(ui.button(label, own, { primary: true }));
      }
      if (middle) ui.actions.append(ui.button(ui.say("p_to_middle", ui.symbol(suit)), middle));
    }

    if (Array.isArray(view.hand) && inDeal(view)) {
      for (const code of view.hand) {
        const playable = Boolean(plays[code]);
        const face = ui.card(code, {
          selected: state.selected === code,
          onTap: playable
            ? () => {
                state.selected = state.selected === code ? null : code;
                ui.haptic("select");
                ui.redraw();
              }
            : null,
        });
        if (playable) face.classList.add("legal");
        ui.hand.append(face);
      }
    }
    return shown;
  };

  const facts = (view, seat, ui) => {
    if (!Array.isArray(view.totals)) return "";
    const total = ui.say("p_pts", view.shown_totals ? view.shown_totals[seat] : view.totals[seat]);
    if (view.phase === "between_deals" && view.ready && !(view.by_computer || [])[seat]) {
      return `${total} · ${ui.say(view.ready[seat] ? "p_ready" : "p_not_ready")}`;
    }
    if (inDeal(view)) return `${total} · ${signed(view.deal_scores[seat])}`;
    return total;
  };

  window.Cardroom.register("progression", { render, facts });
})();
