/*
 * Advantage's table: the other hand (its public cards face up, its private ones as a counted
 * face-down stack), the stock and the three centre piles (top card, size, the cards under it),
 * the pairs each player has laid aside, and the reader's own hand at the bottom, his private
 * cards face up and marked 🔒. The view is views/advantage.py's.
 *
 * A drop or an exchange names a card and a pile: the first tap picks a card of the hand that
 * has a move (kept in ui.state), the piles it may go on (or be swapped for) light up, and a
 * tap on one of them sends the move; a tap on the picked card again lets it go. Draw, Keep
 * and Pass are not cards: the shell shows them as buttons, labelled as the chat's panel is.
 */
(() => {
  "use strict";

  const CARD_KINDS = new Set(["drop", "exchange"]);
  // How many cards under a pile's top are named before "+n".
  const UNDER = 4;

  /** The reader's card moves, by the card they play: {"7h": [move, …]}. */
  const movesByCard = (ui) => {
    const byCard = {};
    for (const move of ui.moves) {
      if (CARD_KINDS.has(move.kind) && typeof move.card === "string") {
        (byCard[move.card] = byCard[move.card] || []).push(move);
      }
    }
    return byCard;
  };

  /** The picked card, if it still has a move (a new view may have taken it away). */
  const picked = (ui, byCard) => {
    const card = ui.state.picked;
    if (card && byCard[card]) return card;
    ui.state.picked = null;
    return null;
  };

  /** The card whose piles are lit: the picked one, or the only card that can move (the
   * card just drawn, say), which needs no picking. */
  const aimed = (ui, byCard) => {
    const only = Object.keys(byCard);
    return picked(ui, byCard) || (only.length === 1 ? only[0] : null);
  };

  /** "7♥ 4♠ +2": a few cards as text, each red or black. */
  const cardsLine = (ui, codes, className) => {
    const line = ui.el("div", className);
    for (const code of codes.slice(0, UNDER)) {
      line.append(ui.el("span", ui.isRed(code[1]) ? "red" : "black", ui.cardText(code)));
    }
    if (codes.length > UNDER) line.append(ui.el("span", "more", `+${codes.length - UNDER}`));
    return line;
  };

  const pairsLine = (view, seat, ui) => {
    const pairs = (view.pairs && view.pairs[seat]) || [];
    const line = ui.el("div", "adv-pairs");
    line.append(ui.el("span", "label", `${ui.say("pairs")}: ${pairs.length}`));
    for (const pair of pairs) {
      const shown = ui.el("span", "pair");
      for (const code of pair) {
        shown.append(ui.el("span", ui.isRed(code[1]) ? "red" : "black", ui.cardText(code)));
      }
      line.append(shown);
    }
    return line;
  };

  /** A seat's side as everybody sees it: face-up cards, the hidden count, the pairs. */
  const side = (view, seat, ui, withHand) => {
    const box = ui.el("div", "adv-side");
    box.dataset.seat = String(seat);
    box.classList.toggle("acting", view.to_move === seat && view.status === "playing");
    const head = ui.el("div", "adv-name");
    head.append(ui.el("bdi", "", ui.name(seat)));
    box.append(head);
    if (withHand) {
      const hand = view.hands[seat];
      const cards = ui.el("div", "adv-cards");
      for (const code of hand.public) cards.append(ui.card(code, { small: true }));
      if (hand.hidden > 0) cards.append(ui.back(hand.hidden, { small: true }));
      if (!hand.public.length && !hand.hidden) cards.append(ui.card(null, { small: true }));
      box.append(cards);
    }
    box.append(pairsLine(view, seat, ui));
    return box;
  };

  const centre = (view, ui, chosen, byCard) => {
    const row = ui.el("div", "adv-centre");
    const stock = ui.el("div", "adv-pile adv-stock");
    stock.append(ui.back(view.stock));
    stock.append(ui.el("span", "mark", ui.say("stock")));
    row.append(stock);
    const targets = {};
    for (const move of chosen ? byCard[chosen] : []) targets[move.pile] = move;
    view.piles.forEach((pile, index) => {
      const box = ui.el("div", "adv-pile");
      box.dataset.pile = String(index);
      box.dataset.top = pile.top;
      const move = targets[index] || null;
      box.classList.toggle("target", Boolean(move));
      const top = ui.card(pile.top, {
        move,
        onTap: move
          ? () => {
              ui.state.picked = null;
              ui.act(move.code);
            }
          : null,
      });
      const stack = ui.el("div", "stack");
      stack.append(top, ui.el("span", "count", String(pile.size)));
      box.append(stack);
      box.append(ui.el("span", "mark", (view.marks && view.marks[index]) || String(index + 1)));
      // Under the top, newest first: what an exchange would take into the hand.
      const under = pile.cards.slice(0, -1).reverse();
      box.append(cardsLine(ui, under, "adv-under"));
      row.append(box);
    });
    return row;
  };

  /** The reader's own hand: public cards, then his private ones marked; movable ones lit. */
  const hand = (view, ui, chosen, byCard) => {
    const mine = view.hands[ui.seat];
    const cards = [...mine.public.map((c) => [c, false]), ...mine.private.map((c) => [c, true])];
    for (const [code, hidden] of cards) {
      const moves = byCard[code] || null;
      const element = ui.card(code, {
        move: moves ? moves[0] : null,
        selected: code === chosen,
        onTap: moves
          ? () => {
              ui.state.picked = ui.state.picked === code ? null : code;
              ui.haptic("select");
              ui.redraw();
            }
          : null,
      });
      if (moves) delete element.dataset.code; // a tap picks the card; a pile sends the move
      if (hidden) element.classList.add("adv-private");
      if (code === view.drawn) {
        element.classList.add("adv-drawn");
        element.dataset.tag = ui.say("drawn");
      }
      ui.hand.append(element);
    }
    if (mine.private.length) ui.hand.append(ui.el("div", "adv-note", ui.say("only_you")));
  };

  Cardroom.register("advantage", {
    render(view, ui) {
      if (!Array.isArray(view.hands) || !Array.isArray(view.piles)) return [];
      const byCard = ui.seat === null ? {} : movesByCard(ui);
      const chosen = aimed(ui, byCard);
      const lines = view.lines || {};
      const info = ui.el("div", "adv-info");
      info.append(ui.el("span", "cycle", lines.cycle || ""));
      info.append(ui.el("span", "stock", lines.stock || ""));
      ui.table.append(info);
      const seats = ui.others();
      if (ui.seat === null) {
        // An onlooker: one player above the piles, the other below, both hands as public.
        ui.table.append(side(view, seats[0], ui, true));
        ui.table.append(centre(view, ui, chosen, byCard));
        for (const seat of seats.slice(1)) ui.table.append(side(view, seat, ui, true));
        return [];
      }
      for (const seat of seats) ui.table.append(side(view, seat, ui, true));
      ui.table.append(centre(view, ui, chosen, byCard));
      if (!chosen && Object.keys(byCard).length) {
        ui.table.append(ui.el("div", "adv-hint", ui.say("tap_card")));
      }
      ui.table.append(side(view, ui.seat, ui, false));
      hand(view, ui, chosen, byCard);
      return Object.values(byCard).flat().map((move) => move.code);
    },

    facts(view, seat) {
      return (Array.isArray(view.facts) && view.facts[seat]) || "";
    },

    turn(view, ui) {
      if (view.status !== "playing" || view.pause || view.autopilot) return null;
      if (ui.seat !== null && view.to_move === ui.seat && ui.moves.length) {
        const chosen = picked(ui, movesByCard(ui));
        let text = view.prompt || "";
        if (chosen) {
          const kind = movesByCard(ui)[chosen][0].kind;
          text = ((view.pick && view.pick[kind]) || "").replace("{card}", ui.cardText(chosen));
        }
        return { text, deadline: view.deadline, mine: true };
      }
      const doing = view.lines && view.lines.doing;
      return doing ? { text: doing, deadline: view.deadline } : null;
    },
  });
})();
