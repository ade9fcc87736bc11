// The mummy's page: the maze and the mummy only, public announcements, the mummy's controls.
"use strict";

const ROLE = "mummy";
let current = null;
let picked = null;  // the destination tapped for a move in one gesture (a route), or null
const board = new Board($("board"), {figures: 1, onCell: cell => {
  if (!current || !current.steps) return;
  if (current.steps.some(s => s.cell === cell)) { picked = null; step(cell); return; }
  if (picked && picked.cell === cell) { go(picked); return; }  // the second tap walks it
  picked = (current.routes || []).find(r => r.cell === cell) || null;
  render(current);
}});

function send(body) { return command(ROLE, body, render); }
function step(cell) { send({cmd: "mummy_step", to: cellName(cell, current.view.maze.width)}); }
function go(route) {
  picked = null;
  if ($("go")) $("go").disabled = true;
  send({cmd: "mummy_go", to: route.name});
}

function render(data) {
  cues.follow("mummy", data);
  renderNotice(data.notice);
  renderTakeback("mummy", data.takeback, render, data.takeback_key);
  current = data;
  // A destination stays picked only while the same way still leads there.
  const same = picked && (data.routes || []).find(r => r.cell === picked.cell && r.path.join() === picked.path.join());
  picked = same || null;
  $("guidance").textContent = data.guidance;
  renderLessons(data.lessons);
  if (data.stage === "dealing") {
    clearGame(board);
    $("controls").hidden = true;
    renderCaught([]);
    $("players").replaceChildren(...data.names.map((name, i) => el("div", {class: "player"},
      el("span", {class: "who"}, name), el("span", {}, data.ready[i] ? _("cards in") : _("entering cards\u2026")))));
    return;
  }
  $("controls").hidden = false;
  const v = data.view;
  renderHeaderAnkhs("\u2625 " + _("{n} of {needs}", {n: v.mummy_ankhs, needs: v.mummy_needs}));
  renderCaught(data.caught);
  // While another game has the board nothing is offered: every tap would be refused.
  const moving = v.phase === "mummy_moving" && !data.board_away;
  renderControls(data, moving);
  board.update(v.maze, {mummy: v.mummy, lit: moving ? data.steps.map(s => s.cell) : [], litClass: "step",
                        named: messageCells(v.maze), reach: moving ? (data.routes || []).map(r => r.cell) : []});
  renderRoutes(moving ? data.routes || [] : []);
  renderAid(data.aid);
  $("dice-out").textContent = v.dice_out ? _("Mummy faces lying out: {n}", {n: v.dice_out}) : "";
  renderPlayers($("players"), data);
  renderLog($("log"), data.log);
}

// A step button rings its cell on the maze while a finger or the mouse is on it.
// A finger marks it from touchstart to touchend only: the mouse events a browser makes up
// after a tap (and again when the page is redrawn under the finger's last place) would
// leave a mark that no leave ever clears.
// On a phone without hover only the finger marks (the mouse and focus events it makes
// up would not be followed by a leave).
const HOVERS = !window.matchMedia || window.matchMedia("(hover: hover)").matches;
function pointsAt(cell) {
  const on = () => board.mark(cell), off = () => board.mark(null);
  const mouseOn = ev => {
    if (HOVERS && !(ev.sourceCapabilities && ev.sourceCapabilities.firesTouchEvents)) on();
  };
  const focusOn = () => { if (HOVERS) on(); };
  return {onmouseenter: mouseOn, onfocus: focusOn, ontouchstart: on, ontouchend: off,
          ontouchcancel: off, onmouseleave: off, onblur: off};
}

