// The reader: a click on a segment or a word plays from it; while the audio plays, the segment
// and word being spoken are highlighted and, with "Follow" on, kept in view. The next window of
// the chapter is fetched when playback or scrolling reaches the end of the one shown.
const player = document.getElementById("player");
// On a phone the transcript comes first: the chapter list is folded (and opened again on a
// wide screen).
const narrow = window.matchMedia("(max-width: 720px)");
const fold = () => { const panel = document.getElementById("chapters-panel"); if (panel) panel.open = !narrow.matches; };
fold();
narrow.addEventListener("change", fold);
const list = document.getElementById("segments");
const follow = document.getElementById("follow");
let segments = [];
let current = null;
let currentWord = null;
let loading = false;

function index() {
  segments = Array.from(list.querySelectorAll(".segment")).map((element) => ({
    element,
    start: Number(element.dataset.start),
    end: Number(element.dataset.end),
    words: Array.from(element.querySelectorAll(".w")).map((word) => ({
      element: word, start: Number(word.dataset.start), end: Number(word.dataset.end),
    })),
  }));
}

// The last item starting at or before `time`, by binary search (a window holds hundreds).
function at(items, time) {
  let low = 0;
  let high = items.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (items[middle].start <= time) { found = middle; low = middle + 1; } else { high = middle - 1; }
  }
  return found;
}

function highlight() {
  const time = player.currentTime;
  const position = at(segments, time);
  const segment = position >= 0 && time <= segments[position].end + 1.5 ? segments[position] : null;
  if (segment !== current) {
    current?.element.classList.remove("now");
    current?.element.removeAttribute("aria-current");
    current = segment;
    if (current) {
      current.element.classList.add("now");
      current.element.setAttribute("aria-current", "true");
      if (follow?.checked) current.element.scrollIntoView({ block: "center", behavior: "smooth" });
    }
  }
  let word = null;
  if (segment && segment.words.length) {
    const wordPosition = at(segment.words, time);
    if (wordPosition >= 0) word = segment.words[wordPosition].element;
  }
  if (word !== currentWord) {
    currentWord?.classList.remove("now");
    currentWord = word;
    currentWord?.classList.add("now");
  }
  if (segments.length && time > segments[segments.length - 1].start) loadLater();
}

async function loadLater() {
  const from = list.dataset.nextFrom;
  if (!from || loading) return;
  loading = true;
  try {
    const url = new URL(location.href);
    url.searchParams.delete("t");
    url.searchParams.set("from", from);
    url.hash = "";
    const answer = await fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" });
    if (!answer.ok) return;
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.getElementById("segments");
    if (!fresh) return;
    list.append(...Array.from(fresh.children).map((node) => document.importNode(node, true)));
    list.dataset.nextFrom = fresh.dataset.nextFrom || "";
    if (!list.dataset.nextFrom) document.getElementById("later-link")?.parentElement.remove();
    index();
  } finally {
    loading = false;
  }
}

function seek(time, play) {
  if (!player) return;
  player.currentTime = time;
  if (play) player.play().catch(() => {});
  highlight();
}

if (list) {
  index();
  list.addEventListener("click", (event) => {
    if (!player) return;
    const word = event.target.closest(".w");
    const segment = event.target.closest(".segment");
    if (!segment) return;
    event.preventDefault();
    seek(Number((word ?? segment).dataset.start), true);
  });
  const sentinel = document.getElementById("later-link");
  if (sentinel && "IntersectionObserver" in window) {
    new IntersectionObserver((entries) => { if (entries.some((entry) => entry.isIntersecting)) loadLater(); }).observe(sentinel);
  }
}

if (player) {
  player.addEventListener("timeupdate", highlight);
  player.addEventListener("seeked", highlight);
  player.addEventListener("loadedmetadata", () => {
    const start = Number(player.dataset.start);
    if (start > 0 && player.currentTime < 0.01) player.currentTime = start;
    highlight();
  }, { once: true });
  // Smoother than timeupdate's four times a second while playing.
  const tick = () => { if (!player.paused) highlight(); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}

// The speaker filter: an unchecked speaker's lines are hidden, in this window and in those
// fetched later. (The page's policy allows no inline style, so each line is hidden itself.)
const filters = Array.from(document.querySelectorAll(".speaker-filter input[data-speaker]"));
function applyFilter() {
  const hidden = new Set(filters.filter((box) => !box.checked).map((box) => box.dataset.speaker));
  for (const line of list ? list.querySelectorAll(".segment[data-speaker]") : []) {
    line.hidden = hidden.has(line.dataset.speaker);
  }
}
if (filters.length > 0 && list) {
  filters.forEach((box) => box.addEventListener("change", applyFilter));
  new MutationObserver(applyFilter).observe(list, { childList: true });
  applyFilter();
}
