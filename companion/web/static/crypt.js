// Into the Crypt: draws the board and the score from the view, sends taps as commands.
"use strict";

const FILES = "abcdefgh";
const COLOURS = {red: "#e23b2e", blue: "#2f6fe0", green: "#2faa3f", yellow: "#f2c200",
                 violet: "#8e4de0", turquoise: "#17b6b6", orange: "#f07a10"};
const PHASES = {placing_cubes: _("placing cubes"), placing_meeples: _("placing meeples"),
                moving: _("moving"), game_over: _("game over")};
const $ = id => document.getElementById(id);

let view = null;
const squares = {};

function cap(s) { return s ? s.charAt(0).toUpperCase() + s.slice(1) : s; }
function colourOf(name) { return COLOURS[name] || "#e0a84a"; }
function playerName(v, p) {
  const colour = _(cap(v.players[p].colour));
  return v.computer === p ? _("{colour} (computer)", {colour}) : colour;
}

async function api(path, body) {
  const init = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify(body)};
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    showError(_("The companion cannot be reached: check the phone is on its Wi-Fi. The page reconnects by itself."));
    return null;
  }
  const answered = _("The companion answered {status}.", {status: res.status});
  const data = await res.json().catch(() => ({error: answered}));
  if (!res.ok) { showError(data.error || answered); return null; }
  showError("");
  render(data);
  return data;
}

function showError(text) {
  const el = $("error");
  el.textContent = text;
  el.hidden = !text;
}

function buildBoard() {
  const board = $("board");
  for (let rank = 8; rank >= 1; rank--) {
    // A row per rank (the grid's rows for a screen reader; laid out by the board's grid).
    const row = document.createElement("div");
    row.className = "rank-row";
    row.setAttribute("role", "row");
    board.appendChild(row);
    for (let f = 0; f < 8; f++) {
      const name = FILES[f] + rank;
      const el = document.createElement("button");
      el.type = "button";
      el.className = "sq";
      el.dataset.square = name;
      el.setAttribute("role", "gridcell");
      el.addEventListener("click", () => tap(name));
      // The edge's rank and file are drawn by the style sheet (never part of the square's
      // spoken name, which says the whole square: "a8, ...").
      if (f === 0) el.dataset.rank = rank;
      if (rank === 1) el.dataset.file = FILES[f];
      const piece = document.createElement("span");
      piece.className = "piece";
      el.appendChild(piece);
      row.appendChild(el);
      squares[name] = el;
    }
  }
}

function tap(name) {
  // Another game holds the board: the crypt says so and takes no tap (nothing to refuse).
  if (!view || view.over || !view.board.plays_crypt) return;
  const hint = view.hints.find(h => h.square === name || h.corner === name);
  if (hint) { api("/crypt/api/command", hint); return; }
  if (view.phase === "placing_cubes") {
    api("/crypt/api/command", {kind: "place_cube", square: name});  // the reason comes back
  } else if (view.phase === "placing_meeples") {
    api("/crypt/api/command", {kind: "place_meeple", corner: name});
  } else if (view.phase === "moving") {
    showError(_("Move the meeple on the board: lift it and put it down on its new space."));
  }
}

