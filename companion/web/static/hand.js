// The left-hand layout of the maze pages (the mummy, a seeker): remembered on the device
// like the screen-reader mode, switched in the header.  In it the "now" bar's controls
// (the dice, the step pad, the action buttons) sit together on the left side, within
// reach of a left thumb, instead of across the whole width (play.css body.left-hand).
"use strict";

const HAND_KEY = "companion.hand";

const hand = {
  left() {
    try { return localStorage.getItem(HAND_KEY) === "left"; } catch (e) { return false; }
  },

  set(left) {
    try { localStorage.setItem(HAND_KEY, left ? "left" : "right"); } catch (e) { /* private mode */ }
    this.render();
  },

  render() {
    const left = this.left();
    document.body.classList.toggle("left-hand", left);
    const box = document.getElementById("left-hand");
    if (box) box.setAttribute("aria-pressed", String(left));
  },

  start() {
    const box = document.getElementById("left-hand");
    if (box) box.addEventListener("click", () => this.set(!this.left()));
    this.render();
  },
};

document.addEventListener("DOMContentLoaded", () => hand.start());
