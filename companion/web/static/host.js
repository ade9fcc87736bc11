// The host page: set up a game, hand out the seats' codes, undo, new codes.
"use strict";

const PHASES = {
  seeker_turn: _("a seeker rolls"), seeker_rolled: _("a seeker announces"), seeker_moving: _("a seeker moves"),
  seeker_card: _("a seeker plays a card or ends the turn"), mummy_roll: _("the mummy rolls"),
  mummy_moving: _("the mummy moves"), game_over: _("the game is over"),
};

function hostError(id, message) { const box = $(id); if (box) box.textContent = message || ""; }

function gameLine(status) {
  const g = status.game;
  const board = g.board.connected ? (g.board.ok ? _("board as the game expects") : _("the board needs putting right"))
                                  : _("board disconnected");
  const dealing = status.table && status.table.dealing ? _("Waiting for the seekers' cards.") + " " : "";
  return dealing + _("Round {n}: {phase}; {board}.", {n: g.round, phase: PHASES[g.phase] || g.phase, board});
}

let lastAction = null;
let gameShown = null;  // the game the page shows: a new game says it ends that one
let codesShown = null;  // the codes the page shows: "New codes" says it renews those
let actionKey = null;  // the key of the action the Undo button names (sent with the undo)
let noticeShown;  // the last take-back seen (undefined until the first status)
let crossingsShown;  // how many of the host's allowances the page has told
let cardsShown;  // the word on the cards after an undo of the end (undefined until the first status)
let undoWarning = null;  // what the undo of an end leaves known, asked with the undo
let flashTimer = null;
// A message that shows for a few seconds (an undo, nothing to undo), then goes.
function flash(message) {
  const box = $("host-notice");
  if (!box) return;
  box.textContent = message;
  box.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

function update(status) {
  const line = $("game-line");
  if (line) line.textContent = gameLine(status);
  const g = status.game;
  lastAction = g.last_action;
  gameShown = status.table ? g.id : null;
  codesShown = status.table ? status.table.codes_key : null;
  actionKey = g.action_key;
  const noticeId = g.notice ? g.notice.id : null;  // a seat's take-back: every page says it
  if (noticeShown !== undefined && noticeId !== null && noticeId !== noticeShown) flash(g.notice.text);
  noticeShown = noticeId;
  if ($("host-guidance")) $("host-guidance").textContent = g.over ? "" : (g.guidance || "");
  if ($("host-winner")) { $("host-winner").hidden = !g.winner; $("host-winner").textContent = g.winner || ""; }
  showEnd(status.table ? g.summary : null, endButtons);
  if ($("undo")) {
    $("undo").textContent = lastAction ? _("Undo: {action}", {action: lastAction}) : _("Undo the last action");
    $("undo").disabled = !lastAction;
  }
  undoWarning = g.undo_warning || null;
  if ($("redeal")) $("redeal").hidden = !g.may_redeal;
  const cards = g.cards || null;  // lasting while it holds; said once when it changes
  if ($("host-cards")) { $("host-cards").textContent = cards || ""; $("host-cards").hidden = !cards; }
  if (cardsShown !== undefined && cards && cards !== cardsShown) flash(cards);
  cardsShown = cards;
  if (status.board && $("board-owner") && $("board-owner").dataset.active !== status.board.active_game) {
    location.reload();  // the board changed hands from another page
    return;
  }
  const journal = status.journal;
  if (journal && $("journal")) {
    $("journal").hidden = journal.ok && !journal.notes.length;
    $("journal-problem").textContent = journal.problem || "";
  }
  if (!status.table) return;
  const box = $("codes-box");
  if (box && status.table.all_joined && !box.dataset.hidden) {
    box.dataset.hidden = "1";  // every seat joined: the codes hide behind a tap
    box.open = false;
    box.querySelector("summary").textContent = _("Every seat has joined: tap to show the codes");
  }
  const told = status.table.crossings || [];
  const list = $("host-crossings");
  if (list) {
    if (crossingsShown !== undefined && told.length > crossingsShown) flash(told[told.length - 1]);
    crossingsShown = told.length;
    list.replaceChildren(...told.map(text => Object.assign(document.createElement("li"), {textContent: text})));
    list.hidden = !told.length;
  }
  if ($("allow-crossing")) $("allow-crossing").setAttribute("aria-pressed", String(Boolean(status.table.allowed)));
  for (const seat of status.table.seats) {
    const shown = document.querySelector(`[data-seat="${seat.seat}"] code.code`);
    if ((seat.code === null) === Boolean(shown)) { location.reload(); return; }  // hidden or shown again
    const item = document.querySelector(`[data-seat="${seat.seat}"] .joined`);
    if (item) {
      item.textContent = seat.ready ? _("cards in") : (seat.joined ? _("joined") : _("not joined"));
      item.dataset.joined = String(seat.joined);
    }
  }
}

$("setup").addEventListener("submit", ev => {
  ev.preventDefault();
  const form = ev.target;
  const colours = [...form.querySelectorAll("input[name=colour]:checked")].map(i => i.value);
  const body = {
    colours,
    dice: form.querySelector("input[name=dice]:checked").value,
    cards: form.querySelector("input[name=cards]:checked").value,
    exact: form.querySelector("input[name=exact]").checked,
    treasures: form.querySelector("input[name=treasures]").checked,
    hints: form.querySelector("input[name=hints]").checked,
    computer: form.querySelector("input[name=computer]:checked").value,
    pace: Number(form.querySelector("input[name=pace]").value || 0.5),
    aid: form.querySelector("input[name=aid]").checked,
    first_game: form.querySelector("input[name=first_game]").checked,
    replaces: gameShown,
  };
  if ($("game-line") && !confirm(_("Start a new game? The game now on the board ends."))) return;
  hostError("setup-error", "");
  post("/api/host/game", body).then(() => location.reload()).catch(err => hostError("setup-error", err.message));
});

// The end screen's buttons: the same table again in one tap (same seats, colours and
// options, a new deal), or the setup form for another game.
function endButtons() {
  return [
    el("button", {type: "button", id: "rematch", class: "primary", onclick: () => {
      hostError("host-error", "");
      post("/api/host/rematch", {replaces: gameShown}).then(() => location.reload())
        .catch(err => hostError("host-error", err.message));
    }}, _("Rematch (same seats)")),
    el("button", {type: "button", id: "new-game", onclick: () => {
      $("setup").scrollIntoView({behavior: "smooth"});
      $("setup").querySelector("input").focus();
    }}, _("New game")),
    el("a", {class: "button", href: "/host/games"}, _("Past games")),
  ];
}

// Undo the action the host confirmed (its key): if another one came in the meantime,
// the companion undoes nothing and names it, and the host is asked again.
function undo(key) {
  hostError("host-error", "");
  post("/api/host/undo", {action: key}).then(s => {
    update(s);
    flash(s.undone ? (s.game.notice ? s.game.notice.text : _("Undone.")) : _("Nothing to undo."));
  }).catch(err => {
    const s = err.data;
    if (err.status === 409 && s && s.game) {
      update(s);
      if (s.game.last_action && confirm(err.message)) { undo(s.game.action_key); return; }
    }
    hostError("host-error", err.message);
  });
}

if ($("undo")) {
  $("undo").addEventListener("click", () => {
    const key = actionKey;  // the action named now, whatever the stream brings meanwhile
    const asked = _("Undo the last action: {action}?", {action: lastAction});
    if (!lastAction || !confirm(undoWarning ? asked + "\n\n" + undoWarning : asked)) return;
    undo(key);
  });
  if ($("redeal")) $("redeal").addEventListener("click", () => {
    hostError("host-error", "");
    post("/api/host/redeal", {}).then(update).catch(err => hostError("host-error", err.message));
  });
  const mummyCode = $("mummy-code");
  if (mummyCode) mummyCode.addEventListener("click", () => {
    post("/api/host/mummy-code", {}).then(() => location.reload()).catch(err => hostError("host-error", err.message));
  });
  if ($("allow-crossing")) $("allow-crossing").addEventListener("click", () => {
    post("/api/host/allow-crossing", {}).then(() => flash(_("Allowed once: every phone is told when it is used."))).catch(err => hostError("host-error", err.message));
  });
  $("codes").addEventListener("click", () => {
    if (!confirm(_("New codes for every seat? Every phone must join again."))) return;
    post("/api/host/codes", {renews: codesShown}).then(() => location.reload()).catch(err => hostError("host-error", err.message));
  });
}

for (const button of document.querySelectorAll(".give-board")) {
  button.addEventListener("click", () => {
    const pause = button.dataset.pause === "true";
    // Every move of the board asks first and says what it pauses (web/board_moves.py).
    if (button.dataset.question && !confirm(button.dataset.question)) return;
    hostError("board-error", "");
    const from = $("board-owner").dataset.active;  // the game the page showed holding it
    post("/api/host/board", {game: button.dataset.game, pause, from}).then(() => location.reload())
      .catch(err => hostError("board-error", err.message));
  });
}

// The host page follows its live stream, as the seats' pages do (it reconnects by itself,
// live.js; a stream refused because the host's cookie is gone reloads to the PIN form).
liveStream("/api/host/stream", {
  onmessage: ev => update(JSON.parse(ev.data)),
  onclosed: reloadIfRefused("/api/host/status"),
});
