/*
 * Your Trumps at the Mini App's table: the two players' own trump suits, the pile with the
 * card to beat on top, the reader's hand, and his moves (the contract is shell.js's).
 *
 * While trumps are chosen the four suits are buttons (the free ones, for the player choosing;
 * a taken suit shows whose it is). Then the pile's top cards lie fanned, the card to beat
 * last and largest, the cards a take would collect underlined, with the pile's size, the
 * move count of the backstop's maximum and the deck's size; the hand is drawn in suit order,
 * the reader's own trumps starred, the cards that may be played now highlighted; Take is a
 * button that says how many cards it collects. The sentences come from the bot (view.texts),
 * in the reader's language, as the chat's panel says them.
 */
(() => {
  "use strict";

  /** A hand longer than this is drawn with smaller cards (nine a row, not seven). */
  const CROWDED = 21;

  const texts = (view) => (view.texts && typeof view.texts === "object" ? view.texts : {});

  /** The four suits: a button for each free suit the reader may choose, else whose it is. */
  function suitPicker(view, ui, claimed) {
    const row = ui.el("div", "suits");
    const trumps = Array.isArray(view.trumps) ? view.trumps : [];
    for (const [letter, symbol] of ui.suits) {
      const move = ui.moveWith((m) => m.kind === "choose_trump" && m.suit === letter);
      const owner = trumps.indexOf(letter);
      const colour = ui.isRed(letter) ? "red" : "black";
      let place;
      if (move) {
        place = ui.button("", move, { primary: false });
        place.classList.add("suit-choice", "legal", colour);
        place.setAttribute("aria-label", move.label || symbol);
        claimed.push(move.code);
      } else {
        place = ui.el("div", `suit-choice ${colour}${owner >= 0 ? " taken" : ""}`);
      }
      place.dataset.suit = letter;
      place.append(ui.el("span", "symbol", symbol));
      if (owner >= 0) place.append(ui.el("bdi", "owner", ui.name(owner)));
      row.append(place);
    }
    return row;
  }

  /** The pile: its top cards fanned (the card to beat on top), and how many lie under. */
  function pile(view, ui) {
    const top = Array.isArray(view.pile_top) ? view.pile_top : [];
    const box = ui.el("div", "pile");
    box.dataset.size = String(view.pile_size || 0);
    if (top.length === 0) {
      box.append(ui.card(null));
      return box;
    }
    const under = (view.pile_size || 0) - top.length;
    if (under > 0) box.append(ui.el("span", "under", `+${under}`));
    const taking = view.phase === "beat_or_take" ? view.take_count || 0 : 0;
    top.forEach((code, index) => {
      const last = index === top.length - 1;
      const face = ui.card(code, { small: !last });
      face.classList.add("pile-card");
      if (last && view.facing) face.classList.add("facing");
      if (index >= top.length - taking) face.classList.add("takes");
      box.append(face);
    });
    return box;
  }

  function drawTable(view, ui, claimed) {
    const said = texts(view);
    const table = ui.el("div", "trumps column");
    table.dataset.phase = view.phase || "";
    if (view.phase === "choose_trump") {
      if (said.hint) table.append(ui.el("p", "hint", said.hint));
      table.append(suitPicker(view, ui, claimed));
      ui.table.append(table);
      return;
    }
    const centre = ui.el("div", "centre");
    centre.append(pile(view, ui));
    const about = ui.el("div", "about");
    if (view.facing) about.append(ui.el("span", "facing-word", ui.say("facing")));
    about.append(ui.el("span", "pile-size", said.pile || ""));
    about.append(ui.el("span", "count", said.count || ""));
    about.append(ui.el("span", "deck", said.deck || ""));
    centre.append(about);
    table.append(centre);
    if (said.hint) table.append(ui.el("p", "hint", said.hint));
    if (said.warning) table.append(ui.el("p", "warning", said.warning));
    ui.table.append(table);
  }

  function drawHand(view, ui, claimed) {
    const hand = Array.isArray(view.hand) ? view.hand : [];
    const trump = ui.seat !== null && Array.isArray(view.trumps) ? view.trumps[ui.seat] : null;
    const mine = ui.seat !== null && view.to_move === ui.seat && ui.moves.length > 0;
    ui.hand.classList.toggle("crowded", hand.length > CROWDED);
    for (const code of hand) {
      const move = ui.moveWith((m) => m.kind === "play_card" && m.card === code);
      const face = ui.card(code, { move });
      if (move) claimed.push(move.code);
      else if (mine) face.classList.add("idle"); // not playable now: it cannot beat the card
      if (trump && code[1] === trump) {
        face.classList.add("own-trump");
        face.append(ui.el("span", "star", "★"));
        face.title = ui.say("your_trumps");
      }
      ui.hand.append(face);
    }
  }

  window.Cardroom.register("trumps", {
    render(view, ui) {
      const claimed = [];
      drawTable(view, ui, claimed);
      drawHand(view, ui, claimed);
      const take = ui.moveWith((m) => m.kind === "take");
      if (take) {
        const button = ui.button(take.label || `+${view.take_count}`, take, { primary: true });
        button.classList.add("take");
        ui.actions.append(button);
        claimed.push(take.code);
      }
      return claimed;
    },

    facts(view, seat) {
      const facts = texts(view).facts;
      return Array.isArray(facts) ? facts[seat] || "" : "";
    },
  });
})();
