// Cardroom sandbox: the chat page. It long-polls /sandbox/api/state for the whole world (the
// group, every user's private chat with the bot) and draws it like a chat client; what the
// person does goes to /sandbox/api/* as the user he has chosen to be. Message text is drawn
// from the plain text and its entities with DOM nodes only (never innerHTML), so nothing a
// bot or a user writes can run as markup. A web_app button opens the bot's Mini App, signed
// for its user by the sandbox, in a panel beside the chats (a full-screen overlay on a phone):
// one panel per user, so two users' apps can race side by side, or in two tabs. So does a
// link to the app's direct link (t.me/<bot>/<short name>?startapp=…), as on a group's table.
"use strict";

(() => {
  const AVATAR_COLORS = ["#e17076", "#faa774", "#a695e7", "#7bc862", "#6ec9cb", "#65aadd",
    "#ee7aae"];
  const NAME_COLORS = ["#c03d33", "#d0771c", "#8c5fd3", "#3f9e2f", "#2996ad", "#2a7fd4",
    "#c7508b"];
  const TOAST_MS = 2800;
  // The narrowest a user's chip gets where more users than fit share the top bar: room for
  // the avatar and the first letters of the name.
  const CHIP_MIN_PX = 104;
  // Photos come from the sandbox itself (GET /sandbox/api/files/<id>), never from elsewhere.
  const PHOTO_URL = /^\/sandbox\/api\/files\/[A-Za-z0-9_-]+$/;

  const state = {
    world: null,
    me: Number(localStorage.getItem("cardroom.sandbox.me")) || null,
    pane: "group",           // the pane shown on a phone-width screen
    seen: new Map(),         // chat id -> activity signature last seen
    apps: new Map(),         // user id -> { panel, frame }: the Mini Apps open on this page
  };

  const $ = (selector, root = document) => root.querySelector(selector);

  // -- helpers ------------------------------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function colorOf(id, palette) {
    return palette[Math.abs(Number(id)) % palette.length];
  }

  function initials(name) {
    const parts = String(name).trim().split(/\s+/).filter(Boolean);
    const letters = parts.slice(0, 2).map((part) => Array.from(part)[0] || "");
    return letters.join("").toUpperCase() || "?";
  }

  function avatar(user) {
    const node = el("span", "avatar", initials(user.name));
    node.style.setProperty("--avatar", colorOf(user.id, AVATAR_COLORS));
    node.setAttribute("aria-hidden", "true");
    return node;
  }

  function clock(unix) {
    return new Date(unix * 1000).toLocaleTimeString([], {
      hour: "2-digit", minute: "2-digit", hourCycle: "h23",
    });
  }

  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      // The server takes actions only with this header, which another site's page cannot
      // send here (see bot/sandbox/web.py).
      headers: { "Content-Type": "application/json", "X-Cardroom-Sandbox": "1" },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
    return data;
  }

  function toast(text, who) {
    const box = $("#toasts");
    const node = el("div", "toast");
    if (who) node.append(el("span", "who", who));
    node.append(document.createTextNode(text));
    box.append(node);
    while (box.children.length > 4) box.firstElementChild.remove();
    setTimeout(() => node.classList.add("hide"), TOAST_MS);
    setTimeout(() => node.remove(), TOAST_MS + 400);
  }

  function alertBox(text) {
    $("#alert-text").textContent = text;
    const dialog = $("#alert-dialog");
    if (!dialog.open) dialog.showModal();
    $("#alert-ok").focus();
  }

  // -- the world ----------------------------------------------------------------------------

  function users() {
    return state.world ? state.world.users : [];
  }

  function userById(id) {
    return users().find((user) => user.id === id) || null;
  }

  function me() {
    return userById(state.me) || users()[0] || null;
  }

  function chatById(id) {
    return state.world ? state.world.chats.find((chat) => chat.id === id) || null : null;
  }

  function groupChat() {
    return state.world ? chatById(state.world.group_id) : null;
  }

  function dmOf(user) {
    return user ? chatById(user.id) : null;
  }

  function botUsername() {
    return state.world ? state.world.bot.username : "";
  }

  // The direct link of this bot's Mini App: t.me/<bot>/<short name>[?startapp=<parameter>].
  function isOwnAppLink(url) {
    const app = state.world ? state.world.app : null;
    const match = /^(?:https?:\/\/)?(?:t\.me|telegram\.me|telegram\.dog)\/([A-Za-z0-9_]+)\/([A-Za-z0-9_]+)\/?(?:[?#]|$)/
      .exec(String(url).trim());
    return Boolean(app && match) && match[1].toLowerCase() === botUsername().toLowerCase()
      && match[2].toLowerCase() === app.short_name.toLowerCase();
  }

  // A t.me/<bot>?start=<payload> (or tg://resolve) link to this bot.
  function isOwnDeepLink(url) {
    const match = /^(?:(?:https?:\/\/)?(?:t\.me|telegram\.me|telegram\.dog)\/([A-Za-z0-9_]+)|tg:\/\/resolve\?domain=([A-Za-z0-9_]+))/
      .exec(String(url).trim());
    const name = match ? match[1] || match[2] : null;
    return Boolean(name) && name.toLowerCase() === botUsername().toLowerCase();
  }

  function activity(chat) {
    const last = chat.messages[chat.messages.length - 1];
    const edits = chat.messages.reduce((most, m) => Math.max(most, m.edit_date || 0), 0);
    return `${chat.messages.length}/${last ? last.id : 0}/${edits}`;
  }

  // -- acting ---------------------------------------------------------------------------------

  function setMe(userId) {
    if (state.me === userId) return;
    state.me = userId;
    localStorage.setItem("cardroom.sandbox.me", String(userId));
    render();
  }

  function showPane(name) {
    state.pane = name;
    render();
  }

  async function send(actor, chatId, text) {
    try {
      await post("/sandbox/api/send", { user_id: actor.id, chat_id: chatId, text });
    } catch (error) {
      toast(error.message);
    }
  }

  async function press(actor, chatId, message, button, node) {
    node.classList.add("pending");
    node.disabled = true;
    try {
      const answer = await post("/sandbox/api/press", {
        user_id: actor.id,
        chat_id: chatId,
        message_id: message.id,
        data: button.value,
      });
      if (answer.url) {
        await openLink(actor, answer.url, chatId);
      } else if (answer.text) {
        if (answer.show_alert) alertBox(answer.text);
        else toast(answer.text, users().length > 1 ? `${actor.name}:` : null);
      } else if (!answer.answered) {
        toast("The bot did not answer the button in time.");
      }
    } catch (error) {
      toast(error.message);
    } finally {
      node.classList.remove("pending");
      node.disabled = false;
    }
  }

  // Follows a link as a Telegram client would: the bot's Mini App's direct link opens the app;
  // another link to this bot opens the user's private chat with it and sends /start <payload>;
  // any other link opens in a new tab. `chatId`: the chat the link was followed in.
  async function openLink(actor, url, chatId) {
    if (isOwnAppLink(url)) {
      await openApp(actor, url, null, state.pane, chatId);
      return;
    }
    if (!isOwnDeepLink(url)) {
      if (/^https?:\/\//i.test(url)) window.open(url, "_blank", "noopener,noreferrer");
      else toast(`Cannot open ${url}`);
      return;
    }
    setMe(actor.id);
    showPane("dm");
    try {
      await post("/sandbox/api/open", { user_id: actor.id, url });
    } catch (error) {
      toast(error.message);
    }
  }

  // -- Mini Apps -------------------------------------------------------------------------------

  // A web_app button, or the app's direct link followed in chat `chatId`: the sandbox signs who
  // opens it (as Telegram would: the link's startapp too) and the app opens in the user's own
  // panel, loaded anew as Telegram opens it anew.
  async function openApp(actor, url, node, kind, chatId) {
    if (node) {
      node.classList.add("pending");
      node.disabled = true;
    }
    try {
      const body = { user_id: actor.id, url };
      if (chatId !== undefined && chatId !== null) body.chat_id = chatId;
      const answer = await post("/sandbox/api/webapp", body);
      // Where the chats show one at a time, the one the app was opened from stays in sight.
      state.pane = kind;
      showApp(actor, answer.url);
      render();
    } catch (error) {
      toast(error.message);
    } finally {
      if (node) {
        node.classList.remove("pending");
        node.disabled = false;
      }
    }
  }

  function showApp(user, url) {
    if (!appAddress(url)) {
      toast(`Cannot open ${url}`);
      return;
    }
    let app = state.apps.get(user.id);
    if (!app) {
      app = appPanel(user);
      state.apps.set(user.id, app);
      $("#apps").append(app.panel);
    }
    const frame = el("iframe", "app-frame");
    frame.title = `${botName()} Mini App — ${user.name}`;
    frame.referrerPolicy = "no-referrer";
    frame.src = url;
    if (app.frame) app.frame.replaceWith(frame);
    else app.panel.append(frame);
    app.frame = frame;
    renderApps();
  }

  // What may open in a frame (the page's policy says the same): HTTPS, or an app on this
  // machine as the sandbox serves the bot's own.
  function appAddress(url) {
    try {
      const address = new URL(url);
      return address.protocol === "https:" || (address.protocol === "http:"
        && ["127.0.0.1", "localhost"].includes(address.hostname) && address.port !== "");
    } catch (error) {
      return false;
    }
  }

  function appPanel(user) {
    const panel = el("section", "app-panel");
    panel.dataset.userId = String(user.id);
    panel.setAttribute("aria-label", `Mini App of ${user.name}`);
    const head = el("header", "app-head");
    const mark = el("div", "avatar avatar-bot", "🎴");
    mark.setAttribute("aria-hidden", "true");
    const heading = el("div", "pane-heading");
    heading.append(el("div", "pane-title", botName()), el("div", "pane-sub",
      `Mini App · ${user.name}`));
    const close = el("button", "app-close");
    close.type = "button";
    close.title = `Close ${user.name}'s app`;
    close.setAttribute("aria-label", `Close ${user.name}'s app`);
    close.append(el("span", "app-close-mark", "×"), el("span", "app-close-label", "Close"));
    close.addEventListener("click", () => closeApp(user.id));
    head.append(close, mark, heading);
    panel.append(head);
    return { panel, frame: null };
  }

  function closeApp(userId) {
    const app = state.apps.get(userId);
    if (!app) return;
    app.panel.remove();
    state.apps.delete(userId);
    renderApps();
  }

  // On a desktop every open app has its column; on a phone the chosen user's app covers the
  // screen, and the others' stay loaded, hidden, until he is chosen again.
  function renderApps() {
    const current = me();
    let shown = 0;
    for (const [userId, app] of state.apps) {
      const mine = current !== null && userId === current.id;
      app.panel.classList.toggle("mine", mine);
      app.panel.hidden = narrow.matches && !mine;
      if (!app.panel.hidden) shown += 1;
    }
    $("#apps").hidden = shown === 0;
    document.body.classList.toggle("app-open", shown > 0);
  }

  function botName() {
    return state.world ? state.world.bot.name : "Bot";
  }

  // An app asks to be closed as Telegram's script asks its web client (a posted event).
  window.addEventListener("message", (event) => {
    for (const [userId, app] of state.apps) {
      if (!app.frame || event.source !== app.frame.contentWindow) continue;
      let data = event.data;
      try {
        if (typeof data === "string") data = JSON.parse(data);
      } catch (error) {
        return;
      }
      if (data && data.eventType === "web_app_close") closeApp(userId);
      return;
    }
  });

  // -- message text: plain text + entities -> DOM ----------------------------------------------

  const SIMPLE_TAGS = {
    bold: "b", italic: "i", underline: "u", strikethrough: "s", code: "code",
  };

  function safeUrl(url) {
    const text = String(url || "").trim();
    if (/^(https?:\/\/|tg:\/\/|mailto:)/i.test(text)) return text;
    if (/^[a-z0-9.-]+\.[a-z]{2,}(\/|$)/i.test(text)) return `https://${text}`;
    return null;
  }

  function linkNode(url, context) {
    const target = safeUrl(url);
    const node = el("a");
    if (!target) return node;
    node.href = target;
    node.rel = "noopener noreferrer";
    node.target = "_blank";
    node.addEventListener("click", (event) => {
      if (isOwnDeepLink(target)) {
        event.preventDefault();
        openLink(context.actor, target, context.chatId);
      }
    });
    return node;
  }

  function commandNode(command, context) {
    const node = el("a", "command", command);
    node.href = "#";
    node.addEventListener("click", (event) => {
      event.preventDefault();
      send(context.actor, context.chatId, command.replace(/@[A-Za-z0-9_]+$/, ""));
    });
    return node;
  }

  // The element an entity becomes, and the element its content goes into.
  function entityNode(entity, content, context) {
    const type = entity.type;
    if (SIMPLE_TAGS[type]) {
      const node = el(SIMPLE_TAGS[type]);
      return [node, node];
    }
    switch (type) {
      case "pre": {
        const outer = el("pre");
        const inner = el("code");
        if (entity.language) inner.dataset.language = entity.language;
        outer.append(inner);
        return [outer, inner];
      }
      case "blockquote":
      case "expandable_blockquote": {
        const node = el("blockquote");
        return [node, node];
      }
      case "spoiler": {
        const node = el("span", "spoiler");
        node.title = "Spoiler: click to show";
        node.addEventListener("click", () => node.classList.toggle("revealed"));
        return [node, node];
      }
      case "text_link": {
        const node = linkNode(entity.url, context);
        return [node, node];
      }
      case "url": {
        const node = linkNode(content, context);
        return [node, node];
      }
      case "email": {
        const node = el("a");
        node.href = `mailto:${content}`;
        return [node, node];
      }
      case "bot_command": {
        const node = commandNode(content, context);
        node.textContent = "";
        return [node, node];
      }
      case "mention":
      case "text_mention":
      case "hashtag":
      case "cashtag":
      case "phone_number": {
        const node = el("span", "mention");
        return [node, node];
      }
      default: {
        const node = el("span");
        return [node, node];
      }
    }
  }

  // Plain text; in the bot's messages /commands become clickable, as Telegram clients do.
  function appendPlain(parent, text, context) {
    if (!context.linkCommands) {
      parent.append(document.createTextNode(text));
      return;
    }
    const pattern = /(^|[\s(])(\/[a-z0-9_]{1,32})(?=$|[\s.,;:!?)])/gi;
    let last = 0;
    let match;
    while ((match = pattern.exec(text)) !== null) {
      const start = match.index + match[1].length;
      if (start > last) parent.append(document.createTextNode(text.slice(last, start)));
      parent.append(commandNode(match[2], context));
      last = start + match[2].length;
    }
    if (last < text.length) parent.append(document.createTextNode(text.slice(last)));
  }

  // Entities count UTF-16 code units, exactly like JavaScript string indices. Telegram's
  // entities nest properly; anything crossing its parent is clipped to it, and no text is lost.
  function formatText(text, entities, context) {
    const root = document.createDocumentFragment();
    const list = (entities || [])
      .filter((e) => Number.isInteger(e.offset) && Number.isInteger(e.length) && e.length > 0)
      .map((e) => ({ ...e, end: e.offset + e.length }))
      .sort((a, b) => a.offset - b.offset || b.end - a.end);
    let index = 0;

    function build(parent, start, end, plainContext) {
      let position = start;
      while (index < list.length && list[index].offset < end) {
        const entity = list[index];
        index += 1;
        const from = Math.max(entity.offset, position);
        const to = Math.min(entity.end, end);
        if (to <= from) continue;
        if (from > position) appendPlain(parent, text.slice(position, from), plainContext);
        const [outer, inner] = entityNode(entity, text.slice(from, to), context);
        const code = ["code", "pre", "bot_command", "url", "text_link", "email"];
        const innerContext = code.includes(entity.type)
          ? { ...plainContext, linkCommands: false }
          : plainContext;
        build(inner, from, to, innerContext);
        parent.append(outer);
        position = to;
      }
      if (position < end) appendPlain(parent, text.slice(position, end), plainContext);
    }

    build(root, 0, text.length, context);
    return root;
  }

  // -- drawing a chat --------------------------------------------------------------------------

  class ChatPane {
    constructor(root, kind) {
      this.root = root;
      this.kind = kind;
      this.chatId = null;
      this.nodes = new Map();        // message id -> { signature, node }
      this.messages = $("[data-role=messages]", root);
      this.list = $("[data-role=list]", root);
      this.input = $("[data-role=input]", root);
      this.menu = $("[data-role=menu]", root);
      this.composer = $("[data-role=composer]", root);
      this.startBar = $("[data-role=start]", root);
      // Where the person left the chat: at its newest message (it then follows new ones), or
      // read further up. A hidden pane (the other tab on a phone) has no scroll position of
      // its own, so it is remembered here and given back when the pane is shown again.
      this.atBottom = true;
      this.readAt = 0;
      this.shown = false;
      this.messages.addEventListener("scroll", () => {
        if (!this.messages.clientHeight) return; // hidden: nothing to remember
        this.atBottom = this.fromBottom() < 60;
        this.readAt = this.messages.scrollTop;
      }, { passive: true });

      this.composer.addEventListener("submit", (event) => {
        event.preventDefault();
        const text = this.input.value.trim();
        if (!text || !this.actor) return;
        this.input.value = "";
        this.closeMenu();
        this.stickToBottom = true;
        send(this.actor, this.chatId, text);
      });
      $("[data-role=menu-button]", root).addEventListener("click", () => this.toggleMenu());
      const start = $("[data-role=start-button]", root);
      if (start) {
        start.addEventListener("click", () => {
          if (this.actor) send(this.actor, this.chatId, "/start");
        });
      }
      this.input.addEventListener("keydown", (event) => {
        if (event.key === "Escape") this.closeMenu();
      });
    }

    fromBottom() {
      const box = this.messages;
      return box.scrollHeight - box.scrollTop - box.clientHeight;
    }

    // Called after every render with whether the pane is on screen: a pane that has just
    // come into view shows the chat where the person left it — most often its newest message.
    show(visible) {
      if (visible && !this.shown) {
        this.messages.scrollTop = this.atBottom ? this.messages.scrollHeight : this.readAt;
      }
      this.shown = visible;
    }

    get actor() {
      if (this.kind === "dm") {
        const chat = chatById(this.chatId);
        return chat ? userById(chat.user_id) : null;
      }
      return me();
    }

    commands() {
      const actor = this.actor;
      if (!actor) return [];
      return actor.commands[this.kind === "dm" ? "private" : "group"] || [];
    }

    toggleMenu() {
      if (!this.menu.hidden) {
        this.closeMenu();
        return;
      }
      this.menu.replaceChildren();
      const commands = this.commands();
      if (!commands.length) this.menu.append(el("div", "none", "The bot has no command menu."));
      for (const command of commands) {
        const item = el("button");
        item.type = "button";
        item.append(el("span", "name", `/${command.command}`), el("span", "about",
          command.description));
        item.addEventListener("click", () => {
          this.closeMenu();
          this.stickToBottom = true;
          send(this.actor, this.chatId, `/${command.command}`);
        });
        this.menu.append(item);
      }
      this.menu.hidden = false;
    }

    closeMenu() {
      this.menu.hidden = true;
    }

    draw(chat, heading) {
      $("[data-role=title]", this.root).textContent = heading.title;
      $("[data-role=sub]", this.root).textContent = heading.sub;
      if (!chat) return;
      if (chat.id !== this.chatId) {
        this.chatId = chat.id;
        this.nodes.clear();
        this.list.replaceChildren();
        this.closeMenu();
        this.stickToBottom = true;
      }
      const who = this.actor;
      this.input.placeholder = who ? `Message as ${who.name}` : "Message";
      const notStarted = this.kind === "dm" && who && !who.started && !chat.messages.length;
      if (this.startBar) this.startBar.hidden = !notStarted;
      this.composer.hidden = Boolean(notStarted);

      // A hidden pane cannot be measured: it follows the newest message if it did when hidden.
      const nearBottom = this.messages.clientHeight ? this.fromBottom() < 60 : this.atBottom;
      const wanted = [];
      if (!chat.messages.length) wanted.push(this.emptyNode(chat));
      let previous = null;
      for (const message of chat.messages) {
        const mine = who !== null && message.from.id === who.id;
        const grouped = previous !== null && previous.from.id === message.from.id
          && !previous.service && message.date - previous.date < 300;
        const signature = JSON.stringify([message, mine, grouped, this.kind]);
        const known = this.nodes.get(message.id);
        let node;
        if (known && known.signature === signature) {
          node = known.node;
        } else {
          node = this.messageNode(chat, message, mine, grouped);
          const edited = known && known.editDate !== message.edit_date;
          if (edited) node.classList.add("flash");
          this.nodes.set(message.id, { signature, node, editDate: message.edit_date });
        }
        wanted.push(node);
        previous = message;
      }
      const ids = new Set(chat.messages.map((m) => m.id));
      for (const id of [...this.nodes.keys()]) if (!ids.has(id)) this.nodes.delete(id);
      wanted.forEach((node, position) => {
        const current = this.list.children[position];
        if (current !== node) this.list.insertBefore(node, current || null);
      });
      while (this.list.children.length > wanted.length) this.list.lastElementChild.remove();
      if (nearBottom || this.stickToBottom) {
        this.messages.scrollTop = this.messages.scrollHeight;
        this.atBottom = true;
        this.stickToBottom = false;
      }
    }

    emptyNode(chat) {
      const box = el("div", "empty");
      if (chat.type === "private") {
        const user = userById(chat.user_id);
        box.append(`This is ${user ? user.name : "the user"}'s private chat with @${botUsername()}.`,
          el("br"), "Your hand arrives here during a game. Start with ", el("code", null, "/start"),
          ".");
      } else {
        box.append("Open a lobby with ", el("code", null, "/new"),
          " and play a game: join with the buttons, add computer players, switch who you are "
          + "above.");
      }
      return box;
    }

    messageNode(chat, message, mine, grouped) {
      if (message.service) {
        const row = el("div", "msg service");
        row.append(el("div", "bubble", message.service));
        return row;
      }
      const row = el("div", `msg ${mine ? "out" : "in"}`);
      row.dataset.messageId = String(message.id);
      const isGroup = chat.type !== "private";
      if (isGroup && !mine) {
        if (grouped) {
          const spacer = el("span", "avatar");
          spacer.style.visibility = "hidden";
          row.append(spacer);
        } else if (message.from.is_bot) {
          const bot = el("span", "avatar avatar-bot", "🎴");
          bot.setAttribute("aria-hidden", "true");
          row.append(bot);
        } else {
          row.append(avatar(message.from));
        }
      }
      const body = el("div", "msg-body");
      const bubble = el("div", "bubble");
      if (isGroup && !mine && !grouped) {
        const sender = el("div", "sender", message.from.name);
        sender.style.setProperty("--name", message.from.is_bot
          ? "#d0771c" : colorOf(message.from.id, NAME_COLORS));
        bubble.append(sender);
      }
      const context = {
        actor: this.actor,
        chatId: chat.id,
        linkCommands: message.from.is_bot,
      };
      const text = el("div", "text");
      if (message.photo && PHOTO_URL.test(message.photo.url || "")) {
        bubble.append(this.photoNode(message.photo));
      } else if (message.photo) {
        text.append(el("i", null, "🖼 photo"), message.text ? "\n" : "");
      }
      text.append(formatText(message.text, message.entities, context));
      const meta = el("span", "meta");
      if (message.edit_date) meta.append(el("span", "edited", "edited"));
      meta.append(clock(message.date));
      // An invisible copy at the end of the text keeps the last line clear of the time.
      const room = meta.cloneNode(true);
      room.className = "meta-room";
      room.setAttribute("aria-hidden", "true");
      text.append(room);
      bubble.append(text, meta);
      body.append(bubble);
      if (message.keyboard.length) body.append(this.keyboardNode(chat, message));
      row.append(body);
      return row;
    }

    // A photo the bot sent, at the width the bubble allows; scrolled into view once it has
    // its height if the chat follows its newest message.
    photoNode(photo) {
      const image = el("img", "photo");
      image.alt = "Photo";
      image.decoding = "async";
      if (photo.width > 0 && photo.height > 0) {
        image.width = photo.width;
        image.height = photo.height;
      }
      image.addEventListener("load", () => {
        if (this.atBottom && this.messages.clientHeight) {
          this.messages.scrollTop = this.messages.scrollHeight;
        }
      });
      image.src = photo.url;
      return image;
    }

    keyboardNode(chat, message) {
      const keyboard = el("div", "keyboard");
      for (const buttons of message.keyboard) {
        const row = el("div", "row");
        for (const button of buttons) {
          const key = el("button", `key ${button.kind}`, button.text);
          key.type = "button";
          key.title = button.text;
          if (button.kind === "web_app") {
            key.title = `${button.text} (opens an app)`;
            key.addEventListener("click", () => {
              if (this.actor) openApp(this.actor, button.value, key, this.kind);
            });
          } else if (button.kind === "callback") {
            key.addEventListener("click", () => {
              if (this.actor) press(this.actor, chat.id, message, button, key);
            });
          } else if (button.kind === "url" && isOwnAppLink(button.value)) {
            // The app's direct link, as a group's table carries it: it opens the app.
            key.title = `${button.text} (opens an app)`;
            key.addEventListener("click", () => {
              if (this.actor) openApp(this.actor, button.value, key, this.kind, chat.id);
            });
          } else if (button.kind === "url") {
            key.addEventListener("click", () => {
              if (this.actor) openLink(this.actor, button.value, chat.id);
            });
          } else {
            key.disabled = true;
          }
          row.append(key);
        }
        keyboard.append(row);
      }
      return keyboard;
    }
  }

  // -- the page --------------------------------------------------------------------------------

  const panes = {
    group: new ChatPane($("#pane-group"), "group"),
    dm: new ChatPane($("#pane-dm"), "dm"),
  };

  const narrow = window.matchMedia("(max-width: 820px)");

  // Whether the chats show one at a time, under tabs: the stylesheet decides by their room
  // (a phone, or a desktop where Mini Apps take most of the width).
  function oneChat() {
    return getComputedStyle($(".switcher")).display !== "none";
  }

  function visible(kind) {
    return !oneChat() || state.pane === kind;
  }

  // More users than the top bar holds: whole chips only, as wide as a whole number of them
  // fills the row, and the arrow that says (and shows) that there are more.
  function fitPeople() {
    const box = $("#people");
    const more = $("#people-more");
    const gap = parseFloat(getComputedStyle(box).columnGap) || 0;
    // The first chip in sight, kept there while the row is measured again.
    const step = parseFloat(box.style.getPropertyValue("--chip-w")) + gap;
    const first = step > 0 ? Math.round(box.scrollLeft / step) : 0;
    box.classList.remove("crowded");
    box.style.removeProperty("--chip-w");
    more.hidden = true;
    if (box.scrollWidth <= box.clientWidth + 1) return;
    box.classList.add("crowded");
    more.hidden = false;
    const width = box.clientWidth;
    const fit = Math.max(1, Math.floor((width + gap) / (CHIP_MIN_PX + gap)));
    const chip = (width - (fit - 1) * gap) / fit;
    box.style.setProperty("--chip-w", `${chip}px`);
    box.scrollLeft = first * (chip + gap);
    const selected = box.querySelector("[aria-checked=true]");
    if (selected) selected.scrollIntoView({ block: "nearest", inline: "nearest" });
    pointMore();
  }

  // The arrow points to where the hidden users are: on, or back to the start from the end.
  function pointMore() {
    const box = $("#people");
    const more = $("#people-more");
    const atEnd = box.scrollLeft + box.clientWidth >= box.scrollWidth - 1;
    more.textContent = atEnd ? "‹" : "›";
    more.title = atEnd ? "Back to the first users" : "More users";
    more.setAttribute("aria-label", more.title);
  }

  function renderPeople(unreadOf) {
    const box = $("#people");
    const current = me();
    const chips = users().map((user) => {
      const chip = el("button", "chip");
      chip.type = "button";
      chip.setAttribute("role", "radio");
      chip.setAttribute("aria-checked", String(current !== null && user.id === current.id));
      chip.dataset.userId = String(user.id);
      chip.title = `Be ${user.name}${user.started ? "" : " (has not started the bot yet)"}`;
      chip.append(avatar(user), el("span", "name", user.name));
      if (user.language) chip.append(el("span", "lang", user.language));
      const dot = el("span", "dot");
      dot.hidden = !unreadOf(dmOf(user));
      chip.append(dot);
      chip.addEventListener("click", () => setMe(user.id));
      return chip;
    });
    box.replaceChildren(...chips);
    fitPeople();
  }

  function render() {
    const world = state.world;
    if (!world) return;
    const current = me();
    const group = groupChat();
    const dm = dmOf(current);

    for (const [kind, chat] of [["group", group], ["dm", dm]]) {
      if (chat && visible(kind)) state.seen.set(chat.id, activity(chat));
    }
    const unreadOf = (chat) => chat !== null && state.seen.has(chat.id)
      && state.seen.get(chat.id) !== activity(chat);

    renderPeople(unreadOf);
    const name = current ? current.name : "nobody";
    panes.group.draw(group, {
      title: group ? group.title : "Group",
      sub: group ? `${group.members} members · you write as ${name}` : "",
    });
    panes.dm.draw(dm, {
      title: world.bot.name,
      sub: `@${world.bot.username} · bot · private chat with ${name}`,
    });

    $("#tab-group-label").textContent = group ? group.title : "Group";
    $("#tab-dm-label").textContent = current ? `${current.name} ↔ ${world.bot.name}` : "Private";
    for (const kind of ["group", "dm"]) {
      const tab = $(`#tab-${kind}`);
      tab.setAttribute("aria-selected", String(state.pane === kind));
      $(".dot", tab).hidden = !unreadOf(kind === "group" ? group : dm);
      $(`#pane-${kind}`).classList.toggle("active", state.pane === kind);
      panes[kind].show(visible(kind));
    }
    renderApps();
  }

  function firstLook(world) {
    // Whatever is there when the page opens counts as read.
    for (const chat of world.chats) state.seen.set(chat.id, activity(chat));
    const list = $("#languages");
    list.replaceChildren(...world.languages.map((code) => {
      const option = el("option");
      option.value = code;
      return option;
    }));
  }

  async function poll() {
    let since = null;
    for (;;) {
      try {
        const query = since === null ? "" : `?since=${since}`;
        const response = await fetch(`/sandbox/api/state${query}`, { cache: "no-store" });
        if (!response.ok) throw new Error(String(response.status));
        const world = await response.json();
        $("#offline").hidden = true;
        if (!state.world) firstLook(world);
        since = world.revision;
        state.world = world;
        render();
      } catch (error) {
        $("#offline").hidden = false;
        since = null;
        await sleep(1500);
      }
    }
  }

  // -- controls --------------------------------------------------------------------------------

  for (const kind of ["group", "dm"]) {
    $(`#tab-${kind}`).addEventListener("click", () => showPane(kind));
  }
  narrow.addEventListener("change", render);
  // Mini Apps opening or closing, or the window's size, may give the chats room for two or
  // take it: the panes shown change with it.
  let wasOneChat = oneChat();
  new ResizeObserver(() => {
    if (oneChat() !== wasOneChat) {
      wasOneChat = oneChat();
      render();
    }
  }).observe($(".panes"));
  window.addEventListener("resize", fitPeople);
  $("#people").addEventListener("scroll", pointMore, { passive: true });
  $("#people-more").addEventListener("click", () => {
    const box = $("#people");
    const atEnd = box.scrollLeft + box.clientWidth >= box.scrollWidth - 1;
    const gap = parseFloat(getComputedStyle(box).columnGap) || 0;
    box.scrollBy({ left: atEnd ? -box.scrollWidth : box.clientWidth + gap, behavior: "smooth" });
  });

  document.addEventListener("click", (event) => {
    for (const pane of Object.values(panes)) {
      if (!pane.menu.hidden && !pane.menu.contains(event.target)
        && !event.target.closest("[data-role=menu-button]")) pane.closeMenu();
    }
  });

  const userDialog = $("#user-dialog");
  const userForm = $("#user-form");
  $("#add-user").addEventListener("click", () => {
    userForm.reset();
    $("#user-error").hidden = true;
    userDialog.showModal();
    userForm.elements.name.focus();
  });
  $("#user-cancel").addEventListener("click", () => userDialog.close());
  userForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = userForm.elements;
    try {
      const user = await post("/sandbox/api/users", {
        name: fields.name.value,
        language: fields.language.value,
        started: fields.started.checked,
        member: fields.member.checked,
      });
      userDialog.close();
      state.me = user.id;
      localStorage.setItem("cardroom.sandbox.me", String(user.id));
      toast(fields.member.checked ? `${user.name} joined the group.`
        : `${user.name} is not in the group.`);
    } catch (error) {
      const box = $("#user-error");
      box.textContent = error.message;
      box.hidden = false;
    }
  });
  $("#alert-ok").addEventListener("click", () => $("#alert-dialog").close());

  poll();
})();
