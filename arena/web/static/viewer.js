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

// Text as shown: control characters, escape sequences and direction marks (what a bot or an owner may put in a
// name, a version, a note) written out, never interpreted (arena/referee/evidence.py does the same on a
// terminal). Every text node `h` makes goes through it: the one rule, for every page.
export const UNSHOWN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;
export const shown = (text) => String(text ?? "").replace(UNSHOWN, (c) => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
});

// An HTML element: attributes (null, undefined and false ones left out; on* are listeners) and children
// (nested arrays flattened; strings and numbers become text, shown). The pages (app.js) use it too.
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
    node.appendChild(child instanceof Node ? child : document.createTextNode(shown(child)));
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

// A match's moments have one numbering (arena/referee/record.py): its steps (decisions and chance events) from 1,
// the record line with "n": k being step k + 1, and its decisions from 1 over the whole match. A step's row in
// the list, its label and `arena replay` read "28. Red: ... (decision 14)"; the counter "step 28 of 60 ·
// decision 14"; the address "#step=28" ("#decision=14" is taken too); the analysis "decision 14 (step 28)".
function rowText(board, step, decision) {
  return `${step.n + 1}. ${stepText(board, step)}${decision ? ` (decision ${decision})` : ""}`;
}

export function decisionName(decision, step) { return `decision ${decision} (step ${step})`; }

// Scroll a list (not the page) so that `row` is in view.
function reveal(list, row) {
  const top = row.offsetTop - list.offsetTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + row.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + row.offsetHeight - list.clientHeight;
}

const ZONE_COLOURS = ["#8e44ad", "#16a085", "#d35400", "#2c82c9", "#7f8c8d", "#c2185b"];
const ZONE_STRIP = 120;  // the air zones' row under the map

function mapHeight(board) {
  const ys = board.areas.map((a) => a.y);
  return ys.length && Math.max(...ys) - Math.min(...ys) < 0.05 ? 300 : 780;
}

// A label of one or two lines (split at a space when long), centred at y.
function label(parent, text, y, cls) {
  const node = el("text", { class: cls, y }, parent);
  const words = String(text).split(" ");
  if (String(text).length <= 10 || words.length < 2) { node.textContent = text; return node; }
  const half = Math.ceil(words.length / 2);
  el("tspan", { x: 0, dy: "-0.5em" }, node).textContent = words.slice(0, half).join(" ");
  el("tspan", { x: 0, dy: "1.1em" }, node).textContent = words.slice(half).join(" ");
  return node;
}

// A board of a few areas in one row (Major General's line, base to base).
function oneRow(board) {
  return board.areas.length >= 3 && board.areas.length <= 6 && mapHeight(board) === 300;
}

// On a phone a one-row board is folded into two rows (a snake: left to right, then back), so that the
// whole line, both ends (the bases) included, fits the screen with readable labels; `compact` says so.
function snake(board, radius) {
  const columns = Math.ceil(board.areas.length / 2), cell = 2 * radius + 40;
  const order = board.areas.map((a, i) => i).sort((a, b) => board.areas[a].x - board.areas[b].x);
  const place = [];
  order.forEach((area, k) => {
    const row = k < columns ? 0 : 1, column = row === 0 ? k : 2 * columns - 1 - k;
    place[area] = { x: column * cell + cell / 2, y: row * cell + cell / 2 };
  });
  return { width: columns * cell, map: 2 * cell, place, compact: true };
}

// Where each area goes: the board's own coordinates on a 1000-wide map (a one-row board on one line).
function layout(board, radius) {
  if (oneRow(board) && window.matchMedia && window.matchMedia("(max-width: 720px)").matches) return snake(board, radius);
  const width = 1000, map = mapHeight(board);
  const inside = (v, size) => Math.max(radius + 8, Math.min(size - radius - 8, v));
  const place = board.areas.map((a) => ({ x: inside(a.x * width, width),
                                          y: board.areas.length <= 6 ? map / 2 : inside(a.y * map, map) }));
  return { width, map, place, compact: false };
}

