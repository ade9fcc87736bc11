// The table screen: the board as the seekers see it, whose turn, dice and announcements.
// The watching seat's page (/watch) is drawn by the same script from its own payload, the
// mummy's view: no figures on the maze; while another game holds the board, that game's
// page fills this one.
"use strict";

const ROLE = $("watch") ? "watch" : "table";
const GAME_PAGES = {crypt: "/crypt", lootnrun: "/lootnrun"};
const GAME_NAMES = {crypt: _("Into the Crypt"), lootnrun: _("Loot N Run"), boardcheck: _("the board check")};
let board = null;

// The watching seat follows the game that holds the board.
function follow(active) {
  const frame = $("other-game");
  if (!frame) return false;
  const page = active && active !== "mummy" ? GAME_PAGES[active] : null;
  $("maze-game").hidden = $("maze-side").hidden = Boolean(page);
  frame.hidden = !page;
  $("elsewhere").hidden = !page;
  if (page) {
    $("elsewhere").textContent = _("The board plays {game}: the maze game waits.", {game: GAME_NAMES[active]});
    if (frame.dataset.page !== page) { frame.dataset.page = page; frame.src = page; }
  } else if (frame.dataset.page) {
    delete frame.dataset.page;
    frame.removeAttribute("src");
  }
  return Boolean(page);
}

function render(data) {
  if (follow(data.active_game)) return;
  cues.follow("table", data);
  renderNotice(data.notice);
  $("guidance").textContent = data.guidance;
  if ($("absent")) {  // the seeker whose turn it is has no phone (the table screen says so)
    $("absent").hidden = !data.absent;
    $("absent").textContent = data.absent || "";
  }
  const link = data.board.connected ? _("Board connected") : _("Board disconnected");
  $("board-link").textContent = link;
  $("board-link").className = "board-link " + (data.board.connected ? "ok" : "down");
  if (data.stage === "dealing") {
    clearGame(board);
    $("players").replaceChildren(...data.names.map((name, i) => el("div", {class: "player"},
      el("span", {class: "who"}, name), el("span", {}, data.ready[i] ? _("cards in") : _("entering cards\u2026")))));
    return;
  }
  renderLessons((data.lessons || []).map(l => ({who: l.who, text: l.text})));
  const v = data.view;
  renderHeaderAnkhs(_("Round {n}", {n: v.rounds + 1}));
  renderCaught(data.caught);
  const figures = v.positions || [];  // the watching seat's view has none
  const count = v.seekers.reduce((n, s) => n + s.figures.length, 0);
  if (!board || board.options.figures !== count) {
    board = new Board($("board"), {figures: count});
  }
  board.update(v.maze, {figures, mummy: v.mummy, named: messageCells(v.maze)});
  renderDice($("dice"), v);
  // "the arrow" is a word with forms by case: the translation picks its own ({face:acc}).
  $("announced").textContent = v.announced ? _("{colour} announced {face}", {colour: _(cap(v.turn_colour)), face: v.announced === "arrow" ? "the arrow" : v.announced}) : "";
  renderPlayers($("players"), data);
  renderLog($("log"), data.log);
}

fetch(`/api/${ROLE}/state`, {credentials: "same-origin"}).then(r => r.json()).then(render);
live(ROLE, render);
