// Draws a maze (walls, start, sarcophagus, treasures) as SVG from a maze view.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 40;
const LABEL = 26;  // the band around the maze with the column letters and row numbers
// The smallest a text naming a cell may be drawn, in CSS px (read at arm's length).
const MIN_TEXT_PX = 12;
const COLOURS = {red: "#d33", blue: "#36c", white: "#eee", green: "#3a3", yellow: "#eb0",
                 turquoise: "#1bb", violet: "#95c"};

// Colour is never the only sign: each colour has its own shape too, on the treasures'
// marks, the figures and the players' rows (tests/test_colour_marks.py checks the pairs
// under simulated colour blindness); a treasure colour's shape is its badge on the printed
// maze (companion/hardware/icons.py FAMILIES), so page and board agree.
const SHAPES = {red: "circle", blue: "square", white: "hexagon", green: "triangle", yellow: "diamond",
                turquoise: "pentagon", violet: "star"};

// Each treasure's own symbol (companion/web/treasure_symbols.py draws the sprite from the
// printed maze's icons): the sprite's address comes from the page's head; a page without
// one (the saved replay file) draws the colour's shape alone.
const SYMBOLS = (document.querySelector('meta[name="treasure-symbols"]') || {}).content || "";
// The glyph's ink on each treasure colour (as on the printed maze: icons.py FAMILIES).
const INKS = {red: "#fff", blue: "#fff", white: "#1a1a1a", green: "#fff", yellow: "#1a1a1a"};
// How far the glyph reaches inside each shape (its radius, as a share of the shape's).
const GLYPH_FIT = {circle: 0.68, square: 0.68, hexagon: 0.7, triangle: 0.5, diamond: 0.55};

// A treasure of radius r around (cx, cy): its colour's shape and, inside, its symbol.
function treasureMark(t, cx, cy, r, parent) {
  const shape = SHAPES[t.colour] || "circle";
  const g = svgEl("g", {class: "treasure", "data-symbol": t.symbol || "", "data-shape": shape,
                        style: `color: ${INKS[t.colour] || "#1a1a1a"}; --paper: ${COLOURS[t.colour]}`}, parent);
  shapeEl(t.colour, cx, cy, r, {fill: COLOURS[t.colour], stroke: "#1a1a1a", "stroke-width": r * 0.1}, g);
  if (SYMBOLS && t.symbol) {
    const k = r * (GLYPH_FIT[shape] || 0.6);
    svgEl("use", {href: `${SYMBOLS}#${t.symbol}`, x: cx - k, y: cy - k, width: 2 * k, height: 2 * k}, g);
  }
  return g;
}

// A treasure's mark for a list (a card, a button): a small picture beside its name.
function treasureIcon(t) {
  const svg = svgEl("svg", {viewBox: "-12 -12 24 24", class: "treasure-icon", "aria-hidden": "true",
                            focusable: "false"});
  treasureMark(t, 0, 0, 10, svg);
  return svg;
}

// A colour's shape of radius r around (cx, cy) in the SVG `parent`.
function shapeEl(colour, cx, cy, r, attrs, parent) {
  const shape = SHAPES[colour] || "circle";
  const all = Object.assign({"data-shape": shape}, attrs);
  if (shape === "circle") return svgEl("circle", Object.assign({cx, cy, r}, all), parent);
  if (shape === "square") {
    const a = r * 0.9;
    return svgEl("rect", Object.assign({x: cx - a, y: cy - a, width: 2 * a, height: 2 * a}, all), parent);
  }
  const corners = {triangle: [3, -90, 1], diamond: [4, -90, 1], hexagon: [6, 0, 1], pentagon: [5, -90, 1],
                   star: [10, -90, 0.5]}[shape];
  const [n, start, inner] = corners;
  const points = [];
  for (let i = 0; i < n; i++) {
    const a = (start + i * 360 / n) * Math.PI / 180, k = i % 2 && inner !== 1 ? inner * r : r * (shape === "triangle" ? 1.2 : 1.05);
    points.push(`${(cx + k * Math.cos(a)).toFixed(1)},${(cy + k * Math.sin(a)).toFixed(1)}`);
  }
  return svgEl("polygon", Object.assign({points: points.join(" ")}, all), parent);
}

function svgEl(name, attrs, parent) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

function cellName(cell, width) {
  return String.fromCharCode(65 + (cell % width)) + (Math.floor(cell / width) + 1);
}

