/*
 * A stand-in for Telegram's own https://telegram.org/js/telegram-web-app.js, for the sandbox:
 * the page runs outside Telegram, so this gives it the same window.Telegram.WebApp.
 *
 * Telegram opens a Mini App with its launch parameters in the address's fragment
 * (#tgWebAppData=…&tgWebAppThemeParams=…); like Telegram's script, initData is the raw
 * tgWebAppData value, URL-decoded once (so the bot can check its signature), and the theme's
 * colours become --tg-theme-* CSS variables on the document. Haptics do nothing here; they
 * are recorded on window.__haptics so that tests can see them.
 */
(() => {
  "use strict";

  // Exactly Telegram's decoding: "+" is a space, a malformed escape leaves the text as is.
  const urlSafeDecode = (text) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, "%20"));
    } catch (error) {
      return text;
    }
  };

  const parseQuery = (query) => {
    const params = {};
    if (!query) return params;
    for (const part of query.split("&")) {
      const pair = part.split("=");
      params[urlSafeDecode(pair[0])] = pair[1] == null ? null : urlSafeDecode(pair[1]);
    }
    return params;
  };

  const parseHash = (hash) => {
    let text = hash.replace(/^#/, "");
    const question = text.indexOf("?");
    if (question >= 0) text = text.slice(question + 1);
    return text.includes("=") ? parseQuery(text) : {};
  };

  const launch = parseHash(window.location.hash);
  const initData = launch.tgWebAppData || "";
  const initDataUnsafe = parseQuery(initData);
  for (const [key, value] of Object.entries(initDataUnsafe)) {
    if (typeof value !== "string") continue;
    const json =
      (value.startsWith("{") && value.endsWith("}")) ||
      (value.startsWith("[") && value.endsWith("]"));
    if (json) {
      try {
        initDataUnsafe[key] = JSON.parse(value);
      } catch (error) {
        // Left as the text it is, as Telegram's script does.
      }
    }
  }

  const LIGHT = {
    bg_color: "#ffffff",
    text_color: "#000000",
    hint_color: "#999999",
    link_color: "#2481cc",
    button_color: "#2481cc",
    button_text_color: "#ffffff",
    secondary_bg_color: "#efeff3",
  };
  let themeParams = { ...LIGHT };
  if (launch.tgWebAppThemeParams) {
    try {
      themeParams = { ...LIGHT, ...JSON.parse(launch.tgWebAppThemeParams) };
    } catch (error) {
      themeParams = { ...LIGHT };
    }
  }

  // Dark or light from the background's brightness, as Telegram's script decides it.
  const schemeOf = (colour) => {
    const hex = /^#?([0-9a-f]{6})$/i.exec(String(colour || ""));
    if (!hex) return "light";
    const n = parseInt(hex[1], 16);
    const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    return Math.sqrt(0.299 * r * r + 0.587 * g * g + 0.114 * b * b) < 120 ? "dark" : "light";
  };
  const colorScheme = schemeOf(themeParams.bg_color);

  const root = document.documentElement.style;
  for (const [key, value] of Object.entries(themeParams)) {
    root.setProperty(`--tg-theme-${key.replace(/_/g, "-")}`, String(value));
  }
  root.setProperty("--tg-color-scheme", colorScheme);
  const setViewport = () => {
    root.setProperty("--tg-viewport-height", `${window.innerHeight}px`);
    root.setProperty("--tg-viewport-stable-height", `${window.innerHeight}px`);
  };
  setViewport();
  window.addEventListener("resize", setViewport);

  window.__haptics = [];
  const haptic = (kind, style) => {
    window.__haptics.push({ kind, style });
    return HapticFeedback;
  };
  const HapticFeedback = {
    impactOccurred: (style) => haptic("impact", style),
    notificationOccurred: (type) => haptic("notification", type),
    selectionChanged: () => haptic("selection", null),
  };

  const noop = () => {};
  window.Telegram = window.Telegram || {};
  window.Telegram.WebApp = {
    initData,
    initDataUnsafe,
    version: "7.0",
    platform: "unknown",
    themeParams,
    colorScheme,
    isExpanded: true,
    viewportHeight: window.innerHeight,
    viewportStableHeight: window.innerHeight,
    HapticFeedback,
    isVersionAtLeast: (version) => parseFloat(version) <= 7.0,
    ready: noop,
    expand: noop,
    close: () => window.close(),
    onEvent: noop,
    offEvent: noop,
  };
})();
