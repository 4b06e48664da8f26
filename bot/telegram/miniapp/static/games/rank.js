/*
 * Rank's table (views/rank.py sends its fields): the discard pile's top card (and the rank a
 * joker on it stands for), the stock, the round of the limit; under each name his cards, or
 * out and where, or his last card pending, and his place in the race to the round limit.
 *
 * The reader's hand is his cards, the legal ones highlighted: a tap plays a natural card. A
 * joker needs a rank: a tap on it opens the thirteen ranks as buttons (`ui.state.picking`,
 * kept for the state it was opened on), and a rank plays the joker naming it. The card just
 * drawn is marked, and highlighted when it may be played; Draw, Keep, End turn and Pass are
 * buttons, labelled as the chat's panel labels them.
 */
(() => {
  "use strict";

  const RING = "A23456789TJQK";
  const BUTTONS = ["draw", "keep", "end_turn", "pass"];

  const isJoker = (code) => typeof code === "string" && code[0] === "X";

  /** The rank picker: a joker's thirteen ranks, A 2 … K, and a way back. */
  const picker = (view, ui, jokers) => {
    const box = ui.el("div", "rank-picker column");
    box.append(ui.el("p", "rank-pick", ui.say("pick")));
    const grid = ui.el("div", "rank-ranks");
    const ordered = [...jokers].sort(
      (a, b) => RING.indexOf(a.code[1]) - RING.indexOf(b.code[1])
    );
    for (const move of ordered) {
      const choice = ui.button(ui.rank(move.code.slice(1)), move, { primary: true });
      choice.classList.add("rank-choice");
      grid.append(choice);
    }
    box.append(grid);
    const back = ui.button(ui.say("back"), () => {
      ui.state.picking = null;
      ui.redraw();
    });
    back.classList.add("rank-back");
    box.append(back);
    return box;
  };

  const pile = (view, ui) => {
    const discard = ui.el("div", "rank-pile");
    discard.dataset.top = view.top || "";
    discard.append(ui.el("span", "rank-label", ui.say("top")));
    discard.append(ui.card(view.top || null));
    if (view.named) {
      const named = ui.el("span", "rank-named", ui.say("named", ui.rank(view.named)));
      named.dataset.named = view.named;
      discard.append(named);
    }
    discard.append(ui.el("span", "rank-count", `${ui.say("discard")}: ${view.discard}`));
    const stock = ui.el("div", "rank-stock");
    stock.append(ui.el("span", "rank-label", ui.say("stock")));
    stock.append(ui.back(view.stock));
    const piles = ui.el("div", "rank-piles");
    piles.append(stock, discard);
    return piles;
  };

  Cardroom.register("rank", {
    render(view, ui) {
      if (typeof view.phase !== "string") return [];
      const shown = [];
      const jokers = ui.movesOf("play_joker");
      if (ui.state.picking !== view.version || jokers.length === 0) ui.state.picking = null;
      const picking = ui.state.picking !== null;

      const board = ui.el("div", "rank-table column");
      board.dataset.phase = view.phase;
      board.append(ui.el("p", "rank-round", view.round || ""));
      board.append(pile(view, ui));
      if (view.warning) board.append(ui.el("p", "rank-warning", view.warning));
      if (view.me) board.append(ui.el("p", "rank-me", view.me));
      ui.table.append(board);

      // The hand: a natural card plays itself; a joker opens the ranks.
      let drawnMarked = false;
      for (const code of view.hand || []) {
        let element;
        if (isJoker(code) && jokers.length > 0) {
          element = ui.card(code, {
            move: jokers[0],
            selected: picking,
            onTap: () => {
              ui.state.picking = picking ? null : view.version;
              ui.redraw();
            },
          });
          shown.push(...jokers.map((move) => move.code));
        } else {
          const move = isJoker(code)
            ? null
            : ui.moveWith((m) => m.kind === "play" && m.card === code);
          element = ui.card(code, { move });
          if (move) shown.push(move.code);
        }
        if (!drawnMarked && view.drawn && code === view.drawn) {
          drawnMarked = true;
          element.classList.add("drawn");
        }
        ui.hand.append(element);
      }

      // What is not a card: the ranks while picking, else Draw, Keep, End turn, Pass.
      if (picking) {
        ui.actions.append(picker(view, ui, jokers));
        shown.push(...jokers.map((move) => move.code));
        for (const kind of BUTTONS) shown.push(...ui.movesOf(kind).map((move) => move.code));
      } else {
        for (const kind of BUTTONS) {
          for (const move of ui.movesOf(kind)) {
            const primary = kind === "draw" || kind === "pass";
            const element = ui.button(move.label || kind, move, { primary });
            element.classList.add(`rank-${kind.replace("_", "-")}`);
            ui.actions.append(element);
            shown.push(move.code);
          }
        }
      }
      return shown;
    },

    facts(view, seat, ui) {
      if (!Array.isArray(view.standing)) return "";
      const status = view.standing[seat] || "";
      const out = Array.isArray(view.out) && view.out.includes(seat);
      if (out || !Array.isArray(view.places)) return status;
      return `🏁${view.places[seat]} · ${status}`;
    },

    turn(view, ui) {
      if (view.status !== "playing" || view.pause || ui.moves.length === 0) return null;
      const text = ui.state.picking === view.version ? ui.say("pick") : view.prompt;
      if (!text) return null;
      return { text, deadline: view.deadline, mine: true };
    },
  });
})();