function renderControls(data, moving) {
  const v = data.view, actions = $("actions"), pad = $("pad"), steps = $("steps");
  // The buttons are drawn anew: the one a finger or the mouse pointed at is gone (no
  // leave nor blur follows), so its mark on the maze goes with it.
  board.mark(null);
  actions.replaceChildren();
  pad.replaceChildren();
  steps.hidden = !moving;
  pad.hidden = !moving;
  if (v.phase === "mummy_roll" && !data.board_away) {
    if (data.options.dice === "physical") {
      actions.append(el("span", {class: "dice-label"}, _("The mummy die shows:")),
        ...data.options.mummy_die_faces.map(n => button(String(n), () => send({cmd: "roll_mummy_die", value: n}),
                                                       {class: "die pick", "aria-label": _("the die shows {n}", {n})})));
    } else {
      actions.append(button(_("Roll the mummy die"), () => send({cmd: "roll_mummy_die"}), {class: "primary"}));
    }
  }
  if (!moving) return;
  steps.textContent = v.steps_left === 1 ? _("1 step left") : _("{n} steps left", {n: v.steps_left});
  const byDir = {};
  for (const s of data.steps) (byDir[s.dir] = byDir[s.dir] || []).push(s);
  const slots = {north: "n", west: "w", east: "e", south: "s"};
  for (const [dir, slot] of Object.entries(slots)) {
    const options = byDir[dir] || [];
    if (options.length === 1) {
      pad.append(button(`${DIR_ARROW[dir]} ${options[0].name}`, () => step(options[0].cell),
                        {class: `arrow ${slot}`, "aria-label": _("step {dir} to {cell}", {dir: _(dir), cell: options[0].name}),
                         ...pointsAt(options[0].cell)}));
    } else {
      pad.append(el("span", {class: `arrow ${slot} none`}));
    }
  }
  pad.append(el("span", {class: "here", title: _("the mummy")}, el("span", {}, "M")));
  for (const options of Object.values(byDir)) {
    if (options.length > 1) {
      for (const s of options) {
        actions.append(button(`${DIR_ARROW[s.dir]} ${s.name}`, () => step(s.cell),
                              {"aria-label": _("step to {cell}", {cell: s.name}), ...pointsAt(s.cell)}));
      }
    }
  }
  if (picked) {
    const n = picked.path.length;
    actions.append(button(n === 1 ? _("Go to {cell} (1 step)", {cell: picked.name})
                                  : _("Go to {cell} ({n} steps)", {cell: picked.name, n}),
                          () => go(picked), {class: "primary", id: "go"}));
  }
  if (!data.options.exact) {
    actions.append(button(_("End the move here"), () => send({cmd: "end_mummy_move"})));
  }
}

// The cells the mummy can reach this move (from the maze alone: nothing of the seekers),
// and the way to the one tapped: tap it again or "Go" (in the "now" bar, on screen) to
// walk it step by step.
function renderRoutes(routes) {
  if (board.routeLayer) board.routeLayer.remove();
  board.routeLayer = null;
  if (!routes.length || !board.drawn) return;
  const layer = svgEl("g", {class: "routes", "pointer-events": "none"});
  const near = new Set(current.steps.map(s => s.cell));
  for (const r of routes) {
    if (near.has(r.cell)) continue;
    const rect = board.drawn.cells[r.cell];
    svgEl("rect", {x: rect.getAttribute("x"), y: rect.getAttribute("y"), width: CELL, height: CELL,
                   class: "reach", "data-cell": r.cell}, layer);
  }
  if (picked) {
    const points = [board.place(current.view.mummy, -1), ...picked.path.map(c => board.centre(c))];
    svgEl("polyline", {points: points.map(p => p.join(",")).join(" "), class: "route"}, layer);
    const [x, y] = board.centre(picked.cell);
    svgEl("circle", {cx: x, cy: y, r: 12, class: "route-end", "data-cell": picked.cell}, layer);
  }
  board.drawn.svg.insertBefore(layer, board.litLayer);
  board.routeLayer = layer;
}

// The deduction aid: per seeker figure a stripe of its colour on every cell where it
// can still be, stronger where it more likely is, and a count per colour.
function renderAid(aid) {
  const box = $("aid");
  if (board.aidLayer) board.aidLayer.remove();
  board.aidLayer = null;
  box.hidden = !aid;
  if (!aid) return;
  const layer = svgEl("g", {class: "aid", "pointer-events": "none"});
  const n = aid.figures.length;
  aid.figures.forEach((f, i) => {
    f.cells.forEach((cell, k) => {
      const r = board.drawn.cells[cell];
      svgEl("rect", {x: +r.getAttribute("x") + i * CELL / n, y: +r.getAttribute("y"),
                     width: CELL / n, height: CELL, fill: COLOURS[f.colour],
                     "fill-opacity": 0.12 + 0.5 * f.shade[k], "data-colour": f.colour}, layer);
    });
  });
  board.drawn.svg.insertBefore(layer, board.litLayer);
  board.aidLayer = layer;
  box.replaceChildren(el("span", {class: "dice-label"}, _("Can still be on:")),
    ...aid.figures.map(f => el("span", {class: "aid-count", "data-colour": f.colour},
      el("span", {class: "dot", "data-shape": SHAPES[f.colour], style: `--c: ${COLOURS[f.colour]}`}),
      " " + aidWhere(f))));
}

// Where a figure can still be, in words: its cells, the start field, or neither (out).
function aidWhere(f) {
  if (!f.count) return f.start ? _("the start field") : _("out of the game");
  const cells = f.count === 1 ? _("1 cell") : _("{n} cells", {n: f.count});
  return f.start ? _("{cells} or the start field", {cells}) : cells;
}

fetch("/api/mummy/state", {credentials: "same-origin"}).then(r => r.json()).then(render);
live(ROLE, render);