let shownPly = -1;
function render(v) {
  if (olderView(view, v)) return;  // an answer the stream overtook (menu.js)
  const moved = v.ply !== shownPly || v.game_id !== (view && view.game_id);
  const boardChanged = Boolean(view) && view.board.plays_crypt !== v.board.plays_crypt;
  if (moved || boardChanged) showError("");  // the game or the board moved on
  shownPly = v.ply;
  view = v;
  const b = v.board;
  const cubes = {}, meeples = {};
  v.players.forEach((p, i) => {
    p.cubes_on_board.forEach(s => { cubes[s] = p.colour; });
    if (p.meeple) meeples[p.meeple] = i;
  });
  const locks = new Set(v.locks), crypt = new Set(v.layout.crypt), green = new Set(v.layout.green);
  // While the board disagrees with the game, only what to put right is marked.
  const hints = b.matches && b.plays_crypt ? v.hints : [];
  const hintSquares = new Set(hints.map(h => h.square || h.corner || h.to).filter(Boolean));
  b.hints.forEach(s => hintSquares.add(s));
  const marks = {lifted: new Set(b.lifted), error: new Set(b.errors), missing: new Set(b.missing),
                 unexpected: new Set(b.unexpected)};
  for (const [name, el] of Object.entries(squares)) {
    const piece = el.querySelector(".piece");
    let label = name;
    piece.className = "piece";
    piece.style.background = "";
    const placeable = v.phase === "placing_cubes";
    const isTouch = b.touch === name;
    if (meeples[name] !== undefined) {
      const p = meeples[name];
      piece.className = "piece meeple";
      piece.style.background = colourOf(v.players[p].colour);
      label += ", " + _("{colour} meeple", {colour: _(cap(v.players[p].colour))});
    } else if (cubes[name] || isTouch) {
      const owner = cubes[name] || v.players[(v.to_move + 1) % v.players.length].colour;
      piece.className = "piece cube";
      piece.style.background = colourOf(owner);
      label += ", " + _("{colour} cube", {colour: _(cap(owner))});
    } else if (locks.has(name)) {
      piece.className = "piece lock";
      label += ", " + _("lock");
    }
    el.classList.toggle("green", green.has(name));
    el.classList.toggle("crypt", crypt.has(name));
    el.classList.toggle("touch", isTouch);
    el.classList.toggle("hint", hintSquares.has(name));
    el.classList.toggle("has-piece", piece.className !== "piece");
    for (const [cls, set] of Object.entries(marks)) el.classList.toggle(cls, set.has(name));
    if (hintSquares.has(name)) label += ", " + (placeable ? _("a cube may go here") : _("possible"));
    el.setAttribute("aria-label", label);
    el.disabled = !b.plays_crypt || v.over;  // nothing to tap while another game has the board
  }
  renderScores(v);
  renderTurn(v);
  $("message").textContent = b.message || "";
  // The maze's figures still on the board: a notice of its own, gone once they are off.
  $("maze-notice").hidden = !b.maze_notice;
  $("maze-notice").textContent = b.maze_notice || "";
  const canEnter = hints.some(h => h.kind === "enter_chamber");
  const canPass = hints.some(h => h.kind === "pass");
  $("enter").hidden = !canEnter;
  $("pass").hidden = !canPass;
  $("undo").disabled = !v.can_undo;
  $("undo").hidden = v.over;  // after the end: the host's undo is on the end screen
  const cm = $("computer-move");
  cm.hidden = !v.last_computer;
  cm.textContent = v.last_computer ? _("Computer: {move}", {move: v.last_computer}) : "";
  const hist = $("history");
  // The move numbers are part of each line (a list's own numbers overflow the margin).
  hist.replaceChildren(...v.history.slice().reverse().slice(0, 5).map((e, i) => {
    const li = document.createElement("li");
    const ply = document.createElement("span");
    ply.className = "ply";
    ply.textContent = `${v.ply - i}.`;
    li.append(ply, " " + e.text);
    return li;
  }));
  renderBoardUse(b);
  fillSetup(v);
  showEnd(v.summary, b.host ? endButtons : null);
}

function renderScores(v) {
  const el = $("scores");
  el.replaceChildren(...v.players.map((p, i) => {
    const div = document.createElement("div");
    div.className = "player";
    if (!v.over && v.to_move === i) div.classList.add("to-move");
    if (v.winners.includes(i)) div.classList.add("winner");
    const placing = v.players.find(q => q.placed_by === i);
    const inHand = placing ? placing.cubes_in_hand : 0, left = p.cubes_on_board.length;
    const detail = v.phase === "placing_cubes"
      ? (inHand === 1 ? _("1 cube to place") : _("{n} cubes to place", {n: inHand}))
      : (left === 1 ? _("1 cube left") : _("{n} cubes left", {n: left}))
        + (p.locks ? " · " + (p.locks === 1 ? _("1 lock") : _("{n} locks", {n: p.locks})) : "")
        + (p.white_meeple ? " · " + _("white meeple") : "");
    div.innerHTML = `<span class="dot"></span><span class="who"></span><span class="points"></span>`;
    div.querySelector(".dot").style.background = colourOf(p.colour);
    const who = div.querySelector(".who");
    who.textContent = playerName(v, i);
    const small = document.createElement("small");
    small.textContent = detail;
    who.appendChild(small);
    div.querySelector(".points").textContent = p.score;
    div.setAttribute("aria-label", _("{player}: {n} points, {detail}", {player: playerName(v, i), n: p.score, detail}));
    return div;
  }));
}

function renderTurn(v) {
  const el = $("turn");
  if (v.over) {  // who won is the end screen's to say, once
    el.replaceChildren(_("Game over"));
    return;
  }
  const strong = document.createElement("strong");
  strong.textContent = playerName(v, v.to_move);
  el.replaceChildren(strong, " " + _("to play · {phase} · locks left: {n}", {phase: PHASES[v.phase], n: v.locks_left}));
}

// The end screen (end.js, as the maze's): the winner and the summary above everything, on
// every page; the host's buttons under it.  The same seats play again in one tap: the same
// colours, the computer in the same seat.
function endButtons() {
  const v = view, last = v.history[v.history.length - 1];
  return [
    el("button", {type: "button", id: "rematch", class: "primary", onclick: () => api("/crypt/api/new", {
      players: v.players.length, colours: v.players.map(p => p.colour), first_player: 0,
      computer: v.computer == null ? null : v.computer})}, _("Rematch (same seats)")),
    el("button", {type: "button", id: "new-game", onclick: () => {
      $("setup").open = true;
      $("setup").scrollIntoView({behavior: "smooth"});
    }}, _("New game")),
    el("a", {class: "button", href: "/host/games"}, _("Past games")),
    // A short label (the question names the move): the move is on the end screen already.
    v.can_undo && last ? el("button", {type: "button", id: "end-undo", onclick: () => undo(last.text)},
                            _("Undo the winning move")) : null,
  ].filter(Boolean);
}

