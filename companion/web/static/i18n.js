// The page's language: `_()` looks a text up in window.I18N (from /i18n/<lang>.js) and
// fills its {name} places; the language switch sets the remembered cookie and reloads.
"use strict";

function _(text, values) {
  const table = window.I18N || {};
  let out = Object.prototype.hasOwnProperty.call(table, text) ? table[text] : text;
  if (values) out = out.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  return out;
}

document.addEventListener("click", ev => {
  const button = ev.target.closest && ev.target.closest("[data-lang]");
  if (!button || button.getAttribute("aria-current") === "true") return;  // already this one
  document.cookie = `lang=${button.dataset.lang}; path=/; max-age=31536000; SameSite=Lax`;
  location.reload();
});
