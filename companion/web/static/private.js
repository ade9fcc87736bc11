// The covered private view (a seeker without a phone): "Private view for Blue" shows a
// cover, the tap fetches Blue's cards, "Done" takes them out of the page again.
"use strict";

(function () {
  const box = document.getElementById("private");
  if (!box) return;
  const seatsBox = $("private-seats"), cover = $("private-cover"), open = $("private-open");
  let seat = null;

  function show(part) {
    seatsBox.hidden = part !== "seats";
    cover.hidden = part !== "cover";
    open.hidden = part !== "open";
  }

  function done() {
    $("private-hand").replaceChildren();
    $("private-title").textContent = "";
    $("private-error").textContent = "";
    seat = null;
    show("seats");
    const first = seatsBox.querySelector("button");
    if (first) first.focus();
  }

  function card(t, played) {
    return el("li", {class: played ? "card played" : "card"}, treasureIcon(t),
              treasureTitle(t), " ", el("span", {class: "cell"}, played ? _("played") : t.cell));
  }

  for (const button of seatsBox.querySelectorAll("button")) {
    button.addEventListener("click", () => {
      seat = button.dataset.seat;
      $("private-tap").textContent = button.dataset.cover;
      show("cover");
      $("private-tap").focus();
    });
  }

  $("private-tap").addEventListener("click", async () => {
    let res, data = {};
    try {
      res = await fetch(`/api/private/${encodeURIComponent(seat)}`, {credentials: "same-origin", cache: "no-store"});
      data = await res.json();
    } catch (e) {
      $("private-error").textContent = UNREACHABLE;
      return;
    }
    if (!res.ok) { $("private-error").textContent = data.error || ""; return; }
    $("private-title").textContent = _("Cards of {name}", {name: data.name});
    const items = data.hand.map(t => card(t, false)).concat(data.played.map(t => card(t, true)));
    if (!items.length) items.push(el("li", {class: "muted"}, _("No cards yet.")));
    $("private-hand").replaceChildren(...items);
    show("open");
    $("private-title").focus();
  });

  $("private-done").addEventListener("click", done);
  $("private-back").addEventListener("click", done);
})();
