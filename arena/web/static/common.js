// What every page shares: the API call, tables, pagers, errors, and how numbers, times and a bot's own
// words are shown.
import { h, shown, UNSHOWN } from "./viewer.js";

export { h, shown, UNSHOWN };
export const main = document.getElementById("main");

export const enc = encodeURIComponent;
export const num = (value, digits = 2) => (value === null || value === undefined ? "–" : Number(value).toFixed(digits));
export const pct = (value) => (value === null || value === undefined ? "–" : `${(100 * value).toFixed(1)}%`);
export const ago = (iso) => {
  if (!iso) return "–";
  const seconds = (Date.now() - Date.parse(iso)) / 1000;
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60]]) if (seconds >= size) return `${Math.floor(seconds / size)}${unit} ago`;
  return `${Math.max(0, Math.floor(seconds))}s ago`;
};
// " v3" after a bot's name; a remote bot has no versions of ours: " (remote)"; nothing for none.
export const versionOf = (version) => (version === "remote" ? " (remote)" : version ? ` v${version}` : "");
export const botLink = (name) => h("a", { href: `/bots/${enc(name)}` }, name);
export const matchLink = (id, text) => h("a", { href: `/matches/${id}` }, text ?? `#${id}`);

export class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

export async function api(path, init = {}) {
  const response = await fetch(`/api${path}`, init);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = typeof body.detail === "string" ? body.detail
      : Array.isArray(body.detail) ? body.detail.map((e) => `${(e.loc || []).slice(1).join(".")}: ${e.msg}`).join("; ")
      : response.statusText;
    throw new ApiError(response.status, detail);
  }
  return body;
}

export function table(columns, rows, { sort = null, order = null, onSort = null } = {}) {
  const head = h("tr", {}, columns.map((c) => {
    const sortable = onSort && c.key;
    const classes = [c.num ? "num" : "", sortable ? "sortable" : "", sort === c.key ? "sorted" : "", sort === c.key && order === "asc" ? "asc" : ""].join(" ");
    return h("th", { class: `${classes} ${c.wrap ? "wrap" : ""}`.trim(), "data-key": c.key || null, onclick: sortable ? () => onSort(c.key) : null }, c.title);
  }));
  const body = rows.map((row) => h("tr", {}, columns.map((c) => h("td", { class: [c.num ? "num" : "", c.wrap ? "wrap" : "", c.name || ""].join(" ").trim() }, c.cell(row)))));
  return h("div", { class: "scroll" }, h("table", {}, h("thead", {}, head), h("tbody", {}, body)));
}

export function pager(data, onPage) {
  const pages = Math.max(1, Math.ceil(data.total / data.per_page));
  if (pages <= 1) return h("div", { class: "pager muted" }, `${data.total} in all`);
  return h("div", { class: "pager" },
    h("button", { type: "button", disabled: data.page <= 1, onclick: () => onPage(data.page - 1) }, "← newer"),
    h("span", { class: "muted" }, `page ${data.page} of ${pages} (${data.total} in all)`),
    h("button", { type: "button", disabled: data.page >= pages, onclick: () => onPage(data.page + 1) }, "older →"));
}

export function showError(status, detail) {
  document.title = `Arena — ${status === 404 ? "not found" : "error"}`;
  main.replaceChildren(h("div", { class: "card error" }, h("h1", {}, status === 404 ? "Not found" : status ? `Error ${status}` : "Error"),
    h("p", {}, detail), h("p", {}, h("a", { href: "/" }, "Back to the leaderboards"))));
}

export const pill = (text) => h("span", { class: `pill ${text}` }, text);

