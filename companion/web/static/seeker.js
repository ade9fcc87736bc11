// A seeker's page: their cards, their dice, guidance in words; the figure moves on the board.
"use strict";

const ROLE = "seeker";
let board = null;
let current = null;
let thrown = [];          // physical dice: the faces entered so far
let picked = [];          // physical cards: the cells chosen while dealing
// "Show where I can go" is this phone's choice: kept across reloads (per device).
const HINTS_KEY = "companion.seeker.hints";
let showHints = readHints();

function readHints() {
  try { return localStorage.getItem(HINTS_KEY) === "1"; } catch (e) { return false; }
}

function cellIndex(name, width) {
  return (parseInt(name.slice(1), 10) - 1) * width + (name.charCodeAt(0) - 65);
}

function send(body) { return command(ROLE, body, render); }

function render(data) {
  coverForTurn(data);
  cues.follow("seeker", data);
  renderNotice(data.notice);
  renderTakeback(ROLE, data.takeback, render, data.takeback_key);
  current = data;
  $("guidance").textContent = data.guidance;
  renderLessons(data.lessons);
  if (data.stage === "dealing") return renderDealing(data);
  $("dealing").hidden = true;
  $("controls").hidden = false;
  const v = data.view;
  const me = v.seekers[v.seeker];
  renderHeaderAnkhs(me.out ? "out" : `\u2625 ${me.ankhs}`);
  renderCaught(data.caught);
  renderSeekerDice(data);
  renderEntry(data);
  renderActions(data);
  const moving = data.my_turn && v.phase === "seeker_moving" && v.legal_destinations;
  $("hint-toggle").hidden = !(data.options.hints && moving);
  if (!board || board.options.figures !== v.positions.length) {
    board = new Board($("board"), {figures: v.positions.length});
  }
  board.update(v.maze, {
    figures: v.positions, mummy: v.mummy, rings: v.hand.map(t => t.cell),
    lit: moving && showHints ? v.legal_destinations : [], named: messageCells(v.maze),
  });
  renderHand(v, me);
  renderPlayers($("players"), data);
  renderLog($("log"), data.log);
}

function renderSeekerDice(data) {
  const v = data.view, box = $("dice");
  box.replaceChildren();
  if (v.dice_out) {
    box.append(el("span", {class: "dice-label"}, _("Set aside:")));
    for (let i = 0; i < v.dice_out; i++) box.append(dieFace("mummy", {class: "die face-mummy out"}));
  }
  const announce = data.my_turn && v.phase === "seeker_rolled";
  if (v.roll.length) {
    box.append(el("span", {class: "dice-label"}, announce ? _("Tap a die to announce it:") : _("Rolled:")));
    for (const f of v.roll) {
      box.append(announce
        ? el("button", {type: "button", class: `die face-${f} pick`, title: _("announce {face}", {face: f}),
                        "aria-label": _("announce {face}", {face: f}), onclick: () => send({cmd: "announce", face: f})},
             FACE_TEXT[f])
        : dieFace(f));
    }
  }
  if (v.announced) {
    box.append(el("span", {class: "dice-label"}, _("Announced:")), dieFace(v.announced, {class: `die face-${v.announced} chosen`}));
  }
}

// Physical dice: tap the faces thrown, then send them.
function renderEntry(data) {
  const v = data.view;
  const rolling = data.my_turn && (v.phase === "seeker_turn" || v.phase === "seeker_rolled");
  const show = rolling && data.options.dice === "physical";
  $("entry").hidden = !show;
  if (!show) { thrown = []; return; }
  const count = 5 - v.dice_out;
  thrown = thrown.slice(0, count);
  const palette = $("palette");
  palette.replaceChildren(...["1", "2", "3", "4", "arrow", "mummy"].map(f =>
    el("button", {type: "button", class: `die face-${f} pick`, "aria-label": _("add {face}", {face: f}),
                  disabled: thrown.length >= count,
                  onclick: () => { thrown.push(f); renderEntry(current); renderActions(current); }},
       FACE_TEXT[f])));
  const box = $("thrown");
  box.replaceChildren(el("span", {class: "dice-label"}, _("Thrown ({n} of {count}):", {n: thrown.length, count})),
    ...thrown.map((f, i) => el("button", {type: "button", class: `die face-${f}`, "aria-label": _("remove {face}", {face: f}),
                                          onclick: () => { thrown.splice(i, 1); renderEntry(current); renderActions(current); }},
                               FACE_TEXT[f])));
}

function renderActions(data) {
  const v = data.view, box = $("actions");
  box.replaceChildren();
  if (!data.my_turn) return;
  const count = 5 - v.dice_out;
  const physical = data.options.dice === "physical";
  if (v.phase === "seeker_turn" && v.may_resolve) {
    const resolve = v.dice_out === 1 ? _("Resolve: the mummy moves 1 step")
                                     : _("Resolve: the mummy moves {n} steps", {n: v.dice_out});
    box.append(button(resolve, () => send({cmd: "resolve"})));
  }
  if (v.phase === "seeker_turn" || v.phase === "seeker_rolled") {
    if (physical) {
      box.append(button(count === 1 ? _("Send the throw (1 die)") : _("Send the throw ({n} dice)", {n: count}), () => {
        const faces = thrown.slice();
        thrown = [];
        send({cmd: "roll", faces});
      }, {class: "primary", disabled: thrown.length !== count}));
    } else {
      box.append(button(v.phase === "seeker_rolled"
                        ? (count === 1 ? _("Roll again (1 die)") : _("Roll again ({n} dice)", {n: count}))
                        : (count === 1 ? _("Roll (1 die)") : _("Roll ({n} dice)", {n: count})),
                        () => send({cmd: "roll"}), {class: v.phase === "seeker_turn" ? "primary" : ""}));
    }
  }
  if (data.stay) {
    // Out and back to the same cell is a legal number move the sensors cannot see.
    box.append(button(_("I moved out and back to {cell}", {cell: data.stay}), () => send({cmd: "move", to: data.stay})));
  }
  if (v.phase === "seeker_card") {
    if (data.playable) {
      box.append(button(_("Play the card of the {treasure}", {treasure: data.playable.with}), () => send({cmd: "play_card"}), {class: "primary"}));
    }
    box.append(button(_("End the turn"), () => send({cmd: "end_turn"}), {class: data.playable ? "" : "primary"}));
  }
  // While the board is being put right the game waits: say so with the buttons too.
  if (!data.board.ok) box.querySelectorAll("button").forEach(b => { b.disabled = true; });
}

