// A live stream that comes back by itself.  EventSource reconnects after a dropped
// connection, but gives up for good when the companion turns the stream away (429: too
// many live pages on this device or for this seat; 503: the companion is full, as when a
// child opens a hundred tabs).  Then a new one is opened after a pause that doubles up to
// 30 s, so a phone whose Wi-Fi dropped at such a moment is never left with a stale page.
// `onclosed` (optional) hears of each give-up first (a page checks whether its seat is
// still its own, and reloads to say why when it is not).
// A hidden tab lets go of its stream (Page Visibility): a phone's browser opens only a
// few connections to one address, and a tab in the background holding one would leave
// the next tab blank.  Shown again, it opens a new stream, whose first message is the
// whole state: the page catches up at once.
//
// A proxy between the phone and the companion may hold an event stream back until it
// ends (a tunnel to the internet: Cloudflare's quick tunnels do).  The stream's first
// message comes at once, so a stream silent for LIVE_STALL_MS is held back: the same
// stream is then asked for as the answer to a POST (`/live`, read as it comes), and
// when that is held back too, one message per long poll, each a whole state with its
// cursor (nothing missed or doubled across reconnects).  The way that worked is kept
// for this tab (sessionStorage).
"use strict";

const LIVE_FIRST_PAUSE_MS = 2000;
const LIVE_LONGEST_PAUSE_MS = 30000;
const LIVE_STALL_MS = 4000;
// A keepalive comes every 5 s: a streamed answer silent this long is gone.
const LIVE_QUIET_MS = 12000;
const LIVE_WAYS = ["sse", "post", "poll"];

// Complete messages of an event stream's text to `deliver` (data, id); the unfinished
// rest back.
function liveFrames(text, deliver) {
  const parts = text.split("\n\n");
  const rest = parts.pop();
  const field = (lines, name) => lines.filter(l => l.startsWith(name + ":"))
    .map(l => l.slice(l.startsWith(name + ": ") ? name.length + 2 : name.length + 1));
  for (const part of parts) {
    const lines = part.split("\n");
    const data = field(lines, "data");
    if (data.length) deliver(data.join("\n"), field(lines, "id").pop() || "");
  }
  return rest;
}

function liveStream(url, handlers) {
  let pause = LIVE_FIRST_PAUSE_MS, timer = null, current = null, stopped = false;
  let cursor = "";
  let way = "sse";
  try { way = sessionStorage.getItem("companion-live") || "sse"; } catch (e) { /* none */ }
  if (!LIVE_WAYS.includes(way)) way = "sse";
  const fallBack = () => {
    way = LIVE_WAYS[Math.min(LIVE_WAYS.indexOf(way) + 1, LIVE_WAYS.length - 1)];
    try { sessionStorage.setItem("companion-live", way); } catch (e) { /* none */ }
  };
  const later = () => {
    current = null;  // (a tab shown again opens at once)
    clearTimeout(timer);
    timer = setTimeout(open, pause);
    pause = Math.min(pause * 2, LIVE_LONGEST_PAUSE_MS);
  };
  const opened = () => {
    pause = LIVE_FIRST_PAUSE_MS;
    if (handlers.onopen) handlers.onopen();
  };
  const deliver = (data, lastEventId) => handlers.onmessage({data, lastEventId});
  const refused = () => {
    if (handlers.onclosed) handlers.onclosed();
    later();
  };
  const ask = (body, signal) => fetch("/live", {
    method: "POST",
    credentials: "same-origin",
    cache: "no-store",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({stream: url, ...body}),
    signal,
  });

  const overEventSource = () => {
    const source = new EventSource(url);
    let heard = false;
    const stall = setTimeout(() => {
      if (heard || stopped) return;
      source.close();
      fallBack();
      open();
    }, LIVE_STALL_MS);
    source.onopen = opened;
    source.onmessage = ev => { heard = true; handlers.onmessage(ev); };
    source.onerror = () => {
      if (handlers.onerror) handlers.onerror();
      if (source.readyState !== EventSource.CLOSED) return;  // the browser tries again
      clearTimeout(stall);
      refused();
    };
    return {close() { clearTimeout(stall); source.close(); }};
  };

  const overPost = () => {
    const abort = new AbortController();
    let quiet = null, over = false;
    const end = heldBack => {
      if (over) return;
      over = true;
      clearTimeout(quiet);
      abort.abort();
      if (stopped) return;
      if (heldBack) { fallBack(); open(); return; }
      if (handlers.onerror) handlers.onerror();
      later();
    };
    quiet = setTimeout(() => end(true), LIVE_STALL_MS);
    ask({mode: "post"}, abort.signal).then(res => {
      if (!res.ok || !res.body) {
        over = true;
        clearTimeout(quiet);
        refused();
        return;
      }
      opened();
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let text = "";
      const read = () => reader.read().then(({done, value}) => {
        if (done) { end(false); return; }
        clearTimeout(quiet);
        quiet = setTimeout(() => end(false), LIVE_QUIET_MS);
        text = liveFrames(text + decoder.decode(value, {stream: true}), deliver);
        return read();
      });
      return read();
    }).catch(() => end(false));
    return {close() { over = true; clearTimeout(quiet); abort.abort(); }};
  };

  const overPoll = () => {
    const abort = new AbortController();
    let over = false, first = true;
    const next = () => {
      if (over || stopped) return;
      ask({mode: "poll", after: cursor}, abort.signal).then(res => {
        if (res.status === 204) { next(); return; }
        if (!res.ok) { over = true; refused(); return; }
        if (first) { first = false; opened(); }
        const given = res.headers.get("X-Live-Cursor") || "";
        return res.text().then(text => {
          cursor = given;
          liveFrames(text + "\n\n", deliver);
          next();
        });
      }).catch(() => {
        if (over) return;
        over = true;
        if (handlers.onerror) handlers.onerror();
        later();
      });
    };
    next();
    return {close() { over = true; abort.abort(); }};
  };

  const open = () => {
    if (stopped || document.hidden) return;  // a hidden tab opens it when shown
    clearTimeout(timer);
    if (current) current.close();
    current = {sse: overEventSource, post: overPost, poll: overPoll}[way]();
  };
  const shown = () => {
    if (stopped) return;
    if (document.hidden) {
      clearTimeout(timer);
      if (current) current.close();
      current = null;
    } else if (!current) {
      pause = LIVE_FIRST_PAUSE_MS;
      open();
    }
  };
  document.addEventListener("visibilitychange", shown);
  open();
  return {
    close() {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", shown);
      if (current) current.close();
    },
  };
}

// On a give-up: reload when `url` now answers 401 or 403 (the seat or the host's cookie is
// gone: the page then says why); otherwise the stream is simply opened again later.
function reloadIfRefused(url) {
  return () => {
    fetch(url, {credentials: "same-origin"})
      .then(res => { if (res.status === 401 || res.status === 403) location.reload(); })
      .catch(() => {});
  };
}
