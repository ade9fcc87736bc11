// Shared by the mummy, seeker, table and host pages: requests, the live stream, the
// board with its pieces, dice, players and announcements.  Plain JS, no build step.
// (`el` and the end screen, `showEnd`, are end.js's: loaded before this one.)
"use strict";

const FACE_TEXT = {"1": "1", "2": "2", "3": "3", "4": "4", "arrow": "\u2794", "mummy": "M"};
const DIR_ARROW = {north: "\u2191", east: "\u2192", south: "\u2193", west: "\u2190"};

function $(id) { return document.getElementById(id); }

// A treasure's title in the page's language ("red scarab").
function treasureTitle(t) {
  const title = `${t.colour} ${t.name}`;
  return _(title);
}

function cap(s) { return s ? s[0].toUpperCase() + s.slice(1) : s; }

// POST JSON; resolves to the reply, rejects with an Error carrying the player message.
const UNREACHABLE = _("The companion cannot be reached: check the phone is on its Wi-Fi. The page reconnects by itself.");

async function post(url, body) {
  let res;
  try {
    res = await fetch(url, {method: "POST", credentials: "same-origin",
                            headers: {"Content-Type": "application/json"},
                            body: JSON.stringify(body || {})});
  } catch (e) {
    throw new Error(UNREACHABLE);  // not "Failed to fetch": nothing reached the companion
  }
  let data = {};
  try { data = await res.json(); } catch (e) { /* not JSON */ }
  if (res.status === 403) { location.reload(); }
  if (!res.ok) {
    const err = new Error(data.error || _("The companion answered {status}.", {status: res.status}));
    err.data = data;
    err.status = res.status;
    throw err;
  }
  return data;
}

