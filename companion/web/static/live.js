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
"use strict";

const LIVE_FIRST_PAUSE_MS = 2000;
const LIVE_LONGEST_PAUSE_MS = 30000;

function liveStream(url, handlers) {
  let pause = LIVE_FIRST_PAUSE_MS, timer = null, source = null, stopped = false;
  const open = () => {
    if (stopped || document.hidden) return;  // a hidden tab opens it when shown
    clearTimeout(timer);
    if (source) source.close();
    source = new EventSource(url);
    source.onopen = () => {
      pause = LIVE_FIRST_PAUSE_MS;
      if (handlers.onopen) handlers.onopen();
    };
    source.onmessage = ev => handlers.onmessage(ev);
    source.onerror = () => {
      if (handlers.onerror) handlers.onerror();
      if (source.readyState !== EventSource.CLOSED) return;  // the browser tries again
      if (handlers.onclosed) handlers.onclosed();
      clearTimeout(timer);
      timer = setTimeout(open, pause);
      pause = Math.min(pause * 2, LIVE_LONGEST_PAUSE_MS);
    };
  };
  const shown = () => {
    if (stopped) return;
    if (document.hidden) {
      clearTimeout(timer);
      if (source) source.close();
      source = null;
    } else if (!source || source.readyState === EventSource.CLOSED) {
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
      if (source) source.close();
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
