// A rating-history chart: mu after each rated game, with its mu ± 3 sigma band, as SVG.

const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

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
  const x = (i) => left + (history.length === 1 ? 0.5 : i / (history.length - 1)) * (width - left - right);
  const y = (v) => top + (1 - (v - low) / span) * (height - top - bottom);
  const upper = history.map((p, i) => `${x(i)},${y(p.mu + 3 * p.sigma)}`);
  const lower = history.map((p, i) => `${x(i)},${y(p.mu - 3 * p.sigma)}`).reverse();
  el("polygon", { class: "band", points: [...upper, ...lower].join(" ") }, svg);
  el("polyline", { class: "mu", points: history.map((p, i) => `${x(i)},${y(p.mu)}`).join(" ") }, svg);
  for (const value of [low, (low + high) / 2, high]) {
    el("line", { class: "axis", x1: left, x2: width - right, y1: y(value), y2: y(value) }, svg);
    el("text", { x: 4, y: y(value) + 4 }, svg).textContent = value.toFixed(1);
  }
  el("text", { x: left, y: height - 6 }, svg).textContent = "game 1";
  const end = el("text", { x: width - right, y: height - 6, "text-anchor": "end" }, svg);
  end.textContent = `game ${history.length}${history.at(-1).at ? " · " + history.at(-1).at.slice(0, 10) : ""}`;
  const last = history.at(-1);
  el("circle", { cx: x(history.length - 1), cy: y(last.mu), r: 3.5, fill: "currentColor", class: "mu-dot" }, svg);
  return svg;
}
