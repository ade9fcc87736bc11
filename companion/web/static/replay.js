// The replay of a finished game: a timeline to step through or play, the reveal, and
// each seat's view against the truth.  It reads everything from the JSON in
// #replay-data (the page's, or an exported file's: no network, no catalog; every label
// comes with the data).  Needs maze.js's drawMaze and svgEl for the maze.  Plain JS.
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";
  const dataEl = document.getElementById("replay-data");
  if (!dataEl) return;
  const data = JSON.parse(dataEl.textContent);
  const L = data.labels;
  const root = document.getElementById("replay");
  const last = data.frames.length - 1;
  let at = 0, seat = data.seats[0], timer = null;

  function h(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v === true) node.setAttribute(k, "");
      else if (v !== false && v != null) node.setAttribute(k, v);
    }
    for (const c of kids.flat()) if (c != null) node.append(c instanceof Node ? c : String(c));
    return node;
  }
  function s(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));

  // -- controls ------------------------------------------------------------------------
  const status = h("p", {class: "replay-at", role: "status", "aria-live": "polite"});
  const slider = h("input", {type: "range", min: 0, max: last, value: 0, id: "replay-moment",
                             "aria-label": L.moment, oninput: e => go(+e.target.value)});
  const playButton = h("button", {type: "button", class: "primary", id: "replay-play",
                                  "aria-pressed": "false", onclick: () => toggle()}, L.play);
  const button = (label, id, where) => h("button", {type: "button", id, onclick: () => go(where())}, label);
  const controls = h("div", {class: "replay-controls", role: "group", "aria-label": L.moment},
    button(L.start, "replay-first", () => 0), button(L.back, "replay-back", () => at - 1),
    playButton, button(L.forward, "replay-forward", () => at + 1), button(L.end, "replay-last", () => last));
  const seatSelect = h("select", {id: "replay-seat", onchange: e => {
    seat = data.seats.find(x => x.key === e.target.value); draw(); }},
    data.seats.map(x => h("option", {value: x.key}, x.label)));
  const seatBox = h("p", {class: "replay-seat"}, h("label", {for: "replay-seat"}, L.view + " "), seatSelect);
  const board = h("div", {class: "board replay-board"});
  const facts = h("div", {class: "replay-facts"});
  const said = h("section", {class: "replay-said", "aria-labelledby": "replay-said-title"});

  function go(n) {
    at = Math.max(0, Math.min(last, n));
    if (at === last) stop();
    draw();
  }
  function toggle() { if (timer) stop(); else { if (at === last) at = 0; timer = setInterval(() => go(at + 1), 700); playButton.textContent = L.pause; playButton.setAttribute("aria-pressed", "true"); } }
  function stop() { if (timer) clearInterval(timer); timer = null; playButton.textContent = L.play; playButton.setAttribute("aria-pressed", "false"); }

  // -- the maze ------------------------------------------------------------------------
  const CELLPX = 40;
  function xy(node) {
    const m = data.maze;
    if (node >= 0 && node < m.width * m.height) return [(node % m.width + 0.5) * CELLPX, (Math.floor(node / m.width) + 0.5) * CELLPX];
    const room = data.rooms[String(node)];
    return room ? [room[0] * CELLPX, room[1] * CELLPX] : null;
  }
  function pathLine(svg, nodes, cls) {
    const pts = nodes.map(xy).filter(Boolean);
    if (pts.length > 1) s("polyline", {points: pts.map(p => p.join(",")).join(" "), class: cls, fill: "none"}, svg);
  }
  function catchMark(svg, c) {
    const p = xy(c.at); if (!p) return;
    const g = s("g", {class: "catch", role: "img", "aria-label": c.text}, svg);
    s("circle", {cx: p[0], cy: p[1], r: 15, class: "catch-ring"}, g);
    const t = s("text", {x: p[0], y: p[1] + 6, "text-anchor": "middle", class: "catch-x"}, g);
    t.textContent = "\u2715";
  }
  // The maze with room for the start field and the sarcophagus outside it.
  function roomyMaze(container) {
    const drawn = drawMaze(container, data.maze);
    const vb = drawn.svg.viewBox.baseVal;
    drawn.svg.setAttribute("viewBox", `${vb.x} ${vb.y - CELLPX} ${vb.width} ${vb.height + 2 * CELLPX}`);
    for (const room of Object.values(data.rooms)) {
      s("rect", {x: room[0] * CELLPX - CELLPX / 2, y: room[1] * CELLPX - CELLPX / 2, width: CELLPX,
                 height: CELLPX, rx: 6, class: "pad"}, drawn.svg);
    }
    return drawn;
  }
  function mazeBoard(container, frame, view) {
    const drawn = roomyMaze(container);
    const svg = drawn.svg;
    svg.setAttribute("aria-label", data.title);
    if (view.aid && frame.aid) {
      frame.aid.forEach((fig, f) => fig.cells.forEach((cell, i) => {
        const p = xy(cell); if (!p) return;
        const w = CELLPX / frame.aid.length;
        s("rect", {x: p[0] - CELLPX / 2 + f * w, y: p[1] - CELLPX / 2, width: w, height: CELLPX,
                   fill: COLOURS[fig.colour] || "#888", "fill-opacity": 0.15 + 0.55 * fig.shade[i], class: "aid"}, svg);
      }));
    }
    pathLine(svg, data.path.slice(0, frame.walked), "mummy-path");
    data.catches.filter(c => c.frame <= at).forEach(c => catchMark(svg, c));
    const m = xy(frame.mummy);
    if (m) {
      const g = s("g", {class: "mummy-mark", role: "img", "aria-label": L.mummy + ": " + data.cells[frame.mummy]}, svg);
      s("rect", {x: m[0] - 13, y: m[1] - 13, width: 26, height: 26, rx: 4, class: "mummy"}, g);
      s("text", {x: m[0], y: m[1] + 5, "text-anchor": "middle", class: "piece-letter dark"}, g).textContent = "M";
    }
    if (!view.board && view.aid && frame.aid) {
      // The truth beside the belief: where each figure really stood, as a dashed ring
      // (figures sharing a room side by side).
      const seen = {};
      frame.positions.forEach((node, f) => {
        const q = xy(node); if (!q) return;
        const k = seen[node] = (seen[node] || 0) + 1;
        const p = [q[0] + (k - 1) * 10, q[1] + (k - 1) * 10];
        const fig = data.figures[f];
        const g = s("g", {class: "real-mark", role: "img", "aria-label": `${fig.name} (${L.real}): ${data.cells[node]}`}, svg);
        s("circle", {cx: p[0], cy: p[1], r: 14, fill: "none", stroke: COLOURS[fig.colour] || "#888", "stroke-width": 3, "stroke-dasharray": "4 3"}, g);
        s("text", {x: p[0], y: p[1] + 5, "text-anchor": "middle", class: "piece-letter"}, g).textContent = fig.name.charAt(0);
      });
    }
    if (view.board) {
      const seen = {};
      frame.positions.forEach((node, f) => {
        const p = xy(node); if (!p) return;
        const k = seen[node] = (seen[node] || 0) + 1;
        const fig = data.figures[f], dx = (k - 1) * 8;
        const g = s("g", {class: "figure-mark", role: "img", "aria-label": fig.name + ": " + data.cells[node]}, svg);
        s("circle", {cx: p[0] + dx, cy: p[1] + dx, r: 11, fill: COLOURS[fig.colour] || "#888", stroke: "#000", "stroke-width": 2}, g);
        s("text", {x: p[0] + dx, y: p[1] + dx + 5, "text-anchor": "middle", class: "piece-letter"}, g).textContent = fig.name.charAt(0);
      });
    }
  }
  function mazeFacts(frame, view) {
    const figures = data.figures.map((fig, f) => {
      const where = view.board ? data.cells[frame.positions[f]] ?? "\u2013" : L.hidden;
      return h("li", {}, h("strong", {}, fig.name), ": " + where);
    });
    const seekers = data.names.map((name, i) => {
      const hand = view.hands.includes(i) ? frame.hands[i].map(c => data.treasures[c].name).join(", ") || "\u2013" : L.hidden;
      const played = frame.played[i].map(c => data.treasures[c].name).join(", ") || "\u2013";
      return h("li", {}, h("strong", {}, name), ` \u2013 ${L.ankhs}: ${frame.ankhs[i]}; ${L.played}: ${played}; ${L.hands}: ${hand}`);
    });
    const parts = [
      h("p", {}, `${L.mummy}: ${data.cells[frame.mummy]} \u2013 ${L.mummy_ankhs}: ${frame.mummy_ankhs}`),
      h("p", {}, `${L.dice}: ${frame.roll.join(", ") || "\u2013"}${frame.announced ? " \u2013 " + L.announced + ": " + frame.announced : ""}`),
      view.board ? h("ul", {class: "replay-figures"}, figures) : h("p", {class: "muted"}, L.figures_hidden),
      h("ul", {class: "replay-seekers"}, seekers),
    ];
    if (view.aid && frame.aid) {
      parts.push(h("section", {class: "replay-aid"}, h("h3", {}, L.aid),
        h("ul", {}, frame.aid.map((fig, f) => h("li", {},
          fill(L.aid_cells, {colour: data.figures[f].name, n: fig.count}),
          fig.start ? ", " + L.aid_start : "",
          " (" + L.real + ": " + (data.cells[frame.positions[f]] ?? "\u2013") + ")")))));
    }
    return parts;
  }

  // -- Loot N Run: the score track over time -------------------------------------------------
  function trackChart(container) {
    const W = 600, H = 260, P = 34, n = last || 1, top = Math.max(data.target, ...data.frames.flatMap(f => f.scores));
    const svg = s("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": L.track});
    const X = i => P + (W - 2 * P) * i / n, Y = v => H - P - (H - 2 * P) * v / top;
    s("line", {x1: P, y1: Y(data.target), x2: W - P, y2: Y(data.target), class: "target"}, svg);
    const DASH = ["", "6 3", "2 3", "10 3 2 3", "1 5", "12 6"];
    data.players.forEach((p, i) => {
      const pts = data.frames.map((f, k) => `${X(k)},${Y(f.scores[i])}`).join(" ");
      s("polyline", {points: pts, fill: "none", stroke: COLOURS[p.colour] || p.colour, "stroke-width": 3,
                     "stroke-dasharray": DASH[i % DASH.length]}, svg);
      const f = data.frames[at];
      s("text", {x: X(at) + 4, y: Y(f.scores[i]) - 4, class: "chart-label"}, svg).textContent = `${p.name} ${f.scores[i]}`;
    });
    s("line", {x1: X(at), y1: P / 2, x2: X(at), y2: H - P, class: "now"}, svg);
    container.replaceChildren(svg);
  }
  function lootFacts(frame) {
    return [h("table", {class: "replay-scores"}, h("caption", {}, L.scores),
      h("tr", {}, h("th", {scope: "col"}, ""), h("th", {scope: "col"}, L.scores), h("th", {scope: "col"}, L.hands)),
      data.players.map((p, i) => h("tr", {}, h("th", {scope: "row"}, p.name), h("td", {}, frame.scores[i]), h("td", {}, frame.cards[i]))))];
  }

  // -- the crypt -----------------------------------------------------------------------
  function cryptBoard(container, frame) {
    const N = data.board.size, C = 40, files = data.board.files;
    const svg = s("svg", {viewBox: `0 0 ${N * C} ${N * C}`, class: "crypt-board", role: "img", "aria-label": data.title});
    const place = name => [files.indexOf(name[0]) * C, (N - parseInt(name.slice(1), 10)) * C];
    for (let r = 0; r < N; r++) for (let c = 0; c < N; c++) {
      const name = files[c] + (N - r);
      const cls = data.board.crypt.includes(name) ? "crypt" : data.board.green.includes(name) ? "green" : "square";
      s("rect", {x: c * C, y: r * C, width: C, height: C, class: cls}, svg);
    }
    frame.locks.forEach(name => { const [x, y] = place(name); s("text", {x: x + C / 2, y: y + C / 2 + 6, "text-anchor": "middle", class: "lock"}, svg).textContent = "\u{1F512}"; });
    frame.players.forEach((p, i) => {
      const colour = COLOURS[data.players[i].colour] || data.players[i].colour, letter = String(data.players[i].name).charAt(0);
      p.cubes.forEach(name => { const [x, y] = place(name);
        s("rect", {x: x + 10, y: y + 10, width: 20, height: 20, fill: colour, stroke: "#000"}, svg);
        s("text", {x: x + C / 2, y: y + C / 2 + 5, "text-anchor": "middle", class: "piece-letter"}, svg).textContent = letter; });
      if (p.meeple) { const [x, y] = place(p.meeple);
        s("circle", {cx: x + C / 2, cy: y + C / 2, r: 14, fill: colour, stroke: "#fff", "stroke-width": 3}, svg);
        s("text", {x: x + C / 2, y: y + C / 2 + 5, "text-anchor": "middle", class: "piece-letter"}, svg).textContent = letter; }
    });
    container.replaceChildren(svg);
  }
  function cryptFacts(frame) {
    return [h("table", {class: "replay-scores"}, h("caption", {}, L.scores),
      data.players.map((p, i) => h("tr", {}, h("th", {scope: "row"}, p.name),
        h("td", {}, frame.players[i].score), h("td", {}, `${L.locks}: ${frame.players[i].locks}`),
        h("td", {}, `${L.meeple}: ${frame.players[i].meeple || "\u2013"}; ${L.cubes}: ${frame.players[i].cubes.join(", ") || "\u2013"}`))))];
  }

  // -- the reveal (the maze: the mummy's whole path and its catches) ----------------------------
  function reveal() {
    const box = h("section", {class: "reveal", "aria-labelledby": "reveal-title"}, h("h2", {id: "reveal-title"}, L.reveal));
    if (data.kind !== "mummy") return null;
    const holder = h("div", {class: "board reveal-board"});
    const drawn = roomyMaze(holder);
    drawn.svg.setAttribute("aria-label", L.path);
    pathLine(drawn.svg, data.path, "mummy-path whole");
    data.path.forEach((node, i) => { const p = xy(node); if (p && i % 5 === 0) {
      s("text", {x: p[0] + 8, y: p[1] - 8, class: "step-no"}, drawn.svg).textContent = String(i); } });
    data.catches.forEach(c => catchMark(drawn.svg, c));
    box.append(
      h("p", {class: "winner"}, data.summary.winner),
      holder,
      h("p", {class: "small"}, data.summary.path_title + " ", h("span", {class: "path"}, data.summary.path.join(" \u2192 "))),
      h("h3", {}, L.catches),
      data.catches.length ? h("ol", {class: "catches"}, data.catches.map(c => h("li", {},
        h("button", {type: "button", class: "link", onclick: () => { stop(); go(c.frame); board.scrollIntoView(); }},
          `${c.text} (${L.moment} ${c.frame})`)))) : h("p", {}, L.no_catch));
    return box;
  }

  function draw() {
    const frame = data.frames[at];
    slider.value = at;
    status.textContent = `${L.moment} ${fill(L.of, {n: at, total: last})}` + (frame.round ? ` \u2013 ${fill(L.round, {n: frame.round})}` : "");
    controls.querySelector("#replay-first").disabled = controls.querySelector("#replay-back").disabled = at === 0;
    controls.querySelector("#replay-last").disabled = controls.querySelector("#replay-forward").disabled = at === last;
    const view = seat;
    if (data.kind === "mummy") { mazeBoard(board, frame, view); facts.replaceChildren(...mazeFacts(frame, view)); }
    else if (data.kind === "lootnrun") { trackChart(board); facts.replaceChildren(...lootFacts(frame)); }
    else { cryptBoard(board, frame); facts.replaceChildren(...cryptFacts(frame)); }
    const lines = frame.said.filter(x => view.secret_events !== false || !x.secret).map(x => h("li", {}, x.text));
    said.replaceChildren(h("h2", {id: "replay-said-title"}, L.said),
      lines.length ? h("ul", {}, lines) : h("p", {class: "muted"}, L.nothing_said));
  }

  const parts = [controls, slider, status, seatBox];
  if (data.seats.length === 1) parts.push(h("p", {class: "small"}, L.open_game));
  root.replaceChildren(h("section", {class: "replay-view", "aria-label": data.title}, ...parts, said, board, facts));
  const shown = reveal();
  if (shown) root.append(shown);
  document.addEventListener("keydown", e => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowRight") { go(at + 1); } else if (e.key === "ArrowLeft") { go(at - 1); }
  });
  draw();
  window.replayGo = go;  // for tests and the export's own check
})();