// Returns {svg, cells: [rect per cell], pads: {camp: [...], sarcophagus: [...]}}.
function drawMaze(container, maze, pads) {
  const w = maze.width, h = maze.height;
  const padRow = pads ? 1 : 0;
  // A band of LABEL around the grid for the edge labels (as on the printed sheet), the
  // pads of the start field and the sarcophagus outside it.
  const out = LABEL + padRow * (CELL + 4);
  // One picture to a screen reader (its cells are a keyboard grid in the screen-reader
  // mode, access.js): the cells carry their names as data, not as labels of a graphic.
  const svg = svgEl("svg", {viewBox: `${-LABEL} ${-out} ${w * CELL + 2 * LABEL} ${h * CELL + 2 * out}`,
                            class: "maze", role: "img",
                            "aria-label": _("The maze, {w} by {h} cells", {w, h})});
  const cells = [];
  for (let c = 0; c < w * h; c++) {
    const x = (c % w) * CELL, y = Math.floor(c / w) * CELL;
    const r = svgEl("rect", {x, y, width: CELL, height: CELL, class: "cell", "data-cell": c,
                             "data-name": cellName(c, w)}, svg);
    cells.push(r);
  }
  const label = (x, y, text) => {
    // Centred on its place by the drawing itself, not by a page's style sheet: /sim has
    // none, and "10" left-aligned there ran off the edge and read "1".
    svgEl("text", {x, y, class: "edge-label", "text-anchor": "middle", "font-size": 11,
                   "pointer-events": "none"}, svg).textContent = text;
  };
  for (let col = 0; col < w; col++) {
    const letter = String.fromCharCode(65 + col), x = col * CELL + CELL / 2;
    label(x, -LABEL / 2 + 4, letter);
    label(x, h * CELL + LABEL / 2 + 4, letter);
  }
  for (let row = 0; row < h; row++) {
    const y = row * CELL + CELL / 2 + 4;
    label(-LABEL / 2, y, String(row + 1));
    label(w * CELL + LABEL / 2, y, String(row + 1));
  }
  for (const t of maze.treasures) {
    const x = (t.cell % w) * CELL + CELL / 2, y = Math.floor(t.cell / w) * CELL + CELL / 2;
    // The whole cell takes a tap: the mark lets it through.
    const d = treasureMark(t, x, y, 11, svg);
    d.setAttribute("pointer-events", "none");
    const title = `${t.colour} ${t.name}`;  // in the catalogs: "red scarab", "roter Skarabäus"
    svgEl("title", {}, d).textContent = _(title);
  }
  const wall = (x1, y1, x2, y2) => svgEl("line", {x1, y1, x2, y2, class: "wall"}, svg);
  const openings = new Set([...maze.start, ...maze.sarcophagus].map(o => `${o.cell}:${o.side}`));
  for (let c = 0; c < w * h; c++) {
    const x = (c % w) * CELL, y = Math.floor(c / w) * CELL, open = maze.open_sides[c];
    if (!open.includes("north") && !openings.has(`${c}:north`)) wall(x, y, x + CELL, y);
    if (!open.includes("west") && !openings.has(`${c}:west`)) wall(x, y, x, y + CELL);
    if (Math.floor(c / w) === h - 1 && !openings.has(`${c}:south`)) wall(x, y + CELL, x + CELL, y + CELL);
    if (c % w === w - 1 && !openings.has(`${c}:east`)) wall(x + CELL, y, x + CELL, y + CELL);
  }
  const result = {svg, cells, pads: {camp: [], sarcophagus: []}};
  if (pads) {
    const place = (room, openingsList, count, label) => {
      const o = openingsList[0];
      const below = o.side === "south";
      // A whole cell's size: a thumb's target once the maze is zoomed to 44 px cells.
      const y = below ? h * CELL + LABEL + 2 : -LABEL - CELL - 2;
      const startX = Math.max(0, (o.cell % w) * CELL - CELL * (count - 1) / 2);
      for (let i = 0; i < count; i++) {
        const r = svgEl("rect", {x: startX + i * CELL, y, width: CELL, height: CELL, rx: 6,
                                 class: "pad", "data-name": label === "camp" ? _("camp slot {n}", {n: i + 1})
                                                                  : _("sarcophagus slot {n}", {n: i + 1})}, svg);
        result.pads[room].push(r);
      }
    };
    place("camp", maze.start, pads.camp_slots, "camp");
    place("sarcophagus", maze.sarcophagus, pads.sarcophagus_slots, "sarcophagus");
  }
  container.replaceChildren(svg);
  fitTexts(svg);
  return result;
}

