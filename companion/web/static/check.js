// The board check (/check): the step and what the sensors read, live; the maker's
// buttons; the saved reports, each compared with the one before.
"use strict";

const STEP_TITLES = {
  empty: _("The empty board"),
  centre: _("A figure on the centre"),
  off_centre: _("5 mm off the centre"),
  rectangle: _("A diode: three figures on a rectangle"),
  done: _("Done"),
};

function list(box, items) {
  box.replaceChildren(...items.map(text => el("li", {}, text)));
}

function render(view) {
  const running = view.running && view.holds_board;
  $("check-walk").hidden = !running;
  $("check-start").hidden = running;
  $("end").hidden = !view.holds_board || running;
  $("check-owner").textContent = view.holds_board
    ? (running ? _("The check has the board.") : _("The check has the board: give it back when you are done."))
    : "";
  const step = view.step;
  if (step && running) {
    $("check-step-title").textContent = STEP_TITLES[step.kind] || "";
    $("check-says").textContent = step.says;
    $("check-says").dataset.kind = step.kind;
    $("check-says").dataset.position = step.position === null ? "" : String(step.position);
    $("press-next").hidden = step.kind === "centre";
    $("press-skip").hidden = !(step.kind === "centre" || step.kind === "rectangle");
    $("press-skip").textContent = step.kind === "rectangle" ? _("Skip this diode") : _("Nothing reads");
  }
  const names = view.names || [];
  $("check-reading").textContent = view.reading.length
    ? _("The sensors read: {cells}", {cells: view.reading.map(p => names[p]).join(", ")})
    : _("The sensors read: nothing");
  list($("check-faults"), (view.faults || []).map(f => f.says));
  $("check-saved").textContent = view.saved
    ? _("Report saved: {name}", {name: view.saved}) : (view.not_saved || "");
  if (view.saved && view.saved !== shownReports) loadReports();
}

let shownReports = null;

async function loadReports() {
  const res = await fetch("/check/api/reports", {credentials: "same-origin"});
  if (!res.ok) return;
  const data = await res.json();
  shownReports = data.reports[0] || null;
  $("check-reports").replaceChildren(...data.reports.map(name => {
    const b = el("button", {type: "button", class: "report"}, name);
    b.addEventListener("click", () => showReport(name));
    return el("li", {}, b);
  }));
}

async function showReport(name) {
  const res = await fetch(`/check/api/reports/${encodeURIComponent(name)}`, {credentials: "same-origin"});
  const data = await res.json();
  if (!res.ok) { $("check-error").textContent = data.error || ""; return; }
  $("check-report").hidden = false;
  $("check-report-name").textContent = name;
  list($("check-report-lines"), data.lines.length ? data.lines : [_("No fault found.")]);
  const box = $("check-report-changes");
  box.replaceChildren();
  if (data.changes) {
    box.append(el("p", {}, _("Compared with {name}:", {name: data.compared_with})));
    const parts = [["fixed", _("Fixed")], ["new", _("New")], ["still", _("Still there")]];
    for (const [key, title] of parts) {
      const items = data.changes[key];
      if (!items.length) continue;
      const ul = el("ul", {class: `changes-${key}`});
      list(ul, items);
      box.append(el("h4", {}, title), ul);
    }
  }
}

async function act(url, body) {
  $("check-error").textContent = "";
  try {
    render(await post(url, body));
    $("check-confirm").hidden = true;
  } catch (err) {
    if (err.status === 409 && url.endsWith("/start") && !body.pause) {
      $("check-confirm").hidden = false;
      pending = body;
      return;
    }
    $("check-error").textContent = err.message;
  }
}

let pending = {};

$("start").addEventListener("click", () => act("/check/api/start", {}));
$("start-quick").addEventListener("click", () => act("/check/api/start", {quick: true}));
$("start-paused").addEventListener("click", () => act("/check/api/start", {...pending, pause: true}));
// A press names the step it answers: one meant for a step the check has left is refused.
for (const id of ["press-next", "press-skip", "press-finish"]) {
  $(id).addEventListener("click", ev => {
    const says = $("check-says").dataset, body = {answer: ev.target.dataset.answer};
    if (says.kind) body.step = {kind: says.kind, position: says.position === "" ? null : Number(says.position)};
    act("/check/api/press", body);
  });
}
$("end").addEventListener("click", () => act("/check/api/end", {}));

fetch("/check/api/state", {credentials: "same-origin"}).then(r => r.json()).then(view => {
  render(view);
  loadReports();
  liveStream("/check/api/stream", {onmessage: ev => render(JSON.parse(ev.data))});  // live.js
});
