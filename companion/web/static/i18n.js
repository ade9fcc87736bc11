// The page's language: `_()` looks a text up in window.I18N (from /i18n/<lang>.js) and
// fills its {name} places; a place with a case ({face:acc}, in a translation) takes the
// form of that case of the value's word ("the arrow" -> "den Pfeil": the catalogs'
// forms, companion/i18n/grammar.py). The language switch sets the cookie and reloads.
"use strict";

function _(text, values) {
  const table = window.I18N || {};
  const has = key => Object.prototype.hasOwnProperty.call(table, key);
  let out = has(text) ? table[text] : text;
  if (values) out = out.replace(/\{(\w+)(?::(\w+))?\}/g, (m, k, kase) => {
    if (!(k in values)) return m;
    const value = String(values[k]);
    const form = kase && `${kase}\u0004${value}`;
    if (!form) return value;
    return has(form) ? table[form] : has(value) ? table[value] : value;
  });
  return out;
}

document.addEventListener("click", ev => {
  const button = ev.target.closest && ev.target.closest("[data-lang]");
  if (!button || button.getAttribute("aria-current") === "true") return;  // already this one
  document.cookie = `lang=${button.dataset.lang}; path=/; max-age=31536000; SameSite=Lax`;
  location.reload();
});