// The board with no units: areas, edges, air zones. Returns the SVG and where each area is.
export function drawBoard(board) {
  const n = Math.max(board.areas.length, 1);
  const radius = board.areas.length <= 6 ? 70 : Math.max(30, Math.min(58, 430 / Math.sqrt(n)));
  const { width, map, place, compact } = layout(board, radius);
  const zones = board.groups || [];
  const height = map + (zones.length ? ZONE_STRIP : 0);
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: compact ? "board compact" : "board", role: "img",
                          "aria-label": board.title || "board" });
  const zoneOf = {};
  zones.forEach((zone, z) => zone.areas.forEach((i) => { zoneOf[i] = z; }));
  const edges = el("g", { class: "edges" }, svg);
  for (const [a, b] of board.edges) {
    el("line", { class: "edge", x1: place[a].x, y1: place[a].y, x2: place[b].x, y2: place[b].y }, edges);
  }
  const areas = el("g", { class: "areas" }, svg);
  board.areas.forEach((area, i) => {
    const g = el("g", { class: ["area", ...(area.tags || [])].join(" "), "data-area": area.id,
                        transform: `translate(${place[i].x} ${place[i].y})` }, areas);
    if (zoneOf[i] !== undefined) {
      el("circle", { class: "zone-ring", r: radius + 6, stroke: ZONE_COLOURS[zoneOf[i] % ZONE_COLOURS.length] }, g);
    }
    const body = el("circle", { class: "body", r: radius }, g);
    if (area.hq !== null && area.hq !== undefined) {
      body.style.stroke = board.sides[area.hq].color;  // (a style: the stylesheet's stroke would win over an attribute)
      body.style.strokeWidth = "6";
      g.classList.add("hq");
    }
    const top = -radius * 0.55;  // the name, then the VP and the area's bonus, above the units
    label(g, area.label, top, "name");
    el("text", { class: "note", y: top + 14 }, g).setAttribute("data-vp", area.vp || 0);
    el("text", { class: "note bonus", y: top + 27 }, g);
    el("g", { class: "units" }, g);
    el("g", { class: "commanders" }, g);
  });
  if (zones.length) {
    const strip = el("g", { class: "zones", transform: `translate(0 ${map})` }, svg);
    const gap = 10, boxWidth = (width - gap * (zones.length + 1)) / zones.length;
    zones.forEach((zone, z) => {
      const g = el("g", { class: "group", "data-group": zone.id, transform: `translate(${gap + z * (boxWidth + gap)} 8)` }, strip);
      el("rect", { width: boxWidth, height: ZONE_STRIP - 16, rx: 12, stroke: ZONE_COLOURS[z % ZONE_COLOURS.length] }, g);
      el("text", { class: "name", x: boxWidth / 2, y: 24 }, g).textContent = `✈ ${zone.label}`;
      el("text", { class: "note", x: boxWidth / 2, y: 42 }, g).textContent = zone.areas.map((i) => board.areas[i].label).join(" ");
      el("g", { class: "group-units", transform: `translate(${boxWidth / 2} 68)` }, g);
      el("g", { class: "commanders", transform: `translate(${boxWidth - 16} 16)` }, g);
    });
  }
  return { svg, radius };
}

function badge(parent, x, y, colour, text, attrs = {}) {
  const g = el("g", { class: "unit", transform: `translate(${x} ${y})`, ...attrs }, parent);
  el("rect", { x: -20, y: -11, width: 40, height: 22, rx: 11, fill: colour }, g);
  el("text", { y: 5 }, g).textContent = text;
  return g;
}

// Commanders on an area's (or zone's) action spaces: a flag per side with how many, in the side's colour.
function commanderPips(holder, board, perSide, radius) {
  holder.replaceChildren();
  holder.setAttribute("data-commanders", JSON.stringify(perSide));
  let k = 0;
  perSide.forEach((count, seat) => {
    if (!count) return;
    const angle = (-70 + 34 * k++) * Math.PI / 180;
    const g = el("g", { class: "commander", "data-seat": seat,
                        transform: radius ? `translate(${radius * Math.cos(angle)} ${radius * Math.sin(angle)})` : `translate(${-k * 30 + 30} 0)` }, holder);
    el("circle", { r: 12, fill: board.sides[seat].color }, g);
    el("text", { y: 4.5 }, g).textContent = `⚑${count}`;
  });
}

function commandersBy(board, position, key) {
  const found = {};
  (board.orders || []).forEach((space, i) => {
    const placed = (position.orders || [])[i];
    if (!space[key] || !placed || !placed.some((c) => c)) return;
    const have = found[space[key]] || board.sides.map(() => 0);
    found[space[key]] = have.map((c, seat) => c + (placed[seat] || 0));
  });
  return found;
}

