// The board simulator: the board drawn once, then kept up to date by the live stream;
// a tap lifts the figure on a cell or pad, or puts one down.
"use strict";

let drawn = null;
let figures = [];

function draw(data) {
  drawn = drawMaze(document.getElementById("board"), data.maze, data.board);
  const all = [...drawn.cells, ...drawn.pads.camp, ...drawn.pads.sarcophagus];
  all.forEach((el, position) => {
    el.dataset.position = position;
    el.setAttribute("tabindex", "0");
    el.addEventListener("click", () => toggle(position));
    el.addEventListener("keydown", ev => { if (ev.key === "Enter" || ev.key === " ") toggle(position); });
  });
  drawn.all = all;
  zoomMaze(document.getElementById("board"), drawn.svg);
}

function update(data) {
  if (!drawn) return;
  drawn.all.forEach((el, i) => {
    const c = data.leds[i] || [0, 0, 0];
    el.style.fill = `rgb(${c[0]},${c[1]},${c[2]})`;
  });
  figures.forEach(f => f.remove());
  const colours = data.figures || {};
  figures = data.magnets.map(p => {
    const el = drawn.all[p];
    const x = +el.getAttribute("x") + (+el.getAttribute("width")) / 2;
    const y = +el.getAttribute("y") + (+el.getAttribute("height")) / 2;
    const colour = colours[p];
    const g = svgEl("g", {class: "figure", "data-position": p, "data-colour": colour || "",
                          "pointer-events": "none"}, drawn.svg);
    svgEl("circle", {cx: x, cy: y, r: 12, fill: colour ? COLOURS[colour] : "#ddd",
                     stroke: "#111", "stroke-width": 2}, g);
    if (colour) svgEl("text", {x, y: y + 5, class: "piece-letter"}, g).textContent = colour[0].toUpperCase();
    return g;
  });
  const g = data.game;
  document.getElementById("turn").textContent =
    g.title ? _("The board plays {game}.", {game: g.title}) : g.turn;
  document.getElementById("message").textContent = g.message || "";
}

async function toggle(position) {
  const res = await fetch("/sim/api/toggle", {method: "POST", headers: {"Content-Type": "application/json"},
                                             body: JSON.stringify({position})});
  if (!res.ok) document.getElementById("message").textContent = _("The companion cannot be reached: check the phone is on its Wi-Fi. The page reconnects by itself.");
}

fetch("/sim/api/board").then(r => r.json()).then(data => {
  draw(data);
  update(data);
  // Reconnects by itself (live.js); refused because the host's cookie is gone, or this
  // device took the mummy's seat, the page reloads to say why.
  liveStream("/sim/api/stream", {
    onmessage: ev => update(JSON.parse(ev.data)),
    onclosed: reloadIfRefused("/sim/api/board"),
  });
});
