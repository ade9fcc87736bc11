// One table across the games (templates/_menu.html): a page whose game does not hold the
// board names the game that does, with one tap to go there, and the way back to the
// maze when the board returns.  Each page's script calls followBoard with the game that
// holds the board (its stream says so).
"use strict";

const MENU_KEYS = {mummy: "maze", lootnrun: "lootnrun", crypt: "crypt"};

function followBoard(active) {
  const box = document.getElementById("board-moved");
  if (!box || !active) return;
  const here = box.dataset.here;
  const key = MENU_KEYS[active];
  const link = key ? document.querySelector(`.table-menu a[data-menu="${key}"]`) : null;
  // The watching seat shows the game on the board inside its own page (table.js).
  const inline = here === "maze" && document.getElementById("other-game");
  const show = Boolean(link) && key !== here && !inline && (here === "maze" || here === "lootnrun" || here === "crypt");
  box.hidden = !show;
  if (!show) return;
  const back = key === "maze";
  box.querySelector("span").textContent = back
    ? _("The board is back with the maze.")
    : _("The board plays {game} now.", {game: link.textContent});
  const go = box.querySelector("a");
  go.href = link.getAttribute("href");
  go.textContent = back ? _("Back to the maze") : _("Open {game}", {game: link.textContent});
}

// A view read before the one shown (an answer that the live stream overtook): older by
// its game's version, or by the board's handovers, within one run of the companion
// (a restart counts both anew).  Taking it would undo news the page has shown.
function olderView(shown, next) {
  const a = shown && shown.board, b = next.board;
  if (!a || !b || a.run !== b.run) return false;
  if (b.handover < a.handover) return true;
  return next.game_id === shown.game_id && next.version < shown.version;
}