// A page far away (through a tunnel, web/remote.py) sends each command twice, a moment
// apart, with one id: the companion plays it once (web/once.py), and a piece lost on the
// way costs nothing where it would cost TCP's retransmission time.  At the table: once.
const COPY_AFTER_MS = 40;
function postTwice(url, body) {
  if (document.body.dataset.far !== "1") return post(url, body);
  const id = (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
    : Date.now().toString(36) + Math.random().toString(36).slice(2);
  const sent = Object.assign({id}, body);
  const copies = [post(url, sent), new Promise(r => setTimeout(r, COPY_AFTER_MS)).then(() => post(url, sent))];
  // The first answer that is not an error; both errors: the first one's words.
  return new Promise((resolve, reject) => {
    const errors = [];
    copies.forEach((copy, i) => copy.then(resolve, err => {
      errors[i] = err;
      if (errors.filter(Boolean).length === copies.length) reject(errors[0]);
    }));
  });
}

// Put back the parts a stream sends once (the server leaves out what did not change).
function keep(kept, data) {
  const parts = [[data.view, "view.maze", "maze"]];
  if (data.stage === "dealing") parts.push([data, "maze", "maze"], [data, "cards", "cards"]);
  for (const [holder, slot, key] of parts) {
    if (!holder) continue;
    if (key in holder) kept[slot] = holder[key];
    else if (slot in kept) holder[key] = kept[slot];
  }
  // The announcements come as what is new: keep the last `log_keep` of ours, add the rest.
  if ("log_keep" in data) {
    const old = kept.log || [];
    data.log = old.slice(old.length - data.log_keep).concat(data.log);
    delete data.log_keep;
  }
  if (data.log) kept.log = data.log;
}

// Render the seat's state now and after every change the server pushes.
function live(role, render) {
  const link = $("link");
  const setLink = ok => {
    if (!link) return;
    link.textContent = ok ? "\u25CF" : "\u25CB " + _("offline");
    link.className = "link " + (ok ? "ok" : "down");
    link.title = ok ? _("connected to the companion") : UNREACHABLE;
    const box = $("offline");
    if (box) { box.hidden = ok; box.textContent = ok ? "" : UNREACHABLE; }
  };
  // A page far away holds two channels and takes each message from whichever brings it
  // first (web/stamps.py): a piece lost on one costs TCP's retransmission time only when
  // the other lost its copy too.  At the table: one.
  const channels = document.body.dataset.far === "1" ? 2 : 1;
  const up = [];
  const sources = [];
  for (let i = 0; i < channels; i++) {
    const kept = {};  // the maze and the card list come in a channel's first message only
    up.push(false);
    const linked = ok => { up[i] = ok; setLink(up.some(Boolean)); };
    sources.push(liveStream(`/api/${role}/stream`, {
      onopen: () => linked(true),
      onmessage: ev => { linked(true); take(kept, JSON.parse(ev.data), ev.lastEventId); },
      onerror: () => linked(false),  // reconnects by itself (live.js)
      onclosed: reloadIfRefused(`/api/${role}/state`),
    }));
  }
  const source = {close() { sources.forEach(s => s.close()); }};
  let shown = null;  // [run, stamp] of the message rendered last
  const newer = id => {
    const m = /^(\w+)-(\d+)$/.exec(id || "");
    if (!m) return true;
    const [run, stamp] = [m[1], Number(m[2])];
    if (shown && shown[0] === run && stamp <= shown[1]) return false;
    shown = [run, stamp];
    return true;
  };
  const take = (kept, data, id) => {
    if (data.stale) { source.close(); location.reload(); return; }
    keep(kept, data);
    if (channels > 1 && !newer(id)) return;
    message(data);
  };
  const message = data => {
    if (typeof narrator !== "undefined") narrator.follow(data.log);  // narrator.js, if the page has it
    if (typeof narrator !== "undefined") narrator.news(data.crossings);
    renderCrossings(data.crossings);
    renderFar(data.remote);
    renderCards(data.cards);
    if (typeof access !== "undefined") access.follow(data.log);  // access.js: the reader's log
    if (window.followBoard) followBoard(data.active_game);  // the menu's offer (menu.js)
    render(data);
    showEndHere(data.summary);
  };
  return source;
}

// The end screen on a seat's page; on the host's own device (the owner who hosts and
// plays the mummy on one phone) with the host's buttons: Rematch, New game, Past games.
const HOST_DEVICE = Boolean(document.querySelector("header.bar[data-host]"));
function showEndHere(summary) {
  showEnd(summary, HOST_DEVICE && summary ? () => hostEndButtons(summary) : null);
}

function hostEndButtons(summary) {
  const game = Number((summary.replay || "").split("/").pop()) || null;  // "/replay/<id>"
  return [
    el("button", {type: "button", id: "rematch", class: "primary", onclick: () => {
      showError("");
      post("/api/host/rematch", {replaces: game}).catch(err => showError(err.message));
    }}, _("Rematch (same seats)")),
    el("a", {class: "button", id: "new-game", href: "/host#setup"}, _("New game")),
    el("a", {class: "button", href: "/host/games"}, _("Past games")),
  ];
}

function showError(message) {
  const box = $("error");
  if (box) box.textContent = message || "";
}

// Send a command; the reply's state re-renders the page, an error is shown in words.
function command(role, body, render) {
  showError("");
  return postTwice(`/api/${role}/command`, body)
    .then(data => { render(data.state); showEndHere(data.state && data.state.summary); })
    .catch(err => {
      showError(err.message);
      if (err.data && err.data.state) render(err.data.state);
    });
}

// -- the board ----------------------------------------------------------------------

// A maze drawn once; `update` redraws the pieces, lit cells and rings on top.
function Board(container, options) {
  this.container = container;
  this.options = options || {};
  this.drawn = null;
  this.layer = null;
}

Board.prototype.update = function (maze, state) {
  if (!this.drawn) {
    const figures = this.options.figures || 1;
    this.drawn = drawMaze(this.container, maze, {camp_slots: figures, sarcophagus_slots: figures});
    this.width = maze.width;
    this.cellCount = maze.width * maze.height;
    this.drawn.cells.forEach((rect, cell) => {
      rect.addEventListener("click", () => this.options.onCell && this.options.onCell(cell));
    });
    if (this.options.onCell) zoomMaze(this.container, this.drawn.svg);
  }
  if (this.options.onCell && state.mummy !== this.shownMummy) {
    // The mummy moved: its part of a zoomed maze comes into view.
    this.shownMummy = state.mummy;
    const at = state.mummy < this.cellCount ? this.drawn.cells[state.mummy] : null;
    requestAnimationFrame(() => showCell(this.container, at));
  }
  if (this.layer) this.layer.remove();
  if (this.litLayer) this.litLayer.remove();
  const svg = this.drawn.svg;
  const layer = svgEl("g", {class: "pieces"});
  // Lit cells go under the walls and treasures: insert the layer right after the cells.
  const lit = svgEl("g", {class: "lit"});
  for (const cell of state.lit || []) {
    const r = this.drawn.cells[cell];
    svgEl("rect", {x: r.getAttribute("x"), y: r.getAttribute("y"), width: CELL, height: CELL,
                   class: state.litClass || "hint", "pointer-events": "none"}, lit);
  }
  svg.insertBefore(lit, this.drawn.cells[this.drawn.cells.length - 1].nextSibling);
  for (const cell of state.named || []) {
    const r = this.drawn.cells[cell];
    if (r) svgEl("rect", {x: +r.getAttribute("x") + 2, y: +r.getAttribute("y") + 2, width: CELL - 4,
                          height: CELL - 4, rx: 4, class: "named", "data-cell": cell,
                          "pointer-events": "none"}, layer);
  }
  for (const cell of state.rings || []) {
    const [x, y] = this.centre(cell);
    svgEl("circle", {cx: x, cy: y, r: 11, class: "ring", "pointer-events": "none"}, layer);
  }
  for (const p of state.figures || []) {
    const at = this.place(p.node, p.figure);
    if (!at) continue;
    const g = svgEl("g", {class: "piece", "data-colour": p.colour, "data-node": p.node,
                          "pointer-events": "none"}, layer);
    shapeEl(p.colour, at[0], at[1], 13, {fill: COLOURS[p.colour], class: "figure-dot"}, g);
    svgEl("text", {x: at[0], y: at[1] + 5, class: "piece-letter"}, g).textContent = p.colour[0].toUpperCase();
  }
  if (state.mummy != null) {
    const at = this.place(state.mummy, -1);
    if (at) {
      const g = svgEl("g", {class: "piece mummy-piece", "data-node": state.mummy, "pointer-events": "none"}, layer);
      svgEl("rect", {x: at[0] - 14, y: at[1] - 14, width: 28, height: 28, rx: 5, class: "mummy"}, g);
      svgEl("text", {x: at[0], y: at[1] + 6, class: "piece-letter dark"}, g).textContent = "M";
    }
  }
  svg.appendChild(layer);
  this.layer = layer;
  this.litLayer = lit;
  if (typeof access !== "undefined") access.followBoard(this, maze, state);  // the keyboard grid
};

// Ring one cell for a moment (a step button under the finger or the mouse).
Board.prototype.mark = function (cell) {
  if (this.marked) this.marked.remove();
  this.marked = null;
  const r = cell == null || !this.drawn ? null : this.drawn.cells[cell];
  if (!r) return;
  this.marked = svgEl("rect", {x: +r.getAttribute("x") + 2, y: +r.getAttribute("y") + 2, width: CELL - 4,
                               height: CELL - 4, rx: 4, class: "named pointed", "data-cell": cell,
                               "pointer-events": "none"}, this.drawn.svg);
};

// The cells a message names ("put Red back on D11"), to ring them on the maze.
function namedCells(texts, width, height) {
  const cells = new Set();
  for (const text of texts) {
    for (const m of String(text || "").matchAll(/\b([A-Z])(\d{1,2})\b/g)) {
      const col = m[1].charCodeAt(0) - 65, row = parseInt(m[2], 10) - 1;
      if (col < width && row >= 0 && row < height) cells.add(row * width + col);
    }
  }
  return [...cells];
}

// What a page's messages name now: guidance, the error, the take-back notice, a catch.
function messageCells(maze) {
  const texts = ["guidance", "error", "notice", "caught"].map(id => $(id) && !$(id).hidden ? $(id).textContent : "");
  return namedCells(texts, maze.width, maze.height);
}

// A new game: nothing of the old one stays on the page (dice, announcements, pieces).
function clearGame(board) {
  for (const id of ["dice", "announced", "log", "caught", "dice-out", "steps", "actions", "pad", "hand", "aid", "takeback"]) {
    const box = $(id);
    if (box) box.replaceChildren();
  }
  if (board && board.layer) { board.layer.remove(); board.layer = null; }
  if (board && board.litLayer) { board.litLayer.remove(); board.litLayer = null; }
  if (board) board.mark(null);
}

Board.prototype.centre = function (cell) {
  return [(cell % this.width) * CELL + CELL / 2, Math.floor(cell / this.width) * CELL + CELL / 2];
};

// Where a node is drawn: a cell, or a slot of the start field / the sarcophagus.
Board.prototype.place = function (node, figure) {
  if (node < 0) return null;
  if (node < this.cellCount) return this.centre(node);
  const pads = node === this.cellCount ? this.drawn.pads.camp : this.drawn.pads.sarcophagus;
  if (!pads.length) return null;
  const pad = figure < 0 ? pads[Math.floor((pads.length - 1) / 2)] : pads[Math.min(figure, pads.length - 1)];
  const x = +pad.getAttribute("x") + (+pad.getAttribute("width")) / 2;
  const y = +pad.getAttribute("y") + (+pad.getAttribute("height")) / 2;
  return [figure < 0 && pads.length % 2 === 0 ? x + CELL / 2 : x, y];
};

// -- dice, players, announcements ---------------------------------------------------

// A face's name for its title, in the page's language (a number is its own name).
const FACE_TITLE = {"arrow": _("arrow"), "mummy": _("mummy")};

function dieFace(label, attrs) {
  return el("span", Object.assign({class: `die face-${label}`, title: FACE_TITLE[label] || label}, attrs || {}),
            FACE_TEXT[label] || label);
}

// The white dice showing the mummy face, set aside, then the faces of the last roll.
function renderDice(box, view) {
  box.replaceChildren();
  if (view.dice_out) {
    box.append(el("span", {class: "dice-label"}, _("Set aside:")));
    for (let i = 0; i < view.dice_out; i++) box.append(dieFace("mummy", {class: "die face-mummy out"}));
  }
  if (view.roll && view.roll.length) {
    box.append(el("span", {class: "dice-label"}, _("Rolled:")));
    for (const f of view.roll) box.append(dieFace(f));
  }
  if (!box.children.length) box.append(el("span", {class: "muted"}, _("No dice on the table.")));
}

const CARD_COLOURS = ["red", "blue", "white", "green", "yellow"];

function colourDots(counts) {
  return CARD_COLOURS.filter(c => counts[c]).map(c => [c, counts[c]]).flatMap(([colour, n]) =>
    Array.from({length: n}, () => el("span", {class: "dot", "data-shape": SHAPES[colour], style: `--c: ${COLOURS[colour]}`,
                                              title: _("{colour} card", {colour: _(cap(colour))})})));
}

// Every seeker: colour, ankhs, the colours of the cards still held, the cards played.
function renderPlayers(box, payload) {
  const view = payload.view;
  box.replaceChildren();
  view.seekers.forEach((s, i) => {
    const turn = view.turn != null && s.figures.includes(view.turn_colour);
    box.append(el("div", {class: "player" + (turn ? " turn" : "") + (s.out ? " out" : "")},
      el("span", {class: "who"}, s.figures.map(c => el("span", {class: "dot big", "data-shape": SHAPES[c], style: `--c: ${COLOURS[c]}`})),
         " ", payload.names[i]),
      el("span", {class: "ankhs"}, s.out ? _("out") : `\u2625 ${s.ankhs}`),
      el("span", {class: "left"}, colourDots(s.card_colours), " " + _("{n} left", {n: s.cards_left})),
      s.played.length ? el("span", {class: "played"}, _("Played: {cards}", {cards: s.played.map(t => treasureTitle(t)).join(", ")})) : null));
  });
  box.append(el("div", {class: "player mummy-row" + (view.turn == null && !view.winner ? " turn" : "")},
    el("span", {class: "who"}, el("span", {class: "dot big", style: "--c: var(--accent)"}),
       " " + (payload.options && payload.options.computer ? _("Mummy (the computer, {level})", {level: _(payload.options.computer)}) : _("Mummy"))),
    el("span", {class: "ankhs"}, "\u2625 " + _("{n} of {needs}", {n: view.mummy_ankhs, needs: view.mummy_needs}))));
}

function renderLog(box, log) {
  box.replaceChildren(...log.slice().reverse().map(e =>
    el("li", {class: `ev ev-${e.kind}`, "data-kind": e.kind}, e.text)));
  renderLast(log);
}

// The "now" bar's last announcement: this turn's announced die if there is one (what
// the table heard), else the newest entry.
function renderLast(log) {
  const box = $("last");
  if (!box) return;
  let shown = log.length ? log[log.length - 1] : null;
  for (let i = log.length - 1; i >= 0; i--) {
    if (log[i].kind === "announced") { shown = log[i]; break; }
    if (log[i].kind === "turn_started" || log[i].kind === "mummy_turn_started") break;
  }
  box.textContent = shown ? shown.text : "";
  box.dataset.kind = shown ? shown.kind : "";
}

function renderCaught(caught) {
  const box = $("caught");
  box.hidden = !caught || !caught.length;
  box.textContent = (caught || []).join(" ");
}

// A first game: what is new for this seat, explained (the server sends a lesson once,
// while its situation lasts, and only to the seat whose situation it is); the table
// screen's come with the player each speaks to ({who, text}).
function renderLessons(lessons) {
  const box = $("lessons");
  if (!box) return;
  const list = lessons || [];
  box.hidden = !list.length;
  box.replaceChildren(...(list.length ? [el("h2", {class: "lessons-title"}, _("First game"))] : []),
                      ...list.map(l => typeof l === "string" ? el("p", {class: "lesson"}, l)
                        : el("p", {class: "lesson"}, el("strong", {}, l.who + ": "), l.text)));
}

function renderHeaderAnkhs(text) {
  const box = $("ankhs");
  if (box) box.textContent = text;
}

function button(label, onclick, attrs) {
  return el("button", Object.assign({type: "button", onclick}, attrs || {}), label);
}

// -- take-backs ------------------------------------------------------------------------

// "Blue took back: moved to D11" on every page for a few seconds, once per take-back.
// What the host allowed in this game (a phone both saw the seekers and held the mummy's
// seat, the mummy's code shown again): in words naming no cell, on every seat's page.
function renderCrossings(texts) {
  const list = $("crossings");
  if (!list || !Array.isArray(texts)) return;
  list.replaceChildren(...texts.map(text => Object.assign(document.createElement("li"), {textContent: text})));
  list.hidden = !texts.length;
}

// Where the mummy's player far away is (a remote seat): on every seat's page, and said
// by the narrator when it changes (dropped, offline, back).
let farSeen;
function renderFar(far) {
  const box = $("far");
  if (!box || far === undefined) return;
  const state = far ? far.state : null;
  box.hidden = !far;
  box.textContent = far ? far.text : "";
  box.dataset.state = state || "";
  if (farSeen !== undefined && state !== farSeen && far && typeof narrator !== "undefined" && narrator.on()) narrator.say(far.text);
  farSeen = state;
}

// After the host undid an end: the cards it showed are known to the whole table (or were
// dealt again).  It stays on the page as long as it holds; the narrator says the log's entry.
function renderCards(text) {
  const box = $("cards-notice");
  if (!box || text === undefined) return;
  box.textContent = text || "";
  box.hidden = !text;
}

let noticeSeen = null;
let noticeTimer = null;
function renderNotice(notice) {
  const box = $("notice");
  if (!box || !notice || notice.id === noticeSeen) return;
  noticeSeen = notice.id;
  box.textContent = notice.text;
  box.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

// The seat's own last action, offered for taking back after a confirmation naming it;
// the take-back sends the key of the action confirmed (`key`), so nothing else is taken.
function renderTakeback(role, what, render, key) {
  const box = $("takeback");
  if (!box) return;
  box.hidden = !what;
  if (!what) { box.replaceChildren(); return; }
  box.replaceChildren(button(_("Take back: {what}", {what}), () => {
    if (!confirm(_("Take back your last action: {what}?", {what}))) return;
    takeBack(role, key, render);
  }, {class: "secondary", id: "takeback-button"}));
}

function takeBack(role, key, render) {
  showError("");
  post(`/api/${role}/takeback`, {action: key}).then(data => render(data.state)).catch(err => {
    const state = err.data && err.data.state;
    if (state) render(state);
    // Another action of this seat is the last one now: the server names it; ask again.
    if (err.status === 409 && state && state.takeback_key) {
      if (confirm(err.message)) takeBack(role, state.takeback_key, render);
      return;
    }
    showError(err.message);
  });
}

// Forms that ask first ("Leave this seat?"): the question is in data-confirm.
document.addEventListener("submit", ev => {
  const question = ev.target.dataset && ev.target.dataset.confirm;
  if (question && !confirm(question)) ev.preventDefault();
});