// The edge labels and the slots' letters drawn at least MIN_TEXT_PX high, however small
// the maze is drawn (the drawing scales with the page): their size in the drawing's
// units follows the drawing's scale, now and whenever the page is resized.
function fitTexts(svg) {
  const fit = () => {
    const width = svg.getBoundingClientRect().width, vb = svg.viewBox.baseVal;
    if (!width || !vb || !vb.width) return;
    const units = MIN_TEXT_PX * 1.05 * vb.width / width;
    svg.style.setProperty("--min-text", `${units}px`);  // for the pieces' letters (play.css)
    for (const text of svg.querySelectorAll("text.edge-label, text.pad-letter")) {
      const base = Number(text.dataset.base || text.getAttribute("font-size") || 11);
      text.dataset.base = String(base);
      text.setAttribute("font-size", String(Math.max(base, units)));
    }
  };
  requestAnimationFrame(fit);
  if (window.ResizeObserver) new ResizeObserver(fit).observe(svg);
  else window.addEventListener("resize", fit);
}

// A maze whose cells take taps, on a phone: drawn at 45 CSS px a cell (a thumb's target)
// and scrolled sideways, with the whole maze small above it for orientation; a tap on
// that overview brings its part into view, across and down (then a tap picks the cell).
const TAP_PX = 45;

function zoomMaze(container, svg) {
  const vb = svg.viewBox.baseVal;
  svg.id = svg.id || `maze-${Math.random().toString(36).slice(2)}`;
  svg.style.minWidth = `${Math.ceil(vb.width * TAP_PX / CELL)}px`;
  container.classList.add("zoomable");
  container.tabIndex = 0;  // a scroller a keyboard can reach (and scroll with the arrows)
  let overview = container.previousElementSibling;
  if (!overview || !overview.classList.contains("overview")) {
    overview = svgEl("svg", {class: "overview", role: "button", tabindex: "0"});
    overview.setAttribute("aria-label", _("the whole maze: tap a part to show it"));
    container.before(overview);
    const show = ev => {
      const r = overview.getBoundingClientRect();
      const fx = ev.clientX != null && r.width ? (ev.clientX - r.left) / r.width : 0.5;
      const fy = ev.clientY != null && r.height ? (ev.clientY - r.top) / r.height : 0.5;
      container.scrollLeft = fx * container.scrollWidth - container.clientWidth / 2;
      const box = container.getBoundingClientRect();
      scrollIntoSight(box.top + fy * box.height);
    };
    overview.addEventListener("click", show);
  }
  overview.setAttribute("viewBox", `${vb.x} ${vb.y} ${vb.width} ${vb.height}`);
  overview.replaceChildren();
  svgEl("use", {href: `#${svg.id}`, x: vb.x, y: vb.y, width: vb.width, height: vb.height}, overview);
  const fits = () => { overview.hidden = container.scrollWidth <= container.clientWidth + 1; };
  fits();
  window.addEventListener("resize", fits);
  return overview;
}

// The part of the window the page shows between its sticky header and "now" bar.
function sightLines() {
  const head = document.querySelector("header.bar"), now = document.getElementById("now");
  const top = head ? Math.max(0, head.getBoundingClientRect().bottom) : 0;
  const bottom = now && !now.hidden ? now.getBoundingClientRect().top : window.innerHeight;
  return [top, Math.max(top + 1, bottom)];
}

// Scroll the page so that the point at window height `y` sits in the middle of it.
function scrollIntoSight(y) {
  const [top, bottom] = sightLines();
  window.scrollBy(0, y - (top + bottom) / 2);
}

// Bring a cell of a zoomed maze into view, sideways and down (the mummy after it moved).
function showCell(container, rect) {
  if (!rect || !container.classList.contains("zoomable")) return;
  const outer = container.getBoundingClientRect();
  let box = rect.getBoundingClientRect();
  if (box.left < outer.left || box.right > outer.right) {
    container.scrollLeft += box.left + box.width / 2 - (outer.left + outer.width / 2);
    box = rect.getBoundingClientRect();
  }
  const [top, bottom] = sightLines();
  if (box.top < top || box.bottom > bottom) scrollIntoSight(box.top + box.height / 2);
}
