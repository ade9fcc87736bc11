// The table screen: the board as the seekers see it, whose turn, dice and announcements.
"use strict";

let board = null;

function render(data) {
  cues.follow("table", data);
  renderNotice(data.notice);
  $("guidance").textContent = data.guidance;
  const link = data.board.connected ? _("Board connected") : _("Board disconnected");
  $("board-link").textContent = link;
  $("board-link").className = "board-link " + (data.board.connected ? "ok" : "down");
  if (data.stage === "dealing") {
    clearGame(board);
    $("players").replaceChildren(...data.names.map((name, i) => el("div", {class: "player"},
      el("span", {class: "who"}, name), el("span", {}, data.ready[i] ? _("cards in") : _("entering cards\u2026")))));
    return;
  }
  const v = data.view;
  renderHeaderAnkhs(_("Round {n}", {n: v.rounds + 1}));
  renderCaught(data.caught);
  if (!board || board.options.figures !== v.positions.length) {
    board = new Board($("board"), {figures: v.positions.length});
  }
  board.update(v.maze, {figures: v.positions, mummy: v.mummy, named: messageCells(v.maze)});
  renderDice($("dice"), v);
  $("announced").textContent = v.announced ? _("{colour} announced {face}", {colour: _(cap(v.turn_colour)), face: v.announced === "arrow" ? _("the arrow") : v.announced}) : "";
  renderPlayers($("players"), data);
  renderLog($("log"), data.log);
}

fetch("/api/table/state", {credentials: "same-origin"}).then(r => r.json()).then(render);
live("table", render);
