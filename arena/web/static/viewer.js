// Arena's replay viewer: draws a game's board as SVG from the engine's own positions (the replay
// document of /api/matches/ID/replay, or one inlined by `arena replay --html`) and steps through it.
// Self-contained on purpose: no imports, so a single HTML file can carry it.

const SVG = "http://www.w3.org/2000/svg";
const KIND_MARK = { troops: "", units: "", aircraft: "✈", ships: "⚓", siege_weapons: "⚒" };

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// An HTML element: attributes (null, undefined and false ones left out; on* are listeners) and children
// (nested arrays flattened; strings and numbers become text). The pages (app.js) use it too.
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A step's text: the label, prefixed by its side unless the label already names it.
function stepText(board, step) {
  const label = step.label || (step.hidden ? "(hidden)" : "");
  if (step.seat < 0) return `⚄ ${label}`;
  const side = board && board.sides[step.seat] ? board.sides[step.seat].name : "";
  return side && !label.startsWith(side) ? `${side}: ${label}` : label;
}

// Scroll a list (not the page) so that `row` is in view.
function reveal(list, row) {
  const top = row.offsetTop - list.offsetTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + row.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + row.offsetHeight - list.clientHeight;
}

function boardHeight(board) {
  const ys = board.areas.map((a) => a.y);
  return ys.length && Math.max(...ys) - Math.min(...ys) < 0.05 ? 300 : 780;
}

// The board with no units: areas, edges, air zones. Returns the SVG and where each area is.
export function drawBoard(board) {
  const width = 1000, height = boardHeight(board);
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "board", role: "img",
                          "aria-label": board.title || "board" });
  const n = Math.max(board.areas.length, 1);
  const radius = board.areas.length <= 6 ? 70 : Math.max(26, Math.min(58, 430 / Math.sqrt(n)));
  const place = board.areas.map((a) => ({ x: a.x * width, y: board.areas.length <= 6 ? height / 2 : a.y * height }));
  const groups = el("g", { class: "groups" }, svg);
  for (const group of board.groups || []) {
    const members = group.areas.map((i) => place[i]);
    if (!members.length) continue;
    const x0 = Math.min(...members.map((p) => p.x)) - radius - 8, x1 = Math.max(...members.map((p) => p.x)) + radius + 8;
    const y0 = Math.min(...members.map((p) => p.y)) - radius - 8, y1 = Math.max(...members.map((p) => p.y)) + radius + 8;
    const g = el("g", { class: "group", "data-group": group.id }, groups);
    el("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 18 }, g);
    el("text", { x: x0 + 10, y: y0 + 15 }, g).textContent = group.label;
    g.appendChild(el("g", { class: "group-units", transform: `translate(${x1 - 12} ${y0 + 6})` }));
  }
  const edges = el("g", { class: "edges" }, svg);
  for (const [a, b] of board.edges) {
    el("line", { class: "edge", x1: place[a].x, y1: place[a].y, x2: place[b].x, y2: place[b].y }, edges);
  }
  const areas = el("g", { class: "areas" }, svg);
  board.areas.forEach((area, i) => {
    const g = el("g", { class: ["area", ...(area.tags || [])].join(" "), "data-area": area.id,
                        transform: `translate(${place[i].x} ${place[i].y})` }, areas);
    const body = el("circle", { class: "body", r: radius }, g);
    if (area.hq !== null && area.hq !== undefined) {
      body.setAttribute("stroke", board.sides[area.hq].color);
      body.setAttribute("stroke-width", 5);
    }
    el("text", { y: -radius + 16 }, g).textContent = area.label;
    if (area.vp) el("text", { class: "vp", y: -radius + 28 }, g).textContent = `${area.vp} VP`;
    el("g", { class: "units" }, g);
    el("text", { class: "mark", y: radius + 13 }, g);
  });
  return { svg, radius };
}