// Undo names the move it takes back by its key: a move made meanwhile is not taken back
// (the companion refuses in words).  The winning move is the host's to undo, once asked.
function undo(what) {
  if (view.over && !confirm(_("Undo the winning move: {move}?", {move: what}))) return;
  api("/crypt/api/undo", {action: view.action_key});
}

function renderBoardUse(b) {
  const mine = b.plays_crypt;
  followBoard(b.active_game);
  const names = {mummy: _("the mummy maze"), lootnrun: _("Loot N Run"), crypt: _("Into the Crypt"), boardcheck: _("the board check")};
  // The paused maze game is said here, once (not appended to every crypt message).
  $("board-game").textContent = mine ? _("The board plays Into the Crypt: lay the crypt sheet over the maze.")
      + (b.maze_paused ? " " + _("The maze game is paused meanwhile.") : "")
    : (b.active_game ? _("The board plays {game}.", {game: names[b.active_game] || b.active_game})
                     : _("No board is connected."));
  // Only the host gives the board away, after a question (moveBoard).
  $("play-here").hidden = mine || !b.active_game || !b.host;
  $("back-to-maze").hidden = !mine || !b.games.includes("mummy") || !b.host;
}

let setupFilled = false;
let computerChoice = "1";  // by default the computer plays player 2
function fillSetup(v) {
  if (setupFilled) return;
  setupFilled = true;
  const seats = $("seats");
  const defaults = ["red", "blue", "green", "yellow"];
  for (let i = 0; i < 4; i++) {
    const label = document.createElement("label");
    label.className = "seat";
    label.textContent = _("Player {n}", {n: i + 1}) + " ";
    const sel = document.createElement("select");
    sel.name = `colour${i}`;
    v.colours_available.forEach(c => sel.add(new Option(_(cap(c)), c, false, c === defaults[i])));
    sel.addEventListener("change", updateSeatOptions);
    label.appendChild(sel);
    seats.appendChild(label);
  }
  document.querySelectorAll("input[name=players]").forEach(r => r.addEventListener("change", updateSeatOptions));
  updateSeatOptions();
}

function setupPlayers() { return +document.querySelector("input[name=players]:checked").value; }
function setupColours() {
  return [...document.querySelectorAll("#seats select")].slice(0, setupPlayers()).map(s => s.value);
}

function updateSeatOptions() {
  const n = setupPlayers();
  $("seats").dataset.players = n;
  const colours = setupColours();
  const first = $("first-player"), comp = $("computer");
  const keepFirst = first.value;
  first.replaceChildren(...colours.map((c, i) => new Option(_("Player {n} ({colour})", {n: i + 1, colour: _(cap(c))}), i)));
  comp.replaceChildren(new Option(_("None: people play every seat"), ""),
                       ...colours.map((c, i) => new Option(_("Plays player {n} ({colour})", {n: i + 1, colour: _(cap(c))}), i)));
  first.value = keepFirst !== "" && +keepFirst < n ? keepFirst : "0";
  comp.value = computerChoice !== "" && +computerChoice < n ? computerChoice : "";
}

async function startGame(ev) {
  ev.preventDefault();
  const comp = $("computer").value;
  const colours = setupColours();
  if (new Set(colours).size !== colours.length) { showError(_("Every player needs a colour of their own.")); return; }
  const data = await api("/crypt/api/new", {players: setupPlayers(), colours,
                                           first_player: +$("first-player").value,
                                           computer: comp === "" ? null : +comp});
  if (data) $("setup").open = false;
}

function connect() {
  if (!window.EventSource) { setInterval(() => api("/crypt/api/state"), 1000); return; }
  liveStream("/crypt/api/stream", {onmessage: ev => render(JSON.parse(ev.data))});  // live.js
}

buildBoard();
$("enter").addEventListener("click", () => api("/crypt/api/command", {kind: "enter_chamber"}));
$("pass").addEventListener("click", () => api("/crypt/api/command", {kind: "pass"}));
$("undo").addEventListener("click", () => undo(null));
// Every move of the board asks first and says what it pauses (web/board_moves.py).
function moveBoard(game) {
  const question = view && view.board.moves && view.board.moves[game];
  if (question && !confirm(question)) return;
  api("/crypt/api/board", {game, pause: true});
}
$("play-here").addEventListener("click", () => moveBoard("crypt"));
$("back-to-maze").addEventListener("click", () => moveBoard("mummy"));
$("computer").addEventListener("change", ev => { computerChoice = ev.target.value; });
$("setup-form").addEventListener("submit", startGame);
api("/crypt/api/state").then(connect);
