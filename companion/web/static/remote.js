// The host page's remote seat (web/remote.py): open a seat to the internet, show its
// address, whether its player is connected, and close it.
"use strict";

(() => {
  const box = document.getElementById("remote");
  if (!box) return;
  const words = box.dataset;
  const $ = id => document.getElementById(id);
  const send = (path, body) => fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body || {}),
  }).then(res => res.json().then(data => ({ok: res.ok, data})));
  const show = data => {
    $("remote-open").hidden = !!data.open;
    $("remote-state").hidden = !data.open;
    if (data.error !== undefined) $("remote-error").textContent = data.error || "";
    // The computer may stand in for the mummy far away, until the host hands it back.
    const standin = data.standin || "";
    $("remote-standin").hidden = !(standin || (data.open && data.seat === "mummy"));
    $("remote-standin-words").textContent = standin ? $("remote-standin-words").dataset.on : "";
    $("standin-choose").hidden = $("standin-on").hidden = !!standin;
    $("standin-off").hidden = !standin;
    if (!data.open) return;
    $("remote-words").textContent = words.openWords;
    $("remote-seat").textContent = `(${words[data.seat] || data.seat})`;
    $("remote-link").textContent = data.link || words.noAddress;
    let said = words.waiting;
    if (data.connected) said = words.connected;
    else if (data.offline && data.seen) said = words.offline;
    else if (data.seen) said = words.quiet;
    $("remote-connected").textContent = data.problem || said;
    $("remote-sees").textContent = data.sees || "";
  };
  const look = () => fetch("/api/host/remote", {credentials: "same-origin"})
    .then(res => res.ok ? res.json() : null).then(data => { if (data) show(data); })
    .catch(() => {});
  $("remote-open").addEventListener("submit", ev => {
    ev.preventDefault();
    const form = new FormData(ev.target);
    send("/api/host/remote", {
      seat: form.get("seat"),
      provider: form.get("provider"),
      grace_s: Number(form.get("grace_s") || 30),
    }).then(({ok, data}) => { show({...data, error: ok ? "" : data.error}); });
  });
  $("remote-close").addEventListener("click", () => {
    send("/api/host/remote/close").then(({data}) => show({...data, error: ""}));
  });
  const standIn = level => send("/api/host/remote/standin", {level})
    .then(({ok, data}) => show({...data, error: ok ? "" : data.error}));
  $("standin-on").addEventListener("click", () => standIn($("standin-level").value));
  $("standin-off").addEventListener("click", () => standIn(""));
  look();
  setInterval(look, 2000);
})();
