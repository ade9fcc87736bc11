// Short cues for the seat's own moments: its turn, a catch, the end of the game.  Tones
// are made in the page (Web Audio, no sound files) and phones that can also vibrate.
// A mute switch in the header is remembered on the device.
"use strict";

const CUES = {
  turn: {notes: [660, 880], vibrate: [80]},
  caught: {notes: [440, 330, 220], vibrate: [200, 80, 200]},
  over: {notes: [523, 659, 784, 1047], vibrate: [120, 60, 120, 60, 240]},
};
const MUTE_KEY = "companion.mute";
window.cueLog = [];  // every cue the page gave (read by the tests)

const cues = {
  audio: null,
  seen: null,
  muted() { return localStorage.getItem(MUTE_KEY) === "1"; },

  play(kind) {
    if (this.muted()) return;
    window.cueLog.push(kind);
    const cue = CUES[kind];
    if (navigator.vibrate) navigator.vibrate(cue.vibrate);
    try {
      this.audio = this.audio || new (window.AudioContext || window.webkitAudioContext)();
      const start = this.audio.currentTime;
      cue.notes.forEach((freq, i) => {
        const osc = this.audio.createOscillator(), gain = this.audio.createGain();
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.2, start + i * 0.12);
        gain.gain.exponentialRampToValueAtTime(0.001, start + i * 0.12 + 0.11);
        osc.connect(gain).connect(this.audio.destination);
        osc.start(start + i * 0.12);
        osc.stop(start + i * 0.12 + 0.12);
      });
    } catch (e) { /* no audio on this device: the vibration (if any) is the cue */ }
  },

  // Compare what matters with the last payload; the first one only sets the scene.
  follow(role, data) {
    if (data.stage !== "playing" || !data.view) return;
    const v = data.view;
    const now = {
      turn: role === "mummy" ? v.phase === "mummy_roll" : role === "seeker" ? !!data.my_turn : false,
      caught: (data.caught || []).join(" "),
      over: !!v.winner,
    };
    const before = this.seen;
    this.seen = now;
    if (!before) return;
    if (now.over && !before.over) this.play("over");
    else if (now.caught && now.caught !== before.caught) this.play("caught");
    else if (now.turn && !before.turn) this.play("turn");
  },
};

function renderMute() {
  const box = document.getElementById("mute");
  if (!box) return;
  const muted = cues.muted();
  box.setAttribute("aria-pressed", String(muted));
  box.textContent = muted ? "\u266A " + _("off") : "\u266A";
  box.title = muted ? _("Sound and vibration off: tap to turn on") : _("Sound and vibration on: tap to mute");
  box.setAttribute("aria-label", box.title);
}

document.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("mute");
  if (!box) return;
  renderMute();
  box.addEventListener("click", () => {
    localStorage.setItem(MUTE_KEY, cues.muted() ? "0" : "1");
    renderMute();
    if (cues.audio && cues.audio.state === "suspended") cues.audio.resume();
  });
});
// Browsers start audio only after a tap: the first tap anywhere wakes it.
document.addEventListener("pointerdown", () => {
  if (cues.audio && cues.audio.state === "suspended") cues.audio.resume();
}, {once: true});
