/* Starts the page once the shell and every game's renderer are loaded (scripts run in order). */
window.Cardroom.start();
