// Loot N Run score track: one page for every phone and the shared tablet.
//
// The page only shows what the companion sends (GET /api/view and the live stream) and
// posts what the players enter; all the arithmetic is the engine's (the Run and Awaken
// previews ask /api/preview), so the page never adds anything up itself.
"use strict";

(() => {
  const API = document.body.dataset.api || "/lootnrun/api";
  const SVGNS = "http://www.w3.org/2000/svg";
  const SVG_TAGS = new Set(["svg", "g", "rect", "circle", "path", "text", "line", "polyline", "use", "title"]);
  // The six treasure types of the engine (1 to 6) and the picture the page gives each.
  const TREASURES = [
    { type: 1, name: _("cup") },
    { type: 2, name: _("chest") },
    { type: 3, name: _("gem") },
    { type: 4, name: _("crown") },
    { type: 5, name: _("coin") },
    { type: 6, name: _("key") },
  ];
  const GUARDIANS = [
    { id: "mummy", name: _("Mummy") },
    { id: "werewolf", name: _("Werewolf") },
    { id: "frank", name: _("Frank") },
  ];
  // The checked palette (games/lootnrun/palette.py): the colours offered, and the pairs a
  // colour-blind player cannot tell apart on the board's lights.
  const COLOURS = JSON.parse(document.body.dataset.palette);
  const LOOK_ALIKE = JSON.parse(document.body.dataset.lookAlike);
  const alike = (a, b) => LOOK_ALIKE.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
  // The colour for one more player: the first free one like none taken, else the first free.
  const nextColour = (taken) => {
    const free = COLOURS.filter((c) => !taken.includes(c));
    return free.find((c) => !taken.some((t) => alike(c, t))) || free[0] || COLOURS[0];
  };
  const MAX_SYMBOLS = 3;
  const MAX_AMULETS = 3;
  const TOAST_MS = 4500;

  let view = null; // the last view from the companion
  let sheet = null; // the entry in progress (run, awaken, reveal, correction) or null
  let setupOpen = false; // the new-game form is open over a game
  let historyTab = "list";
  let previewSeq = 0;
  let busy = false;
  let track = null; // the drawn score track: {key, svg, tokens, cols}

  // -- small helpers ------------------------------------------------------------------

  function h(tag, props, ...kids) {
    const node = SVG_TAGS.has(tag) ? document.createElementNS(SVGNS, tag) : document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.append(kid instanceof Node ? kid : String(kid));
    }
    return node;
  }

  function icon(id, cls) {
    return h("svg", { class: cls || "icon", viewBox: "0 0 24 24", "aria-hidden": "true" }, h("use", { href: `#${id}` }));
  }

  const $ = (id) => document.getElementById(id);
  // "1 card" / "3 cards" in the page's language: both forms are catalog texts.
  const counted = (n, one, many) => (n === 1 ? _(one) : _(many, { n }));
  const cards = (n) => counted(n, "1 card", "{n} cards");
  const points = (n) => counted(n, "1 point", "{n} points");
  const colourName = (c) => _(c.charAt(0).toUpperCase() + c.slice(1));
  const player = (i) => (view && view.players[i]) || { name: "?", rgb: "#888", score: 0, cards: 0 };
  const treasureName = (type) => TREASURES[type - 1].name;

  // The engine names the types "type 1" .. "type 6"; the page shows its pictures' names.
  const TYPE_TEXT = _("type {n}", { n: "([1-6])" });
  const TYPE_WORD = new RegExp("\\b" + TYPE_TEXT + "\\b", "g");
  function wording(text) {
    return String(text).replace(TYPE_WORD, (m, n) => treasureName(Number(n)));
  }

  function initial(name) {
    return (name.trim()[0] || "?").toUpperCase();
  }

  // A readable letter on a token of any colour.
  function inkFor(rgb) {
    const n = parseInt(rgb.slice(1), 16);
    const r = (n >> 16) & 255, g = (n >> 8) & 255, b = n & 255;
    return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#1b1712" : "#ffffff";
  }

  function tokenDot(p, size) {
    const s = size || 28;
    return h("svg", { class: "dot", width: s, height: s, viewBox: "0 0 28 28", "aria-hidden": "true" },
      h("circle", { cx: 14, cy: 14, r: 12, fill: p.rgb, stroke: "#f3ead8", "stroke-width": 2 }),
      h("text", { x: 14, y: 18.5, "text-anchor": "middle", fill: inkFor(p.rgb), "font-size": 13, "font-weight": 700, text: initial(p.name) }));
  }

  let toastTimer = 0;
  function toast(text, kind) {
    const node = $("toast");
    node.textContent = text;
    node.className = `toast ${kind || ""}`;
    node.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { node.hidden = true; }, TOAST_MS);
  }

  // -- talking to the companion -------------------------------------------------------

  async function call(path, body) {
    const options = body === undefined ? {} : {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    };
    let res;
    try {
      res = await fetch(API + path, options);
    } catch (err) {
      throw new Error(_("The companion cannot be reached: check the phone is on its Wi-Fi. The page reconnects by itself."));
    }
    let data;
    try {
      data = await res.json();
    } catch (err) {
      data = { error: _("The companion answered {status}.", { status: res.status }) };
    }
    if (!res.ok) throw new Error(data.error || _("The companion answered {status}.", { status: res.status }));
    return data;
  }

  // Post an entry; the answer carries the new view.  Buttons are blocked meanwhile so a
  // double tap cannot enter a turn twice.
  async function post(path, body) {
    if (busy) return null;
    busy = true;
    document.body.classList.add("busy");
    try {
      const data = await call(path, body);
      if (data.view) accept(data.view);
      return data;
    } finally {
      busy = false;
      document.body.classList.remove("busy");
    }
  }

  async function command(body) {
    return post("/command", body);
  }

  // -- the view -----------------------------------------------------------------------

  function accept(next) {
    if (olderView(view, next)) return;  // menu.js
    const before = view;
    view = next;
    announce(before, next);
    checkSheet(before);
    render();
    if (sheet && sheet.kind !== "correction") renderSheet(); // scores shown in the sheet
  }

  function announce(before, next) {
    if (!before || before.game_id !== next.game_id || !next.history) return;
    const had = (before.history || []).length;
    const now = next.history.length;
    if (now > had) {
      toast(wording(next.history[now - 1].text));
    } else if (now < had && (next.events || []).some((e) => e.kind === "undone")) {
      toast(_("Taken back: {what}", { what: wording(before.history[had - 1].text) }), "undo");
    }
  }

  // An entry in progress that the game has moved past is closed (another phone entered it).
  function checkSheet(before) {
    if (!sheet || !view || sheet.submitting) return;
    let stale = false;
    if (view.phase === "setup" || (before && before.game_id !== view.game_id)) stale = true;
    else if (sheet.kind === "run" || sheet.kind === "awaken") stale = view.phase !== "playing" || view.current !== sheet.player;
    else if (sheet.kind === "reveal") stale = !view.actions.final_reveal.includes(sheet.player);
    if (stale) {
      closeSheet();
      toast(view.current_name ? _("The game moved on: it is {name}'s turn.", { name: view.current_name }) : _("The game moved on."), "warn");
    }
  }

  function render() {
    $("loading").hidden = true;
    $("app").removeAttribute("aria-busy");
    renderBoardToggle();
    const noGame = view.phase === "setup";
    $("setup").hidden = !(noGame || setupOpen);
    $("game").hidden = noGame || setupOpen;
    if (noGame || setupOpen) {
      showEnd(null);
      if (!$("setup-players").children.length) fillSetup();
      $("setup-warning").hidden = noGame || view.phase === "game_over";
      $("setup-cancel").hidden = noGame;
      return;
    }
    renderTurn();
    renderTrack();
    renderPlayers();
    renderActions();
    renderTools();
    renderHistory();
    renderEnd();
  }

  function renderBoardToggle() {
    const button = $("board-toggle");
    const hasGame = view.phase !== "setup";
    // Only the host gives the board away (anyone else's tap would only be refused).
    button.hidden = !hasGame || document.body.dataset.host !== "1";
    if (view.board) followBoard(view.board.active_game);
    const active = view.board && view.board.active;
    button.textContent = active ? _("Back to the maze") : _("Show on the board");
    button.classList.toggle("on", Boolean(active));
    button.setAttribute("aria-pressed", active ? "true" : "false");
    $("maze-paused").hidden = !(view.board && view.board.maze_paused);
    // Another game has the board: the page names it (it follows every switch).
    const holder = view.board && !active ? view.board.active_game : null;
    const names = {mummy: _("the mummy maze"), lootnrun: _("Loot N Run"), crypt: _("Into the Crypt"), boardcheck: _("the board check")};
    // Said once: the menu's "The board plays … now" (menu.js) already names a game it
    // can open, so this line is for the others only (the board check).
    $("board-holder").hidden = !holder || !$("board-moved").hidden;
    $("board-holder").textContent = holder ? _("The board plays {game}.", {game: names[holder] || holder}) : "";
  }

  function renderTurn() {
    const node = $("turn");
    node.replaceChildren();
    node.style.removeProperty("--who");
    if (view.phase === "playing" || view.phase === "werewolf_keep") {
      const p = player(view.current);
      node.style.setProperty("--who", p.rgb);
      node.append(tokenDot(p, 34), h("span", { class: "who", text: _("{name}'s turn", { name: p.name }) }));
      if (view.extra_turn) node.append(h("span", { class: "badge", text: _("extra turn (Frank)") }));
      node.append(h("span", { class: "turn-no", text: _("turn {n}", { n: view.turn }) }));
    } else if (view.phase === "final_reveal") {
      node.append(h("span", { class: "who", text: _("Final reveal") }),
        h("span", { class: "turn-no", text: _("target {n} reached", { n: view.target }) }));
    }
    node.hidden = view.phase === "game_over"; // the final screen says it all
  }

  // -- the score track ----------------------------------------------------------------

  const CELL = 60;
  const GAP = 6;

  function trackColumns() {
    const width = $("track").clientWidth || 360;
    return width >= 480 ? 9 : 6;
  }

  // Where space ``i`` of the track is drawn: rows of ``cols`` cells, snaking.
  function spaceXY(i, cols) {
    const row = Math.floor(i / cols);
    const k = i % cols;
    const col = row % 2 === 0 ? k : cols - 1 - k;
    return [col * (CELL + GAP) + CELL / 2 + GAP / 2, row * (CELL + GAP) + CELL / 2 + GAP / 2];
  }

  const OFFSETS = {
    1: [[0, 0]],
    2: [[-13, 0], [13, 0]],
    3: [[-13, -9], [13, -9], [0, 12]],
    4: [[-12, -12], [12, -12], [-12, 12], [12, 12]],
    5: [[-16, -12], [0, -12], [16, -12], [-8, 12], [8, 12]],
    6: [[-16, -12], [0, -12], [16, -12], [-16, 12], [0, 12], [16, 12]],
  };
  const RADIUS = { 1: 18, 2: 13, 3: 11, 4: 11, 5: 9, 6: 9 };
  // Tokens sit a little below the middle of a space, clear of its number.
  const TOKEN_DROP = 5;

  function renderTrack() {
    const cols = trackColumns();
    const target = view.target;
    const key = [cols, target, view.game_id, view.players.map((p) => p.rgb + p.name).join()].join("|");
    if (!track || track.key !== key) buildTrack(key, cols, target);
    // Group the tokens by space; tokens sharing a space sit side by side.
    const bySpace = new Map();
    for (const p of view.players) {
      const space = Math.min(Math.max(p.score, 0), target);
      if (!bySpace.has(space)) bySpace.set(space, []);
      bySpace.get(space).push(p.index);
    }
    for (const [space, players] of bySpace) {
      const [cx, cy] = spaceXY(space, cols);
      const offsets = OFFSETS[Math.min(players.length, 6)];
      const r = RADIUS[Math.min(players.length, 6)];
      players.forEach((index, k) => {
        const token = track.tokens[index];
        const [dx, dy] = offsets[k % offsets.length];
        token.style.transform = `translate(${cx + dx}px, ${cy + dy + TOKEN_DROP}px)`;
        token.querySelector("circle").setAttribute("r", r);
        token.querySelector("text").setAttribute("font-size", Math.round(r * 1.05));
        token.querySelector("text").setAttribute("y", Math.round(r * 0.38));
        token.classList.toggle("current", index === view.current);
        token.classList.toggle("winner", view.players[index].winner);
      });
    }
  }

  function buildTrack(key, cols, target) {
    const spaces = target + 1;
    const rows = Math.ceil(spaces / cols);
    const width = cols * (CELL + GAP);
    const height = rows * (CELL + GAP);
    const svg = h("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": _("score track from 0 to {n}", { n: target }) });
    const centres = Array.from({ length: spaces }, (_, i) => spaceXY(i, cols));
    svg.append(h("polyline", { class: "track-line", points: centres.map(([x, y]) => `${x},${y}`).join(" ") }));
    centres.forEach(([x, y], i) => {
      let cls = "space";
      if (i === target) cls += " goal";
      else if (i % 5 === 0) cls += " five";
      svg.append(h("rect", { class: cls, x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, rx: 9 }));
      svg.append(h("text", { class: "space-no", x: x - CELL / 2 + 6, y: y - CELL / 2 + 15, text: i }));
    });
    const tokens = view.players.map((p) => {
      const g = h("g", { class: "token", "data-player": p.index },
        h("title", { text: `${p.name}` }),
        h("circle", { r: 19, fill: p.rgb }),
        h("text", { "text-anchor": "middle", fill: inkFor(p.rgb), text: initial(p.name) }));
      svg.append(g);
      return g;
    });
    const box = $("track");
    box.replaceChildren(svg, h("p", { class: "track-caption", text: _("Goal: {n} points. Reaching it ends the game.", { n: target }) }));
    track = { key, svg, tokens, cols };
    // The first placement does not slide in from the corner.
    svg.classList.add("still");
    requestAnimationFrame(() => requestAnimationFrame(() => svg.classList.remove("still")));
  }

  window.addEventListener("resize", () => {
    if (view && track && track.cols !== trackColumns()) renderTrack();
  });

  // -- players ------------------------------------------------------------------------

  function renderPlayers() {
    const list = $("players");
    list.replaceChildren(...view.players.map((p) => {
      const facts = [cards(p.cards)];
      if (view.phase === "playing" || view.phase === "werewolf_keep") facts.push(p.to_target ? _("{n} to go", { n: p.to_target }) : _("at the goal"));
      if (view.phase === "final_reveal") facts.push(p.revealed ? _("revealed") : _("to reveal"));
      return h("li", { class: `player${p.is_current ? " current" : ""}${p.winner ? " winner" : ""}`, style: `--who:${p.rgb}` },
        tokenDot(p, 30),
        h("span", { class: "name" }, h("b", { text: p.name }), h("small", { text: facts.join(" · ") })),
        p.winner ? h("span", { class: "badge win", text: _("wins") }) : null,
        h("span", { class: "score", "aria-label": `${p.score} points`, text: p.score }));
    }));
  }

  // -- the actions --------------------------------------------------------------------

  function bigButton(id, title, sub, onclick, disabled) {
    return h("button", { id, class: "big", type: "button", disabled: disabled || false, onclick },
      h("b", { text: title }), h("small", { text: sub }));
  }

  function renderActions() {
    const box = $("actions");
    const a = view.actions;
    const me = view.current !== null ? player(view.current) : null;
    box.replaceChildren();
    if (view.phase === "playing") {
      const row = h("div", { class: "action-row" },
        bigButton("act-loot", _("Loot"), _("draw a card"), () => command({ cmd: "loot", player: view.current }).catch(fail)),
        bigButton("act-run", _("Run"), _("reveal & score"), () => openSheet({ kind: "run", player: view.current }), !a.run),
        bigButton("act-awaken", _("Awaken"), _("another player"), () => openSheet({ kind: "awaken", player: view.current }), !a.awaken.length));
      box.append(row);
      if (a.must_loot) {
        const why = a.awaken.length ? _("Loot (or Awaken: no card needed with 2 players)") : _("Loot is forced");
        box.append(h("p", { class: "hint" }, _("{name} has no cards by the companion's count: {why}.", { name: me.name, why }) + " ",
          h("button", { class: "link", type: "button", onclick: () => openSheet({ kind: "correction", player: view.current, setCards: true }) }, _("Fix the card count"))));
      }
    } else if (view.phase === "werewolf_keep") {
      box.append(h("div", { class: "panel step" },
        h("p", {}, icon("werewolf", "icon big-icon"), h("b", { text: _("Werewolf: {name} draws one card from each pile.", { name: me.name }) })),
        h("p", { text: _("How many of the two does {name} keep?", { name: me.name }) }),
        h("div", { class: "action-row" }, a.werewolf_keep.map((n) =>
          h("button", { class: "big", type: "button", id: `keep-${n}`, onclick: () => command({ cmd: "werewolf_keep", kept: n, player: view.current }).catch(fail) },
            h("b", { text: _("Keep {n}", { n }) }), h("small", { text: n === 0 ? _("discard both") : n === 1 ? _("discard one") : _("keep both") }))))));
    } else if (view.phase === "final_reveal") {
      const ender = view.ended_by !== null ? player(view.ended_by).name : _("A player");
      box.append(h("div", { class: "panel step" },
        h("p", {}, h("b", { text: _("{name} reached {n} points.", { name: ender, n: view.target }) }), " " + _("Every player now reveals their remaining cards and scores them as a Run.")),
        h("div", { class: "reveal-list" }, view.players.map((p) => p.revealed
          ? h("span", { class: "done", style: `--who:${p.rgb}` }, tokenDot(p, 24), `${p.name}: revealed`)
          : h("button", { type: "button", class: "reveal", id: `reveal-${p.index}`, style: `--who:${p.rgb}`,
              // No cards left: nothing to enter or confirm, one tap reveals nothing.
              onclick: () => p.cards ? openSheet({ kind: "reveal", player: p.index })
                : command({ cmd: "final_reveal", player: p.index, cards: [] }).catch(fail) },
            tokenDot(p, 24), p.cards ? _("{name} reveals", { name: p.name }) : _("{name}: no cards to reveal", { name: p.name }))))));
    }
  }

  // The end screen (end.js, as the maze's): the winner and the summary above everything,
  // on every page; the host's buttons under it.
  function renderEnd() {
    showEnd(view.summary, view.host ? endButtons : null);
  }

  function endButtons() {
    const last = view.history[view.history.length - 1];
    return [
      h("button", { class: "primary", type: "button", id: "rematch", onclick: () => rematch() }, _("Rematch (same seats)")),
      h("button", { type: "button", id: "new-game", onclick: () => openSetup() }, _("New game")),
      h("a", { class: "button", href: "/host/games" }, _("Past games")),
      last ? h("button", { type: "button", id: "end-undo", onclick: askUndo }, _("Undo: {action}", { action: wording(last.text) })) : null,
    ].filter(Boolean);
  }

  // The same players and colours play again in one tap (the first in the order starts,
  // as at the set-up).
  async function rematch() {
    const players = view.players.map((p) => ({ name: p.name, colour: p.colour }));
    const first = 0;
    try {
      const data = await post("/new", { players, first, show_on_board: $("setup-board").checked });
      if (data) {
        render();
        toast(_("New game: {name} starts.", { name: players[first].name }));
      }
    } catch (err) {
      toast(err.message);
    }
  }

  function renderTools() {
    $("tool-undo").disabled = !view.actions.undo;
    $("tool-correct").disabled = !view.actions.correction; // nothing is entered after the end
    const last = view.history.length ? view.history[view.history.length - 1] : null;
    $("tool-undo").title = last ? _("Undo: {action}", { action: wording(last.text) }) : _("Nothing to undo.");
  }

  // -- history and chart --------------------------------------------------------------

  function renderHistory() {
    $("tab-list").setAttribute("aria-selected", historyTab === "list" ? "true" : "false");
    $("tab-chart").setAttribute("aria-selected", historyTab === "chart" ? "true" : "false");
    $("history-list").hidden = historyTab !== "list";
    $("chart").hidden = historyTab !== "chart";
    if (historyTab === "chart") { renderChart(); return; }
    const items = [...view.history].reverse().map((e) => {
      const gains = e.gains.filter((g) => g.points !== 0).map((g) =>
        h("span", { class: "gain", style: `--who:${player(g.player).rgb}` }, `${g.points > 0 ? "+" : ""}${g.points} ${player(g.player).name}`));
      const run = e.gains.length && e.gains[0].run ? e.gains[0].run : null;
      const doubled = run ? run.doubled_types.map((t) => h("span", { class: "doubled-chip", title: _("{treasure} doubled", { treasure: treasureName(t) }) }, icon(`t${t}`, "icon tiny"), "x2")) : [];
      return h("li", { class: `entry ${e.action}`, style: `--who:${player(e.player).rgb}` },
        h("span", { class: "entry-turn", text: e.action === "correction" || e.action === "final_reveal" ? "·" : `T${e.turn}` }),
        h("span", { class: "entry-text" }, wording(e.text), doubled.length ? h("span", { class: "chips" }, doubled) : null),
        gains.length ? h("span", { class: "gains" }, gains) : null);
    });
    if (!items.length) items.push(h("li", { class: "muted empty", text: _("Nothing entered yet.") }));
    $("history-list").replaceChildren(...items);
  }

  function renderChart() {
    const chart = view.chart;
    const points = chart.points;
    const W = 340, H = 210, L = 30, R = 12, T = 12, B = 28;
    const top = Math.max(chart.target, ...points.flatMap((p) => p.scores)) ;
    const yMax = Math.ceil(top / 5) * 5;
    const x = (i) => L + (points.length > 1 ? (i * (W - L - R)) / (points.length - 1) : (W - L - R) / 2);
    const y = (s) => T + (H - T - B) * (1 - s / yMax);
    const svg = h("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": _("scores over the turns") });
    for (let s = 0; s <= yMax; s += 5) {
      svg.append(h("line", { class: s % 10 === 0 ? "grid major" : "grid", x1: L, x2: W - R, y1: y(s), y2: y(s) }));
      if (s % 10 === 0) svg.append(h("text", { class: "axis", x: L - 5, y: y(s) + 4, "text-anchor": "end", text: s }));
    }
    svg.append(h("line", { class: "goal-line", x1: L, x2: W - R, y1: y(chart.target), y2: y(chart.target) }));
    svg.append(h("text", { class: "axis goal-text", x: W - R, y: y(chart.target) - 4, "text-anchor": "end", text: `goal ${chart.target}` }));
    svg.append(h("text", { class: "axis", x: L, y: H - 8, text: _("start") }));
    if (points.length > 1) svg.append(h("text", { class: "axis", x: W - R, y: H - 8, "text-anchor": "end", text: points[points.length - 1].label }));
    chart.players.forEach((name, p) => {
      const line = points.map((pt, i) => `${x(i)},${y(pt.scores[p])}`).join(" ");
      svg.append(h("polyline", { class: "halo", points: line }));
      svg.append(h("polyline", { class: "series", points: line, stroke: chart.rgb[p] }));
      const last = points.length - 1;
      svg.append(h("circle", { cx: x(last), cy: y(points[last].scores[p]), r: 4, fill: chart.rgb[p], stroke: "#f3ead8", "stroke-width": 1.5 }));
    });
    const legend = h("ul", { class: "legend" }, view.players.map((p) => h("li", {}, tokenDot(p, 20), `${p.name} ${p.score}`)));
    $("chart").replaceChildren(svg, legend);
  }

  // -- the entry sheet: Run calculator, Awaken helper, final reveal, correction ---------

  const emptyCard = () => ({ treasures: [0, 0, 0, 0, 0, 0], amulets: 0, guardian: null });
  const symbols = (card) => card.treasures.reduce((a, b) => a + b, 0);
  const filledCards = () => sheet.cards.filter((c) => symbols(c) > 0);

  function openSheet(spec) {
    sheet = { cards: [emptyCard()], editing: 0, preview: null, problems: [], ...spec };
    if (spec.kind === "correction") {
      sheet.points = 0;
      sheet.reason = "";
      sheet.setCards = Boolean(spec.setCards);
      sheet.cardCount = player(spec.player).cards;
    }
    if (spec.kind === "awaken") {
      const targets = view.actions.awaken;
      sheet.target = targets.length === 1 ? targets[0] : null;
    }
    $("sheet-error").textContent = "";
    $("toast").hidden = true; // news from before this entry would cover its title
    $("sheet").hidden = false;
    document.body.classList.add("sheet-open");
    renderSheet();
    refreshPreview();
    $("sheet").scrollTop = 0;
  }

  function closeSheet() {
    sheet = null;
    $("sheet").hidden = true;
    document.body.classList.remove("sheet-open");
  }

  function renderSheet() {
    if (!sheet) return;
    const me = player(sheet.player);
    const body = $("sheet-body");
    const title = $("sheet-title");
    const confirm = $("sheet-confirm");
    title.replaceChildren();
    body.replaceChildren();
    if (sheet.kind === "run") {
      title.append(tokenDot(me, 28), _("Run: {name}", { name: me.name }));
      body.append(h("p", { class: "muted", text: _("Tap the treasures on each card {name} reveals, card by card.", { name: me.name }) }), cardEditor(false), runPreview(me));
      const pts = sheet.preview && sheet.preview.run ? sheet.preview.run.points : null;
      confirm.textContent = pts === null ? _("Run") : _("Run: {points}", { points: points(pts) });
      confirm.disabled = !filledCards().length;
    } else if (sheet.kind === "reveal") {
      title.append(tokenDot(me, 28), _("Final reveal: {name}", { name: me.name }));
      body.append(h("p", { class: "muted", text: _("Tap the treasures on each card {name} still has. No cards left? Tap “No cards”.", { name: me.name }) }), cardEditor(false), runPreview(me));
      const filled = filledCards().length;
      const pts = filled && sheet.preview && sheet.preview.run ? sheet.preview.run.points : 0;
      confirm.textContent = filled ? _("Reveal: {points}", { points: points(pts) }) : _("No cards: reveal nothing");
      confirm.disabled = false;
    } else if (sheet.kind === "awaken") {
      title.append(tokenDot(me, 28), _("Awaken: {name}", { name: me.name }));
      body.append(targetChooser(me));
      if (sheet.target !== null) {
        const them = player(sheet.target);
        body.append(h("p", { class: "muted", text: _("Tap what each of {name}'s cards shows: treasures, amulets and the guardian.", { name: them.name }) }), cardEditor(true), awakenPreview(me, them));
        confirm.textContent = _("Awaken {name}", { name: them.name });
      } else {
        confirm.textContent = _("Awaken");
      }
      confirm.disabled = sheet.target === null || !filledCards().length;
    } else if (sheet.kind === "correction") {
      title.append(_("+N correction"));
      body.append(correctionForm());
      confirm.textContent = _("Apply the correction");
      confirm.disabled = !(sheet.reason.trim() && (sheet.points !== 0 || sheet.setCards));
    }
  }

  function cardEditor(withGuardians) {
    const doubled = new Set(sheet.preview && sheet.preview.run ? sheet.preview.run.doubled_types : []);
    const cards = h("ol", { class: "cards" }, sheet.cards.map((card, i) => {
      const editing = i === sheet.editing;
      const syms = [];
      card.treasures.forEach((n, t) => {
        for (let k = 0; k < n; k++) {
          syms.push(h("button", {
            type: "button", class: `sym${doubled.has(t + 1) ? " doubled" : ""}`, "aria-label": _("remove a {treasure} from card {n}", { treasure: treasureName(t + 1), n: i + 1 }),
            onclick: (ev) => { ev.stopPropagation(); sheet.editing = i; card.treasures[t] -= 1; changed(); },
          }, icon(`t${t + 1}`)));
        }
      });
      const extras = [];
      for (let k = 0; k < card.amulets; k++) extras.push(icon("amulet", "icon small"));
      if (card.guardian) extras.push(icon(card.guardian, "icon small guardian"));
      return h("li", { class: `card${editing ? " editing" : ""}${symbols(card) ? "" : " empty"}`, onclick: () => { sheet.editing = i; changed(); } },
        h("span", { class: "card-no", text: _("Card {n}", { n: i + 1 }) }),
        h("span", { class: "syms" }, syms.length ? syms : h("span", { class: "muted", text: editing ? "tap treasures below" : "empty" })),
        extras.length ? h("span", { class: "extras" }, extras) : null);
    }));
    const card = sheet.cards[sheet.editing];
    const full = symbols(card) >= MAX_SYMBOLS;
    const pad = h("div", { class: "pad", role: "group", "aria-label": _("treasures on card {n}", { n: sheet.editing + 1 }) }, TREASURES.map((tr) =>
      h("button", {
        type: "button", class: "treasure", "data-type": tr.type, disabled: full, "aria-label": _("{treasure} (type {n})", { treasure: tr.name, n: tr.type }),
        onclick: () => { card.treasures[tr.type - 1] += 1; changed(); },
      }, icon(`t${tr.type}`, "icon pad-icon"), h("small", { text: tr.name }))));
    const parts = [cards, pad];
    if (full) parts.push(h("p", { class: "hint", text: _("A card shows at most {n} treasures: tap “Next card” for the next one.", { n: MAX_SYMBOLS }) }));
    if (withGuardians) {
      parts.push(h("div", { class: "extras-edit" },
        h("div", { class: "stepper", role: "group", "aria-label": _("amulets on this card") },
          icon("amulet", "icon"), h("span", { text: _("Amulets") }),
          h("button", { type: "button", "aria-label": _("one amulet less"), disabled: card.amulets <= 0, onclick: () => { card.amulets -= 1; changed(); } }, "−"),
          h("b", { class: "count", text: card.amulets }),
          h("button", { type: "button", "aria-label": _("one amulet more"), disabled: card.amulets >= MAX_AMULETS, onclick: () => { card.amulets += 1; changed(); } }, "+")),
        h("div", { class: "guardians", role: "radiogroup", "aria-label": _("guardian on this card") },
          h("button", { type: "button", role: "radio", "aria-checked": card.guardian === null ? "true" : "false", onclick: () => { card.guardian = null; changed(); } }, _("No guardian")),
          GUARDIANS.map((g) => h("button", {
            type: "button", role: "radio", "data-guardian": g.id, "aria-checked": card.guardian === g.id ? "true" : "false",
            onclick: () => { card.guardian = g.id; changed(); },
          }, icon(g.id), g.name)))));
    }
    const last = sheet.cards[sheet.cards.length - 1];
    parts.push(h("div", { class: "row card-tools" },
      h("button", {
        type: "button", id: "next-card", disabled: !symbols(last),
        onclick: () => { sheet.cards.push(emptyCard()); sheet.editing = sheet.cards.length - 1; changed(); },
      }, _("Next card")),
      h("button", {
        type: "button", id: "remove-card", disabled: sheet.cards.length === 1 && !symbols(card) && !card.amulets && !card.guardian,
        onclick: () => {
          sheet.cards.splice(sheet.editing, 1);
          if (!sheet.cards.length) sheet.cards.push(emptyCard());
          sheet.editing = Math.min(sheet.editing, sheet.cards.length - 1);
          changed();
        },
      }, _("Remove card {n}", { n: sheet.editing + 1 }))));
    return h("div", { class: "editor" }, parts);
  }

  function breakdown(run) {
    if (!run || !run.types.length) return h("p", { class: "muted", text: _("No treasures yet.") });
    return h("ul", { class: "breakdown" }, run.types.map((t) =>
      h("li", { class: t.doubled ? "doubled" : "" },
        icon(`t${t.type}`, "icon"),
        h("span", { text: _("{n} × {treasure} on {cards}", { n: t.symbols, treasure: treasureName(t.type), cards: cards(t.cards) }) }),
        t.doubled ? h("span", { class: "x2", text: _("doubled") }) : null,
        h("b", { text: `${t.points}` }))));
  }

  function runPreview(me) {
    const run = sheet.preview && sheet.preview.run;
    const pts = run ? run.points : 0;
    const after = me.score + pts;
    const box = h("div", { class: "preview", "aria-live": "polite" },
      h("div", { class: "total" }, h("span", { id: "preview-points", class: "points", text: pts }), h("span", { text: pts === 1 ? " point" : " points" })),
      breakdown(run),
      h("p", { class: "move", text: `${me.name}: ${me.score} → ${after}` }));
    if (sheet.kind === "run" && after >= view.target) box.append(h("p", { class: "goal", text: `${me.name} reaches ${view.target}: then everyone reveals their remaining cards.` }));
    if (sheet.problems.length) box.append(h("p", { class: "error", text: sheet.problems.join("; ") }));
    return box;
  }

  function targetChooser(me) {
    const targets = view.actions.awaken;
    return h("div", { class: "targets", role: "radiogroup", "aria-label": _("whom to awaken") },
      h("p", { class: "label", text: _("Whom does {name} awaken?", { name: me.name }) }),
      h("div", { class: "target-row" }, targets.map((i) => {
        const p = player(i);
        return h("button", {
          type: "button", role: "radio", class: "target", id: `target-${i}`, "aria-checked": sheet.target === i ? "true" : "false", style: `--who:${p.rgb}`,
          onclick: () => { sheet.target = i; sheet.cards = [emptyCard()]; sheet.editing = 0; changed(); },
        }, tokenDot(p, 26), h("span", {}, h("b", { text: p.name }), h("small", { text: cards(p.cards) })));
      })));
  }

  function awakenPreview(me, them) {
    const out = sheet.preview && sheet.preview.outcome;
    const box = h("div", { class: "preview awaken", "aria-live": "polite" });
    if (!out) { box.append(h("p", { class: "muted", text: _("Enter the cards to see what happens.") })); return box; }
    box.append(h("div", { class: "versus" },
      h("span", {}, icon("amulet"), h("b", { text: out.amulets }), " " + (out.amulets === 1 ? _("amulet") : _("amulets"))),
      h("span", { class: "vs", text: out.escaped ? "≥" : "<" }),
      h("span", {}, h("b", { text: out.guardians }), " " + (out.guardians === 1 ? _("guardian") : _("guardians")), out.guardian_types.map((g) => icon(g)))));
    if (out.escaped) {
      box.append(h("p", { class: "verdict escape" }, h("b", { text: _("{name} escapes!", { name: them.name }) }),
        " " + _("{them} scores the cards as a Run: {points} ({before} → {after}), and {name} gets nothing.",
                { them: them.name, points: points(out.run.points), before: them.score, after: them.score + out.run.points, name: me.name })),
        breakdown(out.run));
      return box;
    }
    box.append(h("p", { class: "verdict caught" }, h("b", { text: _("{name} is caught!", { name: them.name }) }),
      " " + _("{them} discards everything and scores nothing. {name} gets, in this order:", { them: them.name, name: me.name })));
    const mummyPts = out.run.points;
    const reaches = out.benefits.includes("mummy") && me.score + mummyPts >= view.target;
    const steps = GUARDIANS.map((g, k) => {
      const on = out.benefits.includes(g.id);
      const lapsed = on && reaches && g.id !== "mummy";
      let text;
      if (g.id === "mummy") text = _("{name} scores {them}'s cards as a Run: {points} ({before} → {after}).", { name: me.name, them: them.name, points: points(mummyPts), before: me.score, after: me.score + mummyPts });
      else if (g.id === "werewolf") text = _("{name} draws one card from each pile and keeps 0, 1 or 2 (asked next).", { name: me.name });
      else text = _("{name} plays one extra turn.", { name: me.name });
      return h("li", { class: on ? (lapsed ? "lapsed" : "on") : "off" },
        icon(g.id), h("span", {}, h("b", { text: `${k + 1}. ${g.name}` }), on ? ` ${text}` : " " + _("not revealed"), lapsed ? " " + _("(lapses: the game has ended)") : ""));
    });
    box.append(h("ol", { class: "benefits" }, steps));
    if (reaches) box.append(h("p", { class: "goal", text: `${me.name} reaches ${view.target} with the Mummy: the game ends and everyone reveals.` }));
    if (out.benefits.includes("mummy")) box.append(breakdown(out.run));
    return box;
  }

  function correctionForm() {
    const p = player(sheet.player);
    const reasons = [_("Miscounted"), _("Forgot to enter it"), _("Wrong card entered")];
    return h("div", { class: "correction" },
      h("p", { class: "label", text: _("Whose score?") }),
      h("div", { class: "target-row", role: "radiogroup" }, view.players.map((q) => h("button", {
        type: "button", role: "radio", class: "target", "aria-checked": sheet.player === q.index ? "true" : "false", style: `--who:${q.rgb}`,
        onclick: () => { sheet.player = q.index; sheet.cardCount = q.cards; renderSheet(); },
      }, tokenDot(q, 26), h("span", {}, h("b", { text: q.name }), h("small", { text: points(q.score) }))))),
      h("div", { class: "stepper points-stepper", role: "group", "aria-label": _("points") },
        [-5, -1].map((d) => h("button", { type: "button", onclick: () => { sheet.points = Math.max(sheet.points + d, -p.score); renderSheet(); } }, `${d}`)),
        h("b", { class: "count", id: "correction-points", text: `${sheet.points > 0 ? "+" : ""}${sheet.points}` }),
        [1, 5].map((d) => h("button", { type: "button", onclick: () => { sheet.points += d; renderSheet(); } }, `+${d}`))),
      h("p", { class: "move", text: `${p.name}: ${p.score} → ${p.score + sheet.points}` }),
      h("p", { class: "label", text: _("Why?") }),
      h("div", { class: "chips-row" }, reasons.map((r) => h("button", { type: "button", class: "chip", onclick: () => { sheet.reason = r; renderSheet(); } }, r))),
      h("input", {
        type: "text", id: "correction-reason", value: sheet.reason, placeholder: _("reason (shown in the history)"), maxlength: 120, "aria-label": _("reason"),
        oninput: (ev) => { sheet.reason = ev.target.value; $("sheet-confirm").disabled = !(sheet.reason.trim() && (sheet.points !== 0 || sheet.setCards)); },
      }),
      h("label", { class: "check" },
        h("input", { type: "checkbox", checked: sheet.setCards, onchange: (ev) => { sheet.setCards = ev.target.checked; renderSheet(); } }),
        " " + _("Also set {name}'s card count", { name: p.name })),
      sheet.setCards ? h("div", { class: "stepper", role: "group", "aria-label": _("cards") },
        h("span", { text: _("Cards in front of them") }),
        h("button", { type: "button", disabled: sheet.cardCount <= 0, onclick: () => { sheet.cardCount -= 1; renderSheet(); } }, "−"),
        h("b", { class: "count", text: sheet.cardCount }),
        h("button", { type: "button", onclick: () => { sheet.cardCount += 1; renderSheet(); } }, "+")) : null);
  }

  function changed() {
    renderSheet();
    refreshPreview();
  }

  // The engine's arithmetic for the cards entered so far (the card being entered counts
  // as soon as it shows a treasure).  Answers that arrive late are dropped.
  async function refreshPreview() {
    if (!sheet || sheet.kind === "correction") return;
    if (sheet.kind === "awaken" && sheet.target === null) return;
    const cards = filledCards();
    const seq = ++previewSeq;
    if (!cards.length) { sheet.preview = null; sheet.problems = []; renderSheet(); return; }
    try {
      const data = await call("/preview", { kind: sheet.kind === "awaken" ? "awaken" : "run", cards });
      if (!sheet || seq !== previewSeq) return;
      sheet.preview = data.outcome ? { outcome: data.outcome, run: data.outcome.run } : { run: data.run };
      sheet.problems = data.problems || [];
      renderSheet();
    } catch (err) {
      if (sheet && seq === previewSeq) $("sheet-error").textContent = err.message;
    }
  }

  async function confirmSheet() {
    if (!sheet || busy) return;
    const s = sheet;
    let body;
    if (s.kind === "run") body = { cmd: "run", player: s.player, cards: filledCards() };
    else if (s.kind === "awaken") body = { cmd: "awaken", player: s.player, target: s.target, cards: filledCards() };
    else if (s.kind === "reveal") body = { cmd: "final_reveal", player: s.player, cards: filledCards() };
    else body = { cmd: "correction", player: s.player, points: s.points, reason: s.reason.trim(), cards: s.setCards ? s.cardCount : null };
    $("sheet-error").textContent = "";
    s.submitting = true; // the live update of this very entry is not "the game moved on"
    try {
      const data = await command(body);
      if (data && sheet === s) closeSheet();
    } catch (err) {
      $("sheet-error").textContent = err.message;
    } finally {
      s.submitting = false;
    }
  }

  // -- new game -------------------------------------------------------------------------

  function setupRow(name, colour, first) {
    const options = COLOURS.includes(colour) ? COLOURS : [colour, ...COLOURS];
    const li = h("li", { class: "setup-player" },
      h("input", { type: "text", class: "name", value: name, placeholder: _("name (or initial)"), maxlength: Number(document.body.dataset.maxName), "aria-label": _("player name"), autocomplete: "off" }),
      h("select", { class: "colour", "aria-label": _("token colour"), onchange: (ev) => paintSelect(ev.target) },
        options.map((c) => h("option", { value: c, selected: c === colour, text: colourName(c) }))),
      h("label", { class: "starts" }, h("input", { type: "radio", name: "first", checked: first }), _("starts")),
      h("button", { type: "button", class: "remove", "aria-label": _("remove this player"), onclick: () => { li.remove(); setupChanged(); sayLookAlike(); } }, "×"));
    paintSelect(li.querySelector("select"));
    return li;
  }

  function paintSelect(select) {
    select.dataset.colour = select.value;
    sayLookAlike();
  }

  // Two tokens a colour-blind player could confuse on the lights: said, never refused.
  function sayLookAlike() {
    const chosen = [...$("setup-players").querySelectorAll(".colour")].map((s) => s.value);
    const pairs = [];
    chosen.forEach((a, i) => chosen.slice(i + 1).forEach((b) => { if (alike(a, b)) pairs.push([a, b]); }));
    $("setup-look-alike").textContent = pairs.map(([a, b]) =>
      _("{a} and {b} look alike to colour-blind players on the board's lights: choose another colour for one of them.",
        { a: colourName(a), b: colourName(b) })).join(" ");
  }

  function setupChanged() {
    const rows = $("setup-players").children;
    $("add-player").disabled = rows.length >= 6;
    for (const b of $("setup-players").querySelectorAll(".remove")) b.disabled = rows.length <= 2;
    if (!$("setup-players").querySelector("input[type=radio]:checked") && rows.length) rows[0].querySelector("input[type=radio]").checked = true;
  }

  function fillSetup() {
    const list = $("setup-players");
    const previous = view && view.players && view.players.length ? view.players : null;
    const rows = previous
      ? previous.map((p) => [p.name, p.colour])
      : [["", COLOURS[0]], ["", COLOURS[1]], ["", COLOURS[2]]];
    list.replaceChildren(...rows.map(([name, colour], i) => setupRow(name, colour, i === 0)));
    sayLookAlike();
    setupChanged();
  }

  function openSetup() {
    setupOpen = true;
    $("setup-players").replaceChildren();
    $("setup-error").textContent = "";
    render();
    window.scrollTo(0, 0);
  }

  async function startGame() {
    const rows = [...$("setup-players").children];
    const players = rows.map((li) => ({ name: li.querySelector(".name").value.trim(), colour: li.querySelector(".colour").value }));
    const first = Math.max(0, rows.findIndex((li) => li.querySelector("input[type=radio]").checked));
    const missing = players.findIndex((p) => !p.name);
    if (missing >= 0) { $("setup-error").textContent = _("Player {n} needs a name.", { n: missing + 1 }); return; }
    $("setup-error").textContent = "";
    try {
      const data = await post("/new", { players, first, show_on_board: $("setup-board").checked });
      if (data) {
        setupOpen = false;
        $("setup-players").replaceChildren();
        render();
        toast(_("New game: {name} starts.", { name: players[first].name }));
      }
    } catch (err) {
      $("setup-error").textContent = err.message;
    }
  }

  // -- wiring ---------------------------------------------------------------------------

  function fail(err) {
    toast(err.message, "error");
  }

  $("add-player").addEventListener("click", () => {
    const used = [...$("setup-players").querySelectorAll(".colour")].map((s) => s.value);
    $("setup-players").append(setupRow("", nextColour(used), false));
    sayLookAlike();
    setupChanged();
    $("setup-players").lastElementChild.querySelector(".name").focus();
  });
  $("start-game").addEventListener("click", startGame);
  $("setup-cancel").addEventListener("click", () => { setupOpen = false; render(); });
  $("tool-new").addEventListener("click", openSetup);
  $("tool-correct").addEventListener("click", () => openSheet({ kind: "correction", player: view.current !== null ? view.current : 0 }));
  // Undo asks first, naming the entry; the answer names it by its key, so an entry made
  // meanwhile on another phone is not the one taken back (the companion refuses, in words).
  function askUndo() {
    const last = view.history[view.history.length - 1];
    if (!last) return;
    const key = view.action_key;
    const box = $("undo-confirm");
    box.replaceChildren(
      h("p", {}, _("Take back:") + " ", h("b", { text: wording(last.text) })),
      h("div", { class: "row" },
        h("button", { type: "button", onclick: () => { box.hidden = true; } }, _("Keep it")),
        h("button", { type: "button", class: "primary", id: "undo-yes", onclick: () => { box.hidden = true; post("/undo", { action: key }).catch(fail); } }, _("Undo it"))));
    box.hidden = false;
    box.scrollIntoView({ block: "nearest" });
  }
  $("tool-undo").addEventListener("click", askUndo);
  $("tab-list").addEventListener("click", () => { historyTab = "list"; renderHistory(); });
  $("tab-chart").addEventListener("click", () => { historyTab = "chart"; renderHistory(); });
  $("board-toggle").addEventListener("click", () => {
    // Every move of the board asks first and says what it pauses (web/board_moves.py).
    const show = !(view.board && view.board.active);
    const question = view.board && view.board.moves && view.board.moves[show ? "lootnrun" : "mummy"];
    if (question && !confirm(question)) return;
    post("/board", { show, pause: true }).catch(fail);
  });
  $("sheet-close").addEventListener("click", closeSheet);
  $("sheet-confirm").addEventListener("click", confirmSheet);
  $("toast").addEventListener("click", () => { $("toast").hidden = true; });
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && sheet) closeSheet(); });

  // Live updates: the companion sends the view now and after every change, to every page.
  function connect() {
    if (!window.EventSource) {
      setInterval(() => call("/view").then((v) => accept(v)).catch(() => {}), 3000);
      return;
    }
    liveStream(`${API}/stream`, {  // reconnects by itself (live.js)
      onmessage: (ev) => {
        try { accept(JSON.parse(ev.data)); } catch (err) { /* a broken message: wait for the next */ }
      },
    });
  }

  call("/view").then((v) => accept(v)).catch((err) => {
    $("loading").textContent = err.message;
  });
  connect();
})();
