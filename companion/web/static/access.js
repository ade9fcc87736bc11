// The screen-reader mode of the maze pages (the mummy, a seeker, the table, the watching
// seat): remembered on the device, switched in the header.  In it the narrator is off
// (a screen reader speaks for itself, Web Speech would talk over it), the maze is a
// keyboard grid (arrow keys; each cell says its name, its walls and what is on it as far
// as this seat knows; Enter takes it), the announcements go into a role=log, and keys
// answer: L the last announcement, T whose turn it is, M where the mummy stands.
"use strict";

const READER_KEY = "companion.reader";
const SIDES = ["north", "east", "south", "west"];

const access = {
  grid: null,      // the keyboard grid (role=grid), while the mode is on
  focus: 0,        // the cell the grid's roving tab stop is on
  board: null,     // the Board drawn last, and what it showed
  maze: null,
  state: null,
  heard: null,     // the announcements as last seen

  on() {
    try { return localStorage.getItem(READER_KEY) === "1"; } catch (e) { return false; }
  },

  set(on) {
    try {
      localStorage.setItem(READER_KEY, on ? "1" : "0");
      if (on) localStorage.setItem("companion.narrator", "0");  // the reader speaks instead
    } catch (e) { /* private mode */ }
    if (on && window.speechSynthesis) window.speechSynthesis.cancel();
    if (typeof narrator !== "undefined") narrator.render();
    this.render();
    this.say(on ? _("Screen-reader mode is on: the maze is a grid of cells; keys L, T and M say the last announcement, whose turn it is and where the mummy stands.")
                : _("Screen-reader mode is off."));
  },

  // The switch, the log and the grid as the mode says.
  render() {
    const on = this.on();
    const box = document.getElementById("reader");
    if (box) box.setAttribute("aria-pressed", String(on));
    const narratorBox = document.getElementById("narrator");
    if (narratorBox) narratorBox.hidden = on;
    document.body.classList.toggle("reader", on);
    const log = document.getElementById("reader-log");
    if (log) log.hidden = !on;
    if (on && this.board) this.drawGrid();
    if (!on && this.grid) { this.grid.remove(); this.grid = null; }
  },

  // Something for the reader to say now (a polite live region, read once).
  say(text) {
    const box = document.getElementById("reader-say");
    if (!box) return;
    box.textContent = "";
    // A new text node each time: the same words twice are read twice.
    setTimeout(() => { box.textContent = text; }, 30);
  },

  // The page's whole log, with every message of its stream (play.js): what is new goes
  // into the role=log.
  follow(log) {
    if (!Array.isArray(log)) return;
    const before = this.heard;
    this.heard = log.slice();
    const box = document.getElementById("reader-log");
    if (!box || !before) return;
    for (const entry of freshEntries(before, log)) {
      if (!entry.text) continue;
      box.append(el("p", {}, entry.text));
      while (box.children.length > 8) box.firstElementChild.remove();
    }
  },

  lastAnnouncement() {
    const log = this.heard || [];
    const last = log.length ? log[log.length - 1].text : "";
    return last || _("Nothing yet.");
  },

  whoseTurn() {
    const g = document.getElementById("guidance");
    return (g && g.textContent.trim()) || _("Nothing yet.");
  },

  whereMummy() {
    const s = this.state, m = this.maze;
    if (!s || !m || s.mummy == null) return _("The mummy is not on the maze.");
    if (s.mummy >= m.width * m.height) return _("The mummy is in the sarcophagus.");
    return _("The mummy stands on {cell}.", {cell: cellName(s.mummy, m.width)});
  },

  // A cell in words, as far as this seat knows: "C4, walls north and east, the mummy".
  describe(cell) {
    const m = this.maze, s = this.state || {}, w = m.width;
    const parts = [cellName(cell, w)];
    const ways = [...m.start, ...m.sarcophagus].filter(o => o.cell === cell).map(o => o.side);
    const open = [...(m.open_sides[cell] || []), ...ways];
    const walls = SIDES.filter(side => !open.includes(side));
    if (walls.length === 1) parts.push(_("wall {side}", {side: _(walls[0])}));
    else if (walls.length > 1) {
      parts.push(_("walls {sides}", {sides: listWords(walls.map(side => _(side)))}));
    }
    for (const o of m.start) if (o.cell === cell) parts.push(_("the way out to the start field"));
    for (const o of m.sarcophagus) if (o.cell === cell) parts.push(_("the way into the sarcophagus"));
    if (s.mummy === cell) parts.push(_("the mummy"));
    for (const p of s.figures || []) {
      if (p.node === cell) parts.push(_("the figure {colour}", {colour: _(cap(p.colour))}));
    }
    for (const t of m.treasures) if (t.cell === cell) parts.push(treasureTitle(t));
    if ((s.lit || []).includes(cell)) {
      parts.push(s.litClass === "step" ? _("the mummy can step here") : _("you can go here"));
    } else if ((s.reach || []).includes(cell)) {
      parts.push(_("the mummy can reach this cell"));
    }
    if ((s.rings || []).includes(cell)) parts.push(_("on a card of yours"));
    return parts.join(", ");
  },

  // Called by Board.update: the grid follows the board.
  followBoard(board, maze, state) {
    this.board = board;
    this.maze = maze;
    this.state = state;
    if (this.on()) {
      this.drawGrid();
      this.keepFocus();
    }
  },

  // A button the reader was on is drawn anew (taken, or the turn moved on): the focus
  // goes to the guidance, which says what to do next, not back to the top of the page.
  keepFocus() {
    const was = this.lastFocus;
    if (!was || was.isConnected || (document.activeElement && document.activeElement !== document.body)) return;
    const g = document.getElementById("guidance");
    if (!g) return;
    g.tabIndex = -1;
    g.focus();
  },

  drawGrid() {
    const m = this.maze, board = this.board;
    if (!m || !board) return;
    const w = m.width, h = m.height;
    if (!this.grid) {
      const grid = el("div", {role: "grid", class: "reader-grid", id: "reader-grid",
                              "aria-label": _("The maze, {w} by {h} cells", {w, h}),
                              "aria-rowcount": String(h), "aria-colcount": String(w)});
      for (let r = 0; r < h; r++) {
        const row = el("div", {role: "row"});
        for (let c = 0; c < w; c++) {
          const cell = r * w + c;
          row.append(el("div", {role: "gridcell", tabindex: "-1", "data-cell": String(cell)}));
        }
        grid.append(row);
      }
      grid.addEventListener("keydown", ev => this.key(ev));
      grid.addEventListener("click", ev => {
        const cellEl = ev.target.closest("[data-cell]");
        if (cellEl) this.take(+cellEl.dataset.cell);
      });
      board.container.after(grid);
      this.grid = grid;
    }
    if (this.focus >= w * h) this.focus = 0;
    for (const cellEl of this.grid.querySelectorAll("[role=gridcell]")) {
      const cell = +cellEl.dataset.cell;
      const words = this.describe(cell);
      if (cellEl.getAttribute("aria-label") !== words) cellEl.setAttribute("aria-label", words);
      const mark = this.mark(cell);  // for the eye: the label says it in words
      if (cellEl.textContent !== mark) cellEl.replaceChildren(el("span", {"aria-hidden": "true"}, mark));
      cellEl.tabIndex = cell === this.focus ? 0 : -1;
      const s = this.state || {};
      cellEl.classList.toggle("lit", (s.lit || []).includes(cell));
    }
  },

  // What a cell shows to the eye in the grid (its words are its label).
  mark(cell) {
    const s = this.state || {};
    if (s.mummy === cell) return "M";
    const f = (s.figures || []).find(p => p.node === cell);
    if (f) return f.colour[0].toUpperCase();
    if ((s.lit || []).includes(cell)) return "\u2022";
    return "";
  },

  move(cell) {
    const cells = this.grid.querySelectorAll("[role=gridcell]");
    if (!cells[cell]) return;
    cells[this.focus].tabIndex = -1;
    this.focus = cell;
    cells[cell].tabIndex = 0;
    cells[cell].focus();
  },

  take(cell) {
    this.move(cell);
    if (this.board.options.onCell) this.board.options.onCell(cell);
  },

  key(ev) {
    const w = this.maze.width, h = this.maze.height, at = this.focus;
    const row = Math.floor(at / w), col = at % w;
    const to = {
      ArrowUp: row > 0 ? at - w : at, ArrowDown: row < h - 1 ? at + w : at,
      ArrowLeft: col > 0 ? at - 1 : at, ArrowRight: col < w - 1 ? at + 1 : at,
      Home: row * w, End: row * w + w - 1,
    }[ev.key];
    if (to != null) {
      ev.preventDefault();
      this.move(to);
    } else if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      this.take(at);
    }
  },

  hotkey(ev) {
    if (!this.on() || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    const answer = {l: () => this.lastAnnouncement(), t: () => this.whoseTurn(),
                    m: () => this.whereMummy()}[ev.key.toLowerCase()];
    if (!answer) return;
    ev.preventDefault();
    this.say(answer());
  },

  start() {
    const box = document.getElementById("reader");
    if (box) box.addEventListener("click", () => this.set(!this.on()));
    document.addEventListener("keydown", ev => this.hotkey(ev));
    document.addEventListener("focusin", ev => { this.lastFocus = ev.target; });
    this.render();
  },
};

// "north, east and south" in the page's language.
function listWords(words) {
  if (words.length < 2) return words.join("");
  return _("{some} and {last}", {some: words.slice(0, -1).join(", "), last: words[words.length - 1]});
}

document.addEventListener("DOMContentLoaded", () => access.start());
