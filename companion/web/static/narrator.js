// The narrator: the maze pages (the table, the watching seat, the mummy, a seeker) can
// speak the turns, the announcements, the mummy's moves, the catches and the end aloud,
// in the page's language, with the phone's own speech synthesis (Web Speech API: no
// network, no server).  It speaks only the announcements this seat's own stream already
// carries (play.js hands it the page's log), so it never says what the seat may not know.
// On by default on the table screen, the one voice everyone hears; off by default on the
// phones (four phones speaking one announcement at once are a chorus), where a player
// may still switch it on, as the mummy in another room would.  The switch in the header
// is remembered on the device, for the table screen and the phones apart.
"use strict";

const NARRATOR_KEY = "companion.narrator";
// The announcements worth hearing at a table (not every die rolled nor every step).
const SPOKEN = new Set(["turn_started", "mummy_turn_started", "resolved", "turn_lost",
  "seeker_skipped", "announced", "card_played", "mummy_move_started", "mummy_move_ended",
  "seeker_caught", "seeker_out", "game_won", "cards_revealed", "cards_dealt_again"]);

// The entries of `now` that `before` did not have: `now` laid over `before` where it fits
// best (the page keeps the last announcements only, so the oldest drop off the front; a
// take-back removes the newest).  Entries are compared as JSON.
function freshEntries(before, now) {
  const old = before.map(e => JSON.stringify(e)), cur = now.map(e => JSON.stringify(e));
  let best = 0;
  for (let shift = 0; shift < old.length; shift++) {
    let same = 0;
    while (same < cur.length && shift + same < old.length && old[shift + same] === cur[same]) same++;
    if (shift + same === old.length) return now.slice(same);  // the old tail goes on in `now`
    best = Math.max(best, same);  // a take-back: `now` parts from `old` after `best`
  }
  return now.slice(best);
}

// The table screen (not the watching seat's phone, which shares its page).
function isTableScreen() {
  const body = document.body;
  return Boolean(body) && body.classList.contains("table-screen") && !body.classList.contains("watching");
}

const narrator = {
  heard: null,  // the log as last seen (null: the first message only sets the scene)

  key() { return isTableScreen() ? NARRATOR_KEY + ".table" : NARRATOR_KEY; },

  on() {
    // Never in the screen-reader mode (access.js): the reader speaks, Web Speech would not.
    let stored = null, reader = false;
    try {
      stored = localStorage.getItem(this.key());
      reader = localStorage.getItem("companion.reader") === "1";
    } catch (e) { /* private mode */ }
    if (reader) return false;
    return stored === null ? isTableScreen() : stored === "1";
  },

  set(on) {
    try { localStorage.setItem(this.key(), on ? "1" : "0"); } catch (e) { /* private mode */ }
    this.render();
    if (on) this.say(_("The narrator is on."));
    else if (window.speechSynthesis) window.speechSynthesis.cancel();
  },

  lang() { return (document.documentElement.lang || "en").toLowerCase(); },

  // The phone's voices for the page's language, those that work offline first.
  voices() {
    const synth = window.speechSynthesis;
    if (!synth || !synth.getVoices) return [];
    const lang = this.lang();
    const mine = synth.getVoices().filter(v => (v.lang || "").toLowerCase().replace("_", "-").split("-")[0] === lang);
    return mine.filter(v => v.localService !== false).concat(mine.filter(v => v.localService === false));
  },

  // Called with every message of the page's stream (its whole log, as play.js keeps it).
  follow(log) {
    if (!Array.isArray(log)) return;
    const before = this.heard;
    this.heard = log.slice();
    if (!before || !this.on()) return;
    for (const entry of freshEntries(before, log)) {
      if (SPOKEN.has(entry.kind) && entry.text) this.say(entry.text);
    }
  },

  // The host's allowances (``crossings``): each new one is spoken, as every page says it.
  news(texts) {
    if (!Array.isArray(texts)) return;
    const before = this.newsHeard;
    this.newsHeard = texts.length;
    if (before === undefined || !this.on()) return;
    for (const text of texts.slice(before)) this.say(text);
  },

  say(text) {
    const synth = window.speechSynthesis;
    if (!synth || !window.SpeechSynthesisUtterance) return;
    const utterance = new SpeechSynthesisUtterance(text);
    const voice = this.voices()[0];
    utterance.lang = voice ? voice.lang : this.lang();
    if (voice) utterance.voice = voice;
    // A phone that will not speak says why on the page (never a silent narrator).
    utterance.onerror = ev => this.trouble(ev && ev.error);
    utterance.onstart = () => this.trouble(null);
    synth.speak(utterance);
  },

  // What stopped the last words: "not-allowed" (the phone waits for a first tap on the
  // page), another failure (no network for a network voice, no voice), or null (it spoke).
  // Words cut short by the switch ("interrupted", "canceled") are no trouble.
  trouble(error) {
    if (error === "interrupted" || error === "canceled") return;
    this.problem = error || null;
    this.renderNote();
  },

  // The switch, and a note under the header when the phone has no voice for the language.
  render() {
    const box = document.getElementById("narrator");
    if (!box) return;
    const on = this.on();
    box.setAttribute("aria-pressed", String(on));  // off: the bubble dimmed and struck out
    box.title = on ? _("The narrator speaks the game aloud: tap to stop it")
                   : _("The narrator is off: tap to hear the game spoken aloud");
    box.setAttribute("aria-label", box.title);
    this.renderNote();
  },

  renderNote() {
    const note = document.getElementById("narrator-note");
    if (!note) return;
    let text = "";
    if (this.on()) {
      if (!window.speechSynthesis || !window.SpeechSynthesisUtterance) {
        text = _("This phone cannot speak: the narrator stays silent here.");
      } else if (this.voicesKnown && !this.voices().length) {
        text = _("This phone has no voice for this language: the narrator stays silent. A voice can be added in the phone's speech settings.");
      } else if (this.problem === "not-allowed") {
        text = _("Tap the page once: the phone lets the narrator speak only after a tap.");
      } else if (this.problem) {
        text = _("The phone could not speak the narrator's words. Its voice for this language may need the internet, which the companion's Wi-Fi does not have.");
      } else if (this.voicesKnown && this.voices()[0].localService === false) {
        text = _("This phone's voice for this language needs the internet: without it the narrator stays silent.");
      }
    }
    note.textContent = text;
    note.title = this.problem || "";  // the phone's own word for what went wrong
    note.hidden = !text;
  },

  // Phones list their voices late (Chrome: after "voiceschanged"): the note waits for
  // that list, or for a second and a half.
  start() {
    const synth = window.speechSynthesis;
    const known = () => { this.voicesKnown = true; this.renderNote(); };
    if (synth && synth.getVoices && synth.getVoices().length) this.voicesKnown = true;
    else if (synth && synth.addEventListener) {
      synth.addEventListener("voiceschanged", known);
      setTimeout(known, 1500);
    } else this.voicesKnown = true;
    this.render();
    const box = document.getElementById("narrator");
    if (box) box.addEventListener("click", () => this.set(!this.on()));
    // After a reload the phone may wait for a tap before it speaks: the first tap ends
    // that note (the next words then come).
    document.addEventListener("pointerdown", () => {
      if (this.problem === "not-allowed") this.trouble(null);
    });
  },
};

document.addEventListener("DOMContentLoaded", () => narrator.start());