// Put one position on a drawn board: unit badges (data-units holds the counts), notes, commanders, air zones.
export function showPosition(drawn, board, position) {
  const { svg, radius } = drawn;
  const kinds = board.unit_kinds || [];
  const byArea = commandersBy(board, position, "area"), byZone = commandersBy(board, position, "zone");
  const none = board.sides.map(() => 0);
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
        const x = (seat - (perSide.length - 1) / 2) * radius * 0.9;
        badge(units, x, 12 + row * 24, board.sides[seat].color, `${KIND_MARK[kinds[kind]] || ""}${count}`,
              { "data-seat": seat, "data-kind": kinds[kind] || "" });
      });
      if (perSide.some((c) => c)) row += 1;
    });
    const note = g.querySelector("text.note");
    const vp = Number(note.getAttribute("data-vp"));
    note.textContent = vp ? `${vp} VP` : "";
    g.querySelector("text.bonus").textContent = ((position.marks || {})[id] || []).join(" · ");
    commanderPips(g.querySelector(".commanders"), board, byArea[id] || none, radius);
  }
  for (const g of svg.querySelectorAll(".group")) {
    const zone = g.getAttribute("data-group");
    const counts = (position.groups || {})[zone] || [];
    g.setAttribute("data-units", JSON.stringify(counts));
    const holder = g.querySelector(".group-units");
    holder.replaceChildren();
    const aircraft = counts[0] || [];
    aircraft.forEach((count, seat) => {
      if (count) badge(holder, (seat - (aircraft.length - 1) / 2) * 48, 0, board.sides[seat].color, `✈${count}`);
    });
    commanderPips(g.querySelector(".commanders"), board, byZone[zone] || none, 0);
  }
}

// The order board: every action space, grouped by action, with the commanders placed on it.
function orderBoard(board, position, names) {
  if (!board.orders || !board.orders.length) return null;
  const rows = new Map();
  board.orders.forEach((space, i) => {
    const placed = (position.orders || [])[i] || [];
    const target = space.area ?? (space.zone ? `✈ ${space.zone}` : "support");
    const tokens = placed.flatMap((count, seat) => Array.from({ length: count }, () =>
      h("span", { class: "token", style: `background:${board.sides[seat].color}`, title: `${board.sides[seat].name} commander` })));
    const chip = h("span", { class: `space${tokens.length ? " taken" : ""}`, "data-space": i, "data-commanders": JSON.stringify(placed),
                             title: space.label, style: space.side !== null && space.side !== undefined ? `border-color:${board.sides[space.side].color}` : null },
      target, tokens);
    if (!rows.has(space.action)) rows.set(space.action, []);
    rows.get(space.action).push(chip);
  });
  const placed = board.sides.map((side, seat) => (position.orders || []).reduce((sum, p) => sum + (p[seat] || 0), 0));
  return h("div", { class: "card orders" },
    h("h3", {}, "Order board ", h("span", { class: "muted" }, board.sides.map((side, seat) => `${side.name}${names[seat] ? ` (${names[seat]})` : ""} ${placed[seat]}`).join(" · "))),
    [...rows].map(([action, chips]) => h("div", { class: "order-row" }, h("span", { class: "action" }, action), h("span", { class: "chips" }, chips))));
}

