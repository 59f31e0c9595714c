// Keeps a page current: the server's event stream says when a media changed, and the page's
// live regions ([data-live] with an id) are fetched again and swapped in place. A quiet stream
// still refreshes every 15 s, for what sends no event (heartbeats, the fleet's pace).
const status = document.getElementById("live-status");
const regions = () => Array.from(document.querySelectorAll("[data-live][id]"));
const focusable = "a[href], button, input:not([type=hidden]), select, textarea, audio[controls], [tabindex]:not([tabindex='-1'])";

// Where keyboard focus is in a region about to be swapped: the control's id, else its place
// among the region's controls. A swap that dropped focus would send a keyboard user back to
// the top of the page at every refresh.
function focusIn(region) {
  const active = document.activeElement;
  if (!active || active === document.body || !region.contains(active)) return null;
  return { id: active.id, index: Array.from(region.querySelectorAll(focusable)).indexOf(active), tag: active.tagName };
}

function restoreFocus(region, place) {
  if (!place) return;
  let target = place.id ? document.getElementById(place.id) : null;
  if (!target && place.index >= 0) {
    const same = region.querySelectorAll(focusable)[place.index];
    if (same && same.tagName === place.tag) target = same;
  }
  target?.focus({ preventScroll: true });
}
let timer = null;
let busy = false;
let again = false;

function say(state, text) {
  if (!status) return;
  status.dataset.state = state;
  status.textContent = text;
}

async function refresh() {
  if (busy) { again = true; return; }
  busy = true;
  try {
    const answer = await fetch(location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" });
    if (answer.redirected && new URL(answer.url).pathname === "/sign-in") { location.href = answer.url; return; }
    if (!answer.ok) return;
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    for (const region of regions()) {
      const fresh = page.getElementById(region.id);
      if (!fresh) continue;
      // Keep keyboard focus where it was when the control is still there after the swap.
      const place = focusIn(region);
      region.replaceChildren(...Array.from(fresh.childNodes).map((node) => document.importNode(node, true)));
      restoreFocus(region, place);
    }
    document.body.dataset.refreshed = String(Date.now());
  } catch (error) {
    // The next event or tick tries again.
  } finally {
    busy = false;
    if (again) { again = false; schedule(); }
  }
}

function schedule() {
  if (timer) return;
  timer = setTimeout(() => { timer = null; refresh(); }, 300);
}

const stream = new EventSource("/events");
stream.addEventListener("open", () => say("live", "Live: updates as the fleet works."));
stream.addEventListener("progress", schedule);
stream.addEventListener("resync", schedule);
stream.addEventListener("error", () => say("reconnecting", "Reconnecting to live updates…"));
setInterval(schedule, 15000);