// Put one position on a drawn board: unit badges (data-units holds the counts), marks, air zones.
export function showPosition(drawn, board, position) {
  const { svg, radius } = drawn;
  const kinds = board.unit_kinds || [];
  for (const g of svg.querySelectorAll(".area")) {
    const id = g.getAttribute("data-area");
    const counts = (position.units || {})[id] || kinds.map(() => board.sides.map(() => 0));
    g.setAttribute("data-units", JSON.stringify(counts));
    const units = g.querySelector(".units");
    units.replaceChildren();
    let row = 0;
    counts.forEach((perSide, kind) => {
      perSide.forEach((count, seat) => {
        if (!count) return;
        const x = (seat - (perSide.length - 1) / 2) * radius * 0.95;
        const y = -4 + row * 22;
        const badge = el("g", { class: "unit", "data-seat": seat, "data-kind": kinds[kind] || "", transform: `translate(${x} ${y})` }, units);
        el("rect", { x: -17, y: -10, width: 34, height: 20, rx: 10, fill: board.sides[seat].color }, badge);
        el("text", { y: 4 }, badge).textContent = `${KIND_MARK[kinds[kind]] || ""}${count}`;
      });
      if (perSide.some((c) => c)) row += 1;
    });
    const marks = (position.marks || {})[id] || [];
    g.querySelector("text.mark").textContent = marks.join(" · ");
  }
  for (const g of svg.querySelectorAll(".group")) {
    const counts = (position.groups || {})[g.getAttribute("data-group")] || [];
    g.setAttribute("data-units", JSON.stringify(counts));
    const holder = g.querySelector(".group-units");
    holder.replaceChildren();
    (counts[0] || []).forEach((count, seat) => {
      if (!count) return;
      const badge = el("g", { class: "unit", transform: `translate(${-seat * 40 - 20} 14)` }, holder);
      el("rect", { x: -17, y: -10, width: 34, height: 20, rx: 10, fill: board.sides[seat].color }, badge);
      el("text", { y: 4 }, badge).textContent = `✈${count}`;
    });
  }
}

function sidePanels(board, position, names) {
  return h("div", { class: "sides" }, board.sides.map((side, seat) => {
    const facts = (position.sides || [])[seat] || { lines: [] };
    const hand = facts.hand
      ? h("div", { class: "hand" }, `hand: ${facts.hand.length ? facts.hand.join(", ") : "empty"}`)
      : (facts.hand_count !== null && facts.hand_count !== undefined
        ? h("div", { class: "hand muted" }, `${facts.hand_count} card(s) in hand (hidden)`) : null);
    return h("div", { class: `card side${position.active === seat ? " active" : ""}`, "data-seat": seat },
      h("h3", { style: `color:${side.color}` }, side.name, names[seat] ? h("span", { class: "muted" }, ` — ${names[seat]}`) : null),
      h("ul", {}, facts.lines.map((line) => h("li", {}, line))), hand);
  }));
}

function infoPanel(position) {
  const lines = [...(position.info || [])];
  if (position.dice) lines.push(`dice: ${position.dice}`);
  return h("div", { class: "card info" }, lines.map((line) => h("div", {}, line)),
           position.text ? h("pre", {}, position.text) : null);
}

function resultText(doc) {
  const r = doc.result;
  if (!r) return "no result";
  const names = doc.header.seat_names;
  const first = r.ranking.map((rank, seat) => [rank, seat]).filter(([rank]) => rank === 0).map(([, seat]) => seat);
  const verdict = first.length > 1 ? "draw" : `${names[first[0]]} (${doc.header.players[first[0]]?.name ?? "?"}) wins`;
  return `${verdict} — ${r.reason}${r.scores && r.scores.length ? " " + r.scores.join(" : ") : ""}${r.detail ? ": " + r.detail : ""}`;
}

