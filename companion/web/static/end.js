// The end screen of every game (the maze, Loot N Run, the crypt), and `el`, the small
// element maker the pages share.  Loaded before play.js on the maze's pages, and on
// Loot N Run's and the crypt's.  Plain JS, no build step.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v != null) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c != null) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// The end screen at the top of the page once the game is over: the winner and the summary
// the companion sends only then (the maze: the mummy's path and every seeker's cards; Loot
// N Run: every player's points and the cards revealed at the end; the crypt: points,
// locks and cubes).  `actions`: the host's buttons (a function making them: rematch, new
// game, past games, the undo of the winning action), or none on a seat's page.  Drawn
// again only when the summary changes, and gone once a new game starts.
let endShown = null;
function showEnd(summary, actions) {
  let box = document.getElementById("end");
  const key = summary ? JSON.stringify(summary) + (actions ? "+" : "") : null;
  if (key === endShown && (!summary || box)) return;
  endShown = key;
  if (!summary) { if (box) box.remove(); return; }
  if (!box) {
    box = el("section", {id: "end", class: "end", "aria-labelledby": "end-title"});
    const main = document.querySelector("main");
    main.prepend(box);
  }
  // Each player's lines: the summary's own (Loot N Run, the crypt), or a seeker's cards.
  const details = s => s.details || [_("Cards played:") + " " + (s.played.join(", ") || "\u2013"),
                                     _("Cards left:") + " " + (s.left.join(", ") || "\u2013")];
  // Loot N Run's and the crypt's players come by rank, each with their place ("1.").
  const players = (summary.seekers || summary.players).map(s => el("li", {class: s.winner ? "won" : null},
    s.place ? el("span", {class: "place"}, s.place + ". ") : null,
    el("strong", {}, s.name), s.winner ? " \u2605" : "",
    details(s).map(line => el("div", {class: "small"}, line))));
  box.replaceChildren(...[
    el("h2", {id: "end-title"}, _("Game over")),
    el("p", {class: "winner", role: "status"}, summary.winner),
    el("ul", {class: "end-lines"}, summary.lines.map(line => el("li", {}, line))),
    summary.path ? el("p", {class: "small"}, summary.path_title, " ", el("span", {class: "path"}, summary.path.join(" \u2192 "))) : null,
    el("ul", {class: "end-seekers"}, players),
    // What the host allowed in this game: a phone that saw the seekers and held the mummy's seat.
    summary.crossings && summary.crossings.length ? el("ul", {class: "end-crossings", "aria-label": _("What the host allowed in this game")}, summary.crossings.map(line => el("li", {}, line))) : null,
    // The replay: the whole game again, the mummy's path revealed, any seat's view.
    summary.replay ? el("p", {}, el("a", {class: "button", href: summary.replay, id: "end-replay"}, _("Replay this game"))) : null,
    actions ? el("div", {class: "actions"}, actions()) : null].filter(Boolean));
}
