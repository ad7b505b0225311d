// A rating-history chart: mu after each rated game, with its mu ± 3 sigma band, as SVG.

const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// One bot's rating after each of its rated games; `history` is [{match, game, at, mu, sigma}], perhaps only some
// of its games (a long history is thinned): each point stands at its `game`, the bot's game number from 1.
export function ratingChart(history, { width = 640, height = 220 } = {}) {
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img",
                          "aria-label": "rating history: mu with a band of plus or minus three sigma" });
  if (!history.length) {
    el("text", { x: 12, y: 24 }, svg).textContent = "no rated games yet";
    return svg;
  }
  const left = 40, right = 10, top = 10, bottom = 24;
  const low = Math.min(...history.map((p) => p.mu - 3 * p.sigma));
  const high = Math.max(...history.map((p) => p.mu + 3 * p.sigma));
  const span = high - low || 1;
  const first = history[0], last = history.at(-1);
  const along = (p) => (last.game > first.game ? (p.game - first.game) / (last.game - first.game) : 0.5);
  const x = (p) => left + along(p) * (width - left - right);
  const y = (v) => top + (1 - (v - low) / span) * (height - top - bottom);
  const upper = history.map((p) => `${x(p)},${y(p.mu + 3 * p.sigma)}`);
  const lower = history.map((p) => `${x(p)},${y(p.mu - 3 * p.sigma)}`).reverse();
  el("polygon", { class: "band", points: [...upper, ...lower].join(" ") }, svg);
  el("polyline", { class: "mu", points: history.map((p) => `${x(p)},${y(p.mu)}`).join(" ") }, svg);
  for (const value of [low, (low + high) / 2, high]) {
    el("line", { class: "axis", x1: left, x2: width - right, y1: y(value), y2: y(value) }, svg);
    el("text", { x: 4, y: y(value) + 4 }, svg).textContent = value.toFixed(1);
  }
  el("text", { x: left, y: height - 6 }, svg).textContent = `game ${first.game}`;
  const end = el("text", { x: width - right, y: height - 6, "text-anchor": "end" }, svg);
  end.textContent = `game ${last.game}${last.at ? " · " + last.at.slice(0, 10) : ""}`;
  el("circle", { cx: x(last), cy: y(last.mu), r: 3.5, fill: "currentColor", class: "mu-dot" }, svg);
  return svg;
}

export const SERIES_COLOURS = ["#2463c9", "#d9480f", "#2b8a3e", "#ae3ec9", "#e67700", "#0c8599", "#c2255c", "#5c940d", "#1864ab", "#862e9c"];

// Several bots' ratings over the pool's rated games, one line each: mu - 3 sigma (what the leaderboard ranks
// by) after each of their games (some of them, where a history is long), placed at the game's number among the
// pool's rated matches; `series` is [{bot, points: [{match, game, at, mu, sigma}]}].
export function ratingsChart(series, { width = 1100, height = 240 } = {}) {
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img",
                          "aria-label": "the top bots' ratings (mu minus three sigma) over the pool's games" });
  const lines = series.filter((s) => s.points.length);
  if (!lines.length) {
    el("text", { x: 12, y: 24 }, svg).textContent = "no rated games yet";
    return svg;
  }
  const left = 44, right = 12, top = 12, bottom = 26;
  const value = (p) => p.mu - 3 * p.sigma;
  const points = lines.flatMap((s) => s.points);
  const first = points.reduce((a, p) => (p.game < a.game ? p : a));
  const last = points.reduce((a, p) => (p.game > a.game ? p : a));
  const values = points.map(value);
  const v0 = Math.min(...values), v1 = Math.max(...values);
  const along = (p) => (last.game > first.game ? (p.game - first.game) / (last.game - first.game) : 0.5);
  const x = (p) => left + along(p) * (width - left - right);
  const y = (v) => top + (1 - (v - v0) / (v1 - v0 || 1)) * (height - top - bottom);
  for (const v of [v0, (v0 + v1) / 2, v1]) {
    el("line", { class: "axis", x1: left, x2: width - right, y1: y(v), y2: y(v) }, svg);
    el("text", { x: 4, y: y(v) + 4 }, svg).textContent = v.toFixed(1);
  }
  const label = (p) => `game ${p.game}${p.at ? " · " + p.at.slice(0, 10) : ""}`;
  el("text", { x: left, y: height - 6 }, svg).textContent = label(first);
  el("text", { x: width - right, y: height - 6, "text-anchor": "end" }, svg).textContent = label(last);
  lines.forEach((line, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length];
    const drawn = line.points.map((p) => `${x(p)},${y(value(p))}`);
    el("polyline", { class: "series", points: drawn.join(" "), stroke: colour, "data-bot": line.bot }, svg);
    const end = line.points.at(-1);
    el("circle", { cx: x(end), cy: y(value(end)), r: 3.5, fill: colour }, svg);
  });
  return svg;
}