// The replay viewer for a replay document ({header, board, start, steps, result, error}). Its steps may
// come later, in batches (`addSteps`, then `finish` with the result), while the viewer is already in use.
export function mountReplay(container, doc, { hash = true } = {}) {
  const board = doc.board;
  const steps = [];
  const names = doc.header.players.map((p) => p.name);
  const positions = [doc.start];
  const drawn = drawBoard(board);
  let current = 0, timer = null, decisions = 0, wanted = null, done = false;
  const counter = h("span", { class: "counter muted" });
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, "aria-label": "step" });
  const speed = h("select", { "aria-label": "speed" }, ["0.5", "1", "2", "4", "8"].map((v) => h("option", { value: v }, `${v}×`)));
  speed.value = "2";
  const play = h("button", { type: "button", title: "Play / pause (space)" }, "▶");
  const jump = h("input", { type: "number", min: 1, placeholder: "decision #", style: "width:8rem", "aria-label": "jump to decision" });
  const list = h("div", { class: "steps" });
  const panels = h("div", {});
  const result = h("div", { class: "card result" });
  const stepLabel = h("div", { class: "card step-label" });
  const problem = h("div", { class: "card error", style: "display:none" });

  function go(index) {
    current = Math.max(0, Math.min(steps.length, index));
    const position = positions[current];
    showPosition(drawn, board, position);
    panels.replaceChildren(infoPanel(position), sidePanels(board, position, names));
    slider.value = current;
    const upTo = steps.slice(0, current).filter((s) => s.seat >= 0).length;
    counter.textContent = `step ${current} of ${steps.length}${done ? "" : "…"} · decision ${upTo}`;
    const step = steps[current - 1];
    stepLabel.textContent = step ? `${step.n}. ${stepText(board, step)}` : "the start";
    result.style.display = done && current === steps.length ? "" : "none";
    for (const row of list.querySelectorAll(".current")) row.classList.remove("current");
    const row = list.querySelector(`[data-step="${current}"]`);
    if (row) { row.classList.add("current"); reveal(list, row); }
    container.setAttribute("data-step", current);
    if (hash && location.protocol !== "file:") history.replaceState(null, "", `#step=${current}`);
    else if (hash) location.hash = `step=${current}`;
  }
  function addSteps(more) {
    const rows = [];
    for (const step of more) {
      steps.push(step);
      positions.push(step.position);
      if (step.seat >= 0) decisions += 1;
      const index = steps.length;
      rows.push(h("div", { class: step.seat < 0 ? "chance" : "", "data-step": index, onclick: () => { stop(); go(index); } },
        h("span", {}, `${step.n}. ${stepText(board, step)}`),
        h("span", { class: "t" }, step.think_ms !== null && step.think_ms !== undefined ? `${step.think_ms.toFixed(1)} ms` : "")));
    }
    list.append(...rows);
    slider.max = steps.length;
    jump.max = Math.max(1, decisions);
    container.setAttribute("data-steps", steps.length);
    if (wanted !== null && wanted <= steps.length) { const to = wanted; wanted = null; go(to); }
    else counter.textContent = `step ${current} of ${steps.length}… · decision ${steps.slice(0, current).filter((s) => s.seat >= 0).length}`;
  }
  function finish(end) {
    done = true;
    doc.result = end.result;
    result.textContent = resultText(doc);
    if (end.error) { problem.replaceChildren(h("strong", {}, "The record does not replay: "), end.error); problem.style.display = ""; }
    container.setAttribute("data-loaded", "true");
    go(wanted !== null ? wanted : current);
    wanted = null;
  }
  function stop() { if (timer) clearInterval(timer); timer = null; play.textContent = "▶"; }
  function toggle() {
    if (timer) return stop();
    if (current >= steps.length) go(0);
    play.textContent = "❚❚";
    timer = setInterval(() => { if (current >= steps.length) { if (done) stop(); } else go(current + 1); }, 500 / Number(speed.value));
  }
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  speed.addEventListener("change", () => { if (timer) { stop(); toggle(); } });
  jump.addEventListener("change", () => {
    const want = Number(jump.value);
    let seen = 0;
    for (let i = 0; i < steps.length; i++) if (steps[i].seat >= 0 && ++seen === want) { stop(); return go(i + 1); }
  });
  play.addEventListener("click", toggle);
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "ArrowRight") { stop(); go(current + 1); }
    else if (event.key === "ArrowLeft") { stop(); go(current - 1); }
    else if (event.key === "Home") { stop(); go(0); }
    else if (event.key === "End") { stop(); go(steps.length); }
    else if (event.key === " ") { event.preventDefault(); toggle(); }
  });
  const controls = h("div", { class: "controls" },
    h("button", { type: "button", title: "Start (Home)", onclick: () => { stop(); go(0); } }, "⇤"),
    h("button", { type: "button", title: "Back (←)", onclick: () => { stop(); go(current - 1); } }, "‹"),
    play,
    h("button", { type: "button", title: "Forward (→)", onclick: () => { stop(); go(current + 1); } }, "›"),
    h("button", { type: "button", title: "End (End)", onclick: () => { stop(); go(steps.length); } }, "⇥"),
    slider, counter, speed, jump);
  container.append(problem,
    h("div", { class: "viewer" },
      h("div", {}, drawn.svg, controls, stepLabel, result,
        h("p", { class: "muted" }, "Keys: ", h("kbd", {}, "←"), " ", h("kbd", {}, "→"), " step, ", h("kbd", {}, "space"), " play, ",
          h("kbd", {}, "Home"), " ", h("kbd", {}, "End"), "; the address keeps the step.")),
      h("div", {}, panels, h("h2", {}, "Steps"), list)));
  const asked = /step=(\d+)/.exec(location.hash);
  wanted = asked ? Number(asked[1]) : null;
  go(0);
  if (hash) window.addEventListener("hashchange", () => {  // a permalink followed on this page
    const step = /step=(\d+)/.exec(location.hash);
    if (step && Number(step[1]) !== current) { stop(); go(Number(step[1])); }
  });
  if (doc.steps) { addSteps(doc.steps); finish(doc); }
  return { go, addSteps, finish, get current() { return current; } };
}