// What the marks on this board mean (only those it uses).
function legend(board) {
  const swatch = (draw) => { const svg = el("svg", { viewBox: "-14 -14 28 28", class: "swatch", "aria-hidden": "true" }); draw(svg); return svg; };
  const side = board.sides[0] ? board.sides[0].color : "#888";
  const items = [];
  if (board.areas.some((a) => a.hq !== null && a.hq !== undefined)) items.push([swatch((s) => el("circle", { r: 10, class: "hq-ring", stroke: side }, s)), "a side's HQ (its colour)"]);
  if (board.areas.some((a) => (a.tags || []).includes("water"))) items.push([swatch((s) => el("circle", { r: 10, class: "water" }, s)), "water area"]);
  if (board.areas.some((a) => (a.tags || []).includes("fortified"))) items.push([swatch((s) => el("circle", { r: 10, class: "fortified" }, s)), "fortified area"]);
  if ((board.groups || []).length) items.push([swatch((s) => el("circle", { r: 10, class: "zone", stroke: ZONE_COLOURS[0] }, s)), "dashed ring: the area's air zone (boxes below the map)"]);
  const kinds = board.unit_kinds || [];
  const words = { troops: "troops", units: "units", aircraft: "aircraft", ships: "ships", siege_weapons: "siege weapons" };
  for (const kind of kinds) items.push([h("span", { class: "chip", style: `background:${side}` }, `${KIND_MARK[kind] || ""}3`), `${words[kind] || kind} (how many, in the side's colour)`]);
  if ((board.groups || []).length) items.push([h("span", { class: "chip", style: `background:${side}` }, "✈2"), "aircraft in an air zone"]);
  if ((board.orders || []).length) items.push([h("span", { class: "chip round", style: `background:${side}` }, "⚑1"), "commanders on the area's action spaces (see the order board)"]);
  if (board.areas.some((a) => a.vp)) items.push([h("strong", {}, "VP"), "victory points the area is worth"]);
  items.push([h("span", {}, "★"), "the winner"]);
  return h("div", { class: "legend muted" }, items.map(([mark, text]) => h("span", { class: "item" }, mark, " ", text)));
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

// Who won and how, as the server says it (MatchResult.verdict: "Yellow (greedy) wins (score, 9 : 5)"), then the
// referee's detail, if any.
function verdictLine(r) {
  return `${r.verdict}${r.detail ? ": " + r.detail : ""}`;
}

function resultText(doc) {
  return doc.result ? verdictLine(doc.result) : "no result";
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
  const decisionOf = [];  // per step (from 0), its decision number (0: a chance step)
  let wantedDecision = null;  // the decision the address asked for (#decision=14), until its step has come
  const counter = h("span", { class: "counter muted" });
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, "aria-label": "step" });
  const speed = h("select", { "aria-label": "speed" }, ["0.5", "1", "2", "4", "8"].map((v) => h("option", { value: v }, `${v}×`)));
  speed.value = "2";
  const play = h("button", { type: "button", title: "Play / pause (space)" }, "▶");
  const jump = h("input", { type: "number", min: 1, placeholder: "decision #", style: "width:8rem", "aria-label": "jump to decision" });
  const list = h("div", { class: "steps" });
  const search = h("input", { type: "search", placeholder: "search the steps (Enter: next)", "aria-label": "search steps" });
  const found = h("span", { class: "muted found" });
  const panels = h("div", {});
  const orders = h("div", {});
  const result = h("div", { class: "card result" });
  const stepLabel = h("div", { class: "card step-label" });
  const noteCard = h("div", { class: "card note", id: "note", style: "display:none" });
  let notes = new Map(), notesFor = "";  // the record's step n -> the note its bot left (its owner's view only)
  const problem = h("div", { class: "card error", style: "display:none" });
  const analysed = h("div", { class: "analysis" });
  let chart = null, turning = new Map();

  function go(index) {
    current = Math.max(0, Math.min(steps.length, index));
    const position = positions[current];
    showPosition(drawn, board, position);
    panels.replaceChildren(infoPanel(position), sidePanels(board, position, names));
    orders.replaceChildren(orderBoard(board, position, names) || "");
    slider.value = current;
    counter.textContent = counterText();
    const step = steps[current - 1];
    stepLabel.textContent = step ? rowText(board, step, decisionOf[current - 1]) : "the start";
    const note = step ? notes.get(step.n) : undefined;
    noteCard.style.display = note ? "" : "none";
    if (note) noteCard.replaceChildren(...[h("strong", {}, `${names[note.seat] ?? `seat ${note.seat}`}'s note`),
      h("span", { class: "muted" }, notesFor), note.note ? h("pre", {}, note.note) : null,
      ...(note.output ? [h("div", { class: "muted" }, "what it printed with this decision:"),
                         h("pre", { class: "output" }, note.output)] : [])].filter(Boolean));
    result.style.display = done && current === steps.length ? "" : "none";
    for (const row of list.querySelectorAll(".current")) row.classList.remove("current");
    const row = list.querySelector(`[data-step="${current}"]`);
    if (row) { row.classList.add("current"); reveal(list, row); }
    container.setAttribute("data-step", current);
    if (chart) chart.at(current);
    if (hash && location.protocol !== "file:") history.replaceState(null, "", `#step=${current}`);
    else if (hash) location.hash = `step=${current}`;
  }
  // "step 28 of 60 · decision 14", "step 29 of 60 · chance, after decision 14", "step 0 of 60 · the start".
  function counterText() {
    const of = `step ${current} of ${steps.length}${done ? "" : "…"}`;
    if (current === 0) return `${of} · the start`;
    if (decisionOf[current - 1]) return `${of} · decision ${decisionOf[current - 1]}`;
    let before = 0;
    for (let i = current - 1; i >= 0 && !before; i--) before = decisionOf[i];
    return `${of} · chance${before ? `, after decision ${before}` : ""}`;
  }
  // The step of decision `number` (0 when the match, so far, has none such; decisions count from 1, and a chance
  // step's 0 in decisionOf is no decision's).
  function stepOfDecision(number) { return number >= 1 ? decisionOf.indexOf(number) + 1 : 0; }
  function addSteps(more) {
    const rows = [];
    for (const step of more) {
      steps.push(step);
      positions.push(step.position);
      if (step.seat >= 0) decisions += 1;
      decisionOf.push(step.seat >= 0 ? decisions : 0);
      const index = steps.length;
      rows.push(h("div", { class: step.seat < 0 ? "chance" : "", "data-step": index,
                           "data-decision": step.seat >= 0 ? decisions : null, onclick: () => { stop(); go(index); } },
        h("span", {}, rowText(board, step, decisionOf[index - 1])),
        h("span", { class: "t" }, step.think_ms !== null && step.think_ms !== undefined ? `${step.think_ms.toFixed(1)} ms` : "")));
    }
    list.append(...rows);
    markTurning();
    if (search.value.trim()) filter();
    slider.max = steps.length;
    jump.max = Math.max(1, decisions);
    container.setAttribute("data-steps", steps.length);
    if (wantedDecision !== null && stepOfDecision(wantedDecision)) {  // #decision=N: its step has come
      wanted = stepOfDecision(wantedDecision);
      wantedDecision = null;
    }
    if (wanted !== null && wanted <= steps.length) { const to = wanted; wanted = null; go(to); }
    else counter.textContent = counterText();
  }
  function finish(end) {
    done = true;
    doc.result = end.result;
    result.textContent = resultText(doc);
    if (end.error) { problem.replaceChildren(h("strong", {}, "The record does not replay: "), end.error); problem.style.display = ""; }
    container.setAttribute("data-loaded", "true");
    go(wanted !== null ? wanted : current);
    wanted = null;
    wantedDecision = null;
  }
  function stop() { if (timer) clearInterval(timer); timer = null; play.textContent = "▶"; }
  // The analysis (arena analyse): the chance curve under the board, its turning points marked on it, listed,
  // and flagged in the step list; a click on the curve goes to that decision.
  function showAnalysis(analysis) {
    chart = chanceChart(analysis, names, (step) => { stop(); go(step); }, board.sides || []);
    turning = new Map(analysis.turning_points.map((p) => [p.step + 1, p]));
    const who = (seat) => names[seat] || analysis.seat_names[seat];
    analysed.replaceChildren(...[  // (what is not shown is null: left out, never written as "null")
      h("h2", {}, "Chance to win"),
      chart.svg, chart.legend,
      h("p", { class: "muted" }, `${analysis.decisions.length} decisions searched from each mover's own view, ` +
        `budget ${analysis.budget} per decision; click the curve to go to a decision.`),
      asTheyPlay(analysis, who),
      analysis.turning_points.length
        ? h("ol", { class: "turning-points" }, analysis.turning_points.map((p) =>
            h("li", { "data-step": p.step + 1 },
              h("a", { href: `#step=${p.step + 1}`, onclick: (event) => { event.preventDefault(); stop(); go(p.step + 1); } },
                decisionName(p.decision + 1, p.step + 1)),
              ` ${who(p.seat)}: ${p.played} (−${Math.round(p.drop * 100)}%); better: ${p.best} (kept ${Math.round(p.kept * 100)}%)` +
                (p.judged_by === "playouts" ? "; judged by playouts" : ""))))
        : h("p", {}, "No turning point: no move lost much of its mover's chance."),
      ...(analysis.slides || []).map((s) => h("p", { class: "slide" },
        `${who(s.seat)} slid from ${pct0(s.start)} to ${pct0(s.end)} with no single turning point: its own moves ` +
        `${s.own_moves >= 0 ? "cost" : "gained"} ${pct0(Math.abs(s.own_moves))} in all (${costlyMoves(s)})` +
        (s.luck === null || s.luck === undefined ? "" : `, chance ${s.luck >= 0 ? "+" : "−"}${pct0(Math.abs(s.luck))}`) +
        "; the rest was the other side's play: out-played a little at a time.")),
      (analysis.slides || []).length
        ? h("p", { class: "muted" }, "A larger budget looks closer (its searches' noise about half): ",
            h("code", {}, `arena analyse ${analysis.match.slice(0, 12)} --budget ${analysis.closer_budget}`))
        : null].filter((node) => node !== null));
    container.setAttribute("data-analysed", "true");
    markTurning();
    chart.at(current);
  }
  function pct0(value) { return `${Math.round(value * 100)}%`; }
  // How many of a sliding seat's moves lost anything, and the most one lost.
  function costlyMoves(slide) {
    return slide.costly_moves ? `${slide.costly_moves} of them lost some, at most ${pct0(slide.largest)} at once`
      : "none of them lost any";
  }
  function signed(value) { return `${value >= 0 ? "+" : "−"}${Math.abs(value * 100).toFixed(1)}%`; }
  // The chances as these two players play (arena/analysis/players.py), where both players' forms are known.
  function asTheyPlay(analysis, who) {
    const first = analysis.decisions.length ? analysis.decisions[0] : null;
    if (!analysis.players || !first || first.expected === null || first.expected === undefined) return null;
    const seat0 = first.seat === 0 ? first.expected : 1 - first.expected;
    const drop = (seat) => analysis.players[seat].drop;
    const form = (seat) => `${who(seat)}'s moves ${drop(seat) >= 0 ? "lose" : "gain"} ` +
      `${Math.abs(drop(seat) * 100).toFixed(1)}% of a game ` +
      `each (${analysis.players[seat].matches} match(es))`;
    const edge = (seat) => `${who(seat)}'s ${signed(analysis.players[seat].edge)} ` +
      `(${analysis.players[seat].edge_matches} matches)`;
    const edges = analysis.seat_edge ? ` And as each has fared in its seat (its results over its chances at a ` +
      `match's start, fading by the end): ${edge(0)}; ${edge(1)}, so ${who(0)} ${signed(analysis.seat_edge)} ` +
      `at the start.` : "";
    return h("p", { class: "as-they-play" },
      `As they play: ${who(0)} ${pct0(seat0)}, ${who(1)} ${pct0(1 - seat0)} at the start, if each side goes on ` +
      `losing what its moves lost in its other analysed matches: ${form(0)}; ${form(1)}.${edges}`);
  }
  function markTurning() {
    for (const [step, p] of turning) {
      const row = list.querySelector(`[data-step="${step}"]`);
      if (!row || row.classList.contains("turning")) continue;
      row.classList.add("turning");
      row.title = `turning point: −${Math.round(p.drop * 100)}%; better: ${p.best}`;
    }
  }
  // The step list, filtered to the rows holding the search words (a card, a side, an area, a reason...).
  function filter() {
    const words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    let hits = 0;
    for (const row of list.children) {
      const text = row.textContent.toLowerCase();
      const hit = words.every((word) => text.includes(word));
      row.classList.toggle("hidden", !hit);
      if (hit && words.length) hits += 1;
    }
    found.textContent = words.length ? `${hits} of ${list.children.length} step(s)` : "";
    container.setAttribute("data-found", words.length ? hits : "");
  }
  search.addEventListener("input", filter);
  search.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    const rows = [...list.children].filter((row) => !row.classList.contains("hidden"));
    const next = rows.find((row) => Number(row.dataset.step) > current) || rows[0];
    if (next) { stop(); go(Number(next.dataset.step)); }
  });
  function toggle() {
    if (timer) return stop();
    if (current >= steps.length) go(0);
    play.textContent = "❚❚";
    timer = setInterval(() => { if (current >= steps.length) { if (done) stop(); } else go(current + 1); }, 500 / Number(speed.value));
  }
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  speed.addEventListener("change", () => { if (timer) { stop(); toggle(); } });
  jump.addEventListener("change", () => {
    const to = stepOfDecision(Number(jump.value));
    if (to) { stop(); go(to); }
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
  const wrap = h("div", { class: "board-wrap" }, drawn.svg);
  container.append(problem,
    h("div", { class: "viewer" },
      h("div", {}, wrap, controls, stepLabel, noteCard, result, analysed, orders, legend(board),
        h("p", { class: "muted" }, "Keys: ", h("kbd", {}, "←"), " ", h("kbd", {}, "→"), " step, ", h("kbd", {}, "space"), " play, ",
          h("kbd", {}, "Home"), " ", h("kbd", {}, "End"), "; the address keeps the step.")),
      h("div", {}, panels, h("h2", {}, "Steps"), h("div", { class: "controls" }, search, found), list)));
  requestAnimationFrame(() => { wrap.scrollLeft = (wrap.scrollWidth - wrap.clientWidth) / 2; });  // a narrow screen: the middle
  const asked = /step=(\d+)/.exec(location.hash), askedDecision = /decision=(\d+)/.exec(location.hash);
  wanted = asked ? Number(asked[1]) : null;
  wantedDecision = !asked && askedDecision ? Number(askedDecision[1]) : null;  // #decision=14: its step, once loaded
  go(0);
  if (hash) window.addEventListener("hashchange", () => {  // a permalink followed on this page
    const step = /step=(\d+)/.exec(location.hash), decision = /decision=(\d+)/.exec(location.hash);
    const to = step ? Number(step[1]) : decision ? stepOfDecision(Number(decision[1])) : null;
    if (to !== null && (step || to) && to !== current) { stop(); go(to); }
  });
  if (doc.steps) { addSteps(doc.steps); finish(doc); }
  if (doc.analysis) showAnalysis(doc.analysis);
  // The notes the owner's bots left with their decisions (GET /api/owner/matches/ID/notes), shown beside the
  // board at their step; the step list marks the steps that have one.
  function showNotes(data) {
    notes = new Map(data.notes.map((n) => [n.n, n]));
    notesFor = data.operator ? " (shown to operators and its owner)" : " (shown to you, its owner, only)";
    for (const row of list.querySelectorAll("[data-step]")) {
      const step = steps[Number(row.dataset.step) - 1];
      if (step && notes.has(step.n)) row.classList.add("has-note");
    }
    container.setAttribute("data-notes", notes.size);
    go(current);
  }
  return { go, addSteps, finish, showAnalysis, showNotes, get current() { return current; } };
}


// The chance curve of both seats (an analysis's `curve`: per seat, its chance before each decision, then the
// result), 50% dashed, turning points as dots; `at(step)` moves the cursor to the decision at a viewer step.
// Each seat's curve in its side's colour (the board's), with a legend, the chance axis (0-100%) and the
// decisions axis; the decision under the pointer is named in its tooltip.
export function chanceChart(analysis, names, onPick, sides = []) {
  const W = 640, H = 160, left = 34, right = 6, top = 6, bottom = 20;
  const curve = analysis.curve, entries = analysis.decisions, n = curve[0].length - 1;
  const x = (i) => left + (n ? i / n : 0) * (W - left - right);
  const y = (p) => top + (1 - p) * (H - top - bottom);
  const colour = (seat) => sides[seat]?.color;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "chance-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("data-decisions", entries.length);
  svg.setAttribute("aria-label", `chance to win over ${entries.length} decisions`);
  const add = (tag, attrs) => { const node = document.createElementNS(SVG, tag); for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v); svg.append(node); return node; };
  add("line", { x1: left, x2: W - right, y1: y(0.5), y2: y(0.5), class: "even" });
  add("line", { x1: left, x2: left, y1: y(1), y2: y(0), class: "axis" });
  add("line", { x1: left, x2: W - right, y1: y(0), y2: y(0), class: "axis" });
  for (const p of [0, 0.5, 1]) add("text", { x: left - 4, y: y(p) + 4, class: "tick", "text-anchor": "end" }).textContent = `${p * 100}%`;
  add("text", { x: (left + W - right) / 2, y: H - 4, class: "tick", "text-anchor": "middle" }).textContent = `decision (1–${entries.length}) →`;
  curve.forEach((values, seat) => {
    const line = add("polyline", { points: values.map((p, i) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(" "), class: `seat${seat}` });
    if (colour(seat)) line.setAttribute("style", `stroke: ${colour(seat)}`);
    const title = document.createElementNS(SVG, "title");
    title.textContent = `${names[seat] || analysis.seat_names[seat]}: ${Math.round(values[0] * 100)}% → ${Math.round(values[n] * 100)}%`;
    line.append(title);
  });
  for (const p of analysis.turning_points) {
    const value = curve[p.seat][p.decision];
    const dot = add("circle", { cx: x(p.decision).toFixed(1), cy: y(value).toFixed(1), r: 5, class: `turning seat${p.seat}`, "data-step": p.step + 1 });
    const title = document.createElementNS(SVG, "title");
    title.textContent = `${decisionName(p.decision + 1, p.step + 1)}: ${p.played} (−${Math.round(p.drop * 100)}%)`;
    dot.append(title);
  }
  const cursor = add("line", { x1: x(0), x2: x(0), y1: y(1), y2: y(0), class: "cursor" });
  const pointed = document.createElementNS(SVG, "title");
  svg.append(pointed);
  const decisionAt = (event) => {
    const box = svg.getBoundingClientRect();
    const at = Math.round(((event.clientX - box.left) / box.width * W - left) / (W - left - right) * n);
    return Math.max(0, Math.min(n, at));
  };
  svg.addEventListener("mousemove", (event) => {  // the decision under the pointer, and both seats' chances there
    const i = decisionAt(event);
    const entry = entries[Math.min(i, entries.length - 1)];
    pointed.textContent = `${i === 0 ? "the start" : `after decision ${i}`}: ` + curve.map((values, seat) =>
      `${names[seat] || analysis.seat_names[seat]} ${Math.round(values[i] * 100)}%`).join(", ") +
      (entry && i < entries.length ? ` · next: ${analysis.seat_names[entry.seat]} ${entry.played}` : "");
  });
  svg.addEventListener("click", (event) => {
    const i = decisionAt(event);
    onPick(i === 0 ? 0 : i >= entries.length ? Infinity : entries[i - 1].step + 1);  // after i decisions
  });
  function at(step) {  // the curve's point after the decisions taken by this viewer step
    let i = 0;
    while (i < entries.length && entries[i].step < step) i += 1;
    cursor.setAttribute("x1", x(i).toFixed(1));
    cursor.setAttribute("x2", x(i).toFixed(1));
    svg.setAttribute("data-at", i);
  }
  const legend = h("p", { class: "chart-legend muted" }, curve.map((_values, seat) => h("span", { class: "key", "data-seat": seat },
    h("span", { class: "swatch-line", style: `background: ${colour(seat) || "currentColor"}` }), ` ${analysis.seat_names[seat]}${names[seat] ? ` (${names[seat]})` : ""}  `)),
    h("br", {}), "Each seat's chance to win if both sides played on like Arena's search (budget ", analysis.budget, "); red dots: turning points.");
  return { svg, at, legend };
}

// The live view: a board that follows a running match's public events.
export function mountLive(container) {
  let board = null, drawn = null, names = [], decisions = 0;
  const panels = h("div", {});
  const orders = h("div", {});
  const list = h("div", { class: "steps" });
  const status = h("div", { class: "card status" }, "waiting for the referee…");
  const holder = h("div", { class: "board-wrap" });
  container.append(h("div", { class: "viewer" }, h("div", {}, holder, status, orders), h("div", {}, panels, h("h2", {}, "Steps"), list)));
  return {
    header(event) {
      board = event.board;
      names = event.players.map((p) => p.name);
      status.textContent = `${event.game}: ${names.join(" vs ")} — live`;
      if (board) { drawn = drawBoard(board); holder.replaceChildren(drawn.svg); holder.after(legend(board)); }
    },
    step(event) {
      if (event.seat >= 0) decisions += 1;  // (a watcher catches up on every step first: the count is the match's)
      const row = h("div", { class: event.seat < 0 ? "chance" : "", "data-step": event.n + 1 },
        h("span", {}, rowText(board, event, event.seat >= 0 ? decisions : 0)),
        h("span", { class: "t" }, event.seat >= 0 ? `${event.think_ms.toFixed(1)} ms` : ""));
      list.appendChild(row);
      reveal(list, row);
      container.setAttribute("data-steps", list.children.length);
      if (event.position && drawn) {
        showPosition(drawn, board, event.position);
        panels.replaceChildren(infoPanel(event.position), sidePanels(board, event.position, names));
        orders.replaceChildren(orderBoard(board, event.position, names) || "");
      }
    },
    finished(event) {
      status.textContent = `finished: ${verdictLine(event.result)}`;
      container.setAttribute("data-finished", "true");
    },
    error(event) { status.textContent = `cannot watch: ${event.detail}`; status.classList.add("error"); },
  };
}
