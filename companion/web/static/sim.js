// The board simulator: polls the simulated board and toggles magnets on click.
"use strict";

let drawn = null;
let figures = [];

async function refresh() {
  const res = await fetch("/sim/api/board");
  const data = await res.json();
  if (!drawn) {
    drawn = drawMaze(document.getElementById("board"), data.maze, data.board);
    const all = [...drawn.cells, ...drawn.pads.camp, ...drawn.pads.sarcophagus];
    all.forEach((el, position) => {
      el.dataset.position = position;
      el.setAttribute("tabindex", "0");
      el.addEventListener("click", () => toggle(position));
      el.addEventListener("keydown", ev => { if (ev.key === "Enter" || ev.key === " ") toggle(position); });
    });
    drawn.all = all;
  }
  drawn.all.forEach((el, i) => {
    const c = data.leds[i] || [0, 0, 0];
    el.style.fill = `rgb(${c[0]},${c[1]},${c[2]})`;
  });
  figures.forEach(f => f.remove());
  figures = data.magnets.map(p => {
    const el = drawn.all[p];
    const x = +el.getAttribute("x") + (+el.getAttribute("width")) / 2;
    const y = +el.getAttribute("y") + (+el.getAttribute("height")) / 2;
    return svgEl("circle", {cx: x, cy: y, r: 12, class: "figure", "data-position": p,
                            "pointer-events": "none"}, drawn.svg);
  });
  const g = data.game;
  document.getElementById("turn").textContent = g.title ? `The board plays ${g.title}.` :
    g.winner ? "Game over" :
    (g.turn_colour ? `${g.turn_colour}'s turn (${g.phase.replace("_", " ")})` : "The mummy's turn");
  document.getElementById("message").textContent = g.message || "";
}

async function toggle(position) {
  await fetch("/sim/api/toggle", {method: "POST", headers: {"Content-Type": "application/json"},
                                  body: JSON.stringify({position})});
  refresh();
}

refresh();
setInterval(refresh, 150);