function renderHand(v, me) {
  const items = v.hand.map(t => el("li", {class: "card"},
    treasureIcon(t), treasureTitle(t), el("span", {class: "cell"}, cellName(t.cell, v.maze.width))));
  for (const t of me.played) {
    items.push(el("li", {class: "card played"}, treasureIcon(t), treasureTitle(t),
                  el("span", {class: "cell"}, _("played"))));
  }
  $("hand").replaceChildren(...items);
}

// Physical cards: tap the cards drawn (one, or two in the two-player game, per colour).
function renderDealing(data) {
  $("dealing").hidden = false;
  $("controls").hidden = true;
  $("hint-toggle").hidden = true;
  renderCaught([]);
  renderHeaderAnkhs("");
  if (!picked.length && data.entered.length) picked = data.entered.slice();
  const per = data.per_colour;
  const groups = {};
  for (const c of data.cards) (groups[c.colour] = groups[c.colour] || []).push(c);
  const box = $("deal-cards");
  box.replaceChildren(...Object.entries(groups).map(([colour, cards]) => el("fieldset", {class: "deal-colour"},
    el("legend", {}, el("span", {class: "dot big", "data-shape": SHAPES[colour], style: `--c: ${COLOURS[colour]}`}), ` ${_(cap(colour))}`),
    ...cards.map(c => el("button", {type: "button", class: "card-pick", "aria-pressed": picked.includes(c.cell) ? "true" : "false",
                                   onclick: () => togglePick(c, groups[colour], per)},
                        treasureIcon(c), c.name, el("span", {class: "cell"}, c.cell))))));
  $("send-cards").disabled = picked.length !== 5 * per;
  $("send-cards").textContent = data.entered.length ? _("Send my cards again") : _("Send my cards");
  const width = data.maze.width;
  if (!board) board = new Board($("board"), {figures: 1});
  board.update(data.maze, {figures: [], mummy: null, rings: picked.map(n => cellIndex(n, width))});
  $("hand").replaceChildren(...picked.map(n => {
    const c = data.cards.find(x => x.cell === n);
    return el("li", {class: "card"}, treasureIcon(c), c.name, el("span", {class: "cell"}, c.cell));
  }));
  $("players").replaceChildren(...data.names.map((name, i) => el("div", {class: "player"},
    el("span", {class: "who"}, name), el("span", {}, data.ready[i] ? _("cards in") : _("entering cards\u2026")))));
  $("log").replaceChildren();
}

function togglePick(card, colourCards, per) {
  if (picked.includes(card.cell)) {
    picked = picked.filter(n => n !== card.cell);
  } else {
    const same = picked.filter(n => colourCards.some(c => c.cell === n));
    if (same.length >= per) picked = picked.filter(n => n !== same[0]);
    picked.push(card.cell);
  }
  renderDealing(current);
}

$("send-cards").addEventListener("click", () => {
  showError("");
  post("/api/seeker/cards", {cards: picked}).then(data => render(data.state)).catch(err => showError(err.message));
});
$("hint").checked = showHints;
$("hint").addEventListener("change", ev => {
  showHints = ev.target.checked;
  try { localStorage.setItem(HINTS_KEY, showHints ? "1" : "0"); } catch (e) { /* private mode: this page only */ }
  render(current);
});

function start() {
  fetch("/api/seeker/state", {credentials: "same-origin"}).then(r => r.json()).then(render);
  live(ROLE, render);
}

// Pass the phone: a phone that holds several seekers opens behind a cover, and asks for
// a seat's state only after the tap; when the turn passes to another seeker it holds,
// the page covers itself again (a fresh page: nothing of this seat stays behind).
const cover = $("cover");
const PHONE = cover ? cover.dataset.phone.split(" ") : [];
let turnSeat = null;

function turnSeeker(v) {
  if (v.turn_colour === null || v.turn_colour === undefined) return null;
  const i = v.seekers.findIndex(s => s.figures.includes(v.turn_colour));
  return i < 0 ? null : `seeker${i}`;
}

function coverForTurn(data) {
  if (!PHONE.length || data.stage !== "playing") return;
  const now = turnSeeker(data.view), before = turnSeat;
  turnSeat = now;
  if (before !== null && now !== before && now !== data.seat && PHONE.includes(now)) {
    location.replace(`/seeker?cover=${encodeURIComponent(now)}`);
  }
}

if (cover) {
  $("cover-tap").addEventListener("click", async () => {
    const seat = cover.dataset.seat;
    try {
      if (seat !== cover.dataset.shown) await post("/api/seeker/pass", {seat});
    } catch (err) {
      $("cover-error").textContent = err.message;
      return;
    }
    history.replaceState(null, "", "/seeker");
    cover.remove();
    $("seat").hidden = false;
    $("now").hidden = false;
    $("ankhs").hidden = false;
    $("title").tabIndex = -1;
    $("title").focus();
    start();
  });
} else {
  start();
}