// The live view: a board that follows a running match's public events.
export function mountLive(container) {
  let board = null, drawn = null, names = [];
  const panels = h("div", {});
  const list = h("div", { class: "steps" });
  const status = h("div", { class: "card status" }, "waiting for the referee…");
  const holder = h("div", {});
  container.append(h("div", { class: "viewer" }, h("div", {}, holder, status), h("div", {}, panels, h("h2", {}, "Steps"), list)));
  return {
    header(event) {
      board = event.board;
      names = event.players.map((p) => p.name);
      status.textContent = `${event.game}: ${names.join(" vs ")} — live`;
      if (board) { drawn = drawBoard(board); holder.replaceChildren(drawn.svg); }
    },
    step(event) {
      const row = h("div", { class: event.seat < 0 ? "chance" : "", "data-step": event.n },
        h("span", {}, `${event.n}. ${stepText(board, event)}`),
        h("span", { class: "t" }, event.seat >= 0 ? `${event.think_ms.toFixed(1)} ms` : ""));
      list.appendChild(row);
      reveal(list, row);
      container.setAttribute("data-steps", list.children.length);
      if (event.position && drawn) {
        showPosition(drawn, board, event.position);
        panels.replaceChildren(infoPanel(event.position), sidePanels(board, event.position, names));
      }
    },
    finished(event) {
      const r = event.result;
      status.textContent = `finished: ${r.reason}${r.detail ? " — " + r.detail : ""} (ranking ${r.ranking.join(", ")})`;
      container.setAttribute("data-finished", "true");
    },
    error(event) { status.textContent = `cannot watch: ${event.detail}`; status.classList.add("error"); },
  };
}
