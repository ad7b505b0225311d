// Arena's pages: each draws itself from the JSON API (/api, documented at /openapi.json).
import { SERIES_COLOURS, ratingChart, ratingsChart } from "./chart.js";
import { h, mountLive, mountReplay } from "./viewer.js";
import { ApiError, ago, api, botLink, enc, main, matchLink, num, pager, pct, pill, shown, showError, table, versionOf } from "./common.js";
import { accountPage, signInPage, signUpPage, signOutLink } from "./account.js";

// --- pages ----------------------------------------------------------------------------------------

// One game's leaderboard at a time, picked from the pools (the address keeps the choice: /?pool=NAME): each
// bot marked built-in, submitted or remote, with its owner and version, and a chart of the top bots' ratings.
async function leaderboards() {
  document.title = "Arena — leaderboards";
  const { pools } = await api("/leaderboards");
  main.replaceChildren(h("h1", {}, "Leaderboards"));
  if (!pools.length) {
    main.append(h("p", { class: "muted" }, "No rated matches yet: play some with ", h("code", {}, "arena tournament run GAME --bots a,b,c"), "."));
    return;
  }
  const params = new URLSearchParams(location.search);
  const busiest = pools.reduce((a, b) => (b.matches > a.matches ? b : a)).pool;  // the home opens where most is played
  const state = { pool: pools.some((p) => p.pool === params.get("pool")) ? params.get("pool") : busiest,
                  sort: "rank", order: null, bt: false, all: false, page: 1 };
  const picker = h("select", { id: "pool", "aria-label": "game" }, pools.map((p) =>
    h("option", { value: p.pool }, `${p.pool} (${p.bots} bot${p.bots === 1 ? "" : "s"}, ${p.matches} matches)`)));
  picker.value = state.pool;
  const section = h("section", { class: "card leaderboard" });
  main.append(h("div", { class: "picker" }, h("label", { for: "pool" }, "Game"), picker), section);
  picker.addEventListener("change", () => {
    Object.assign(state, { pool: picker.value, sort: "rank", order: null, page: 1 });
    history.replaceState(null, "", `/?pool=${enc(state.pool)}`);
    draw();
  });
  const draw = async () => {
    const query = `?sort=${state.sort}${state.order ? `&order=${state.order}` : ""}&bt=${state.bt}&all_versions=${state.all}&page=${state.page}&per_page=50&history=5`;
    const data = await api(`/leaderboards/${state.pool.split("/").map(enc).join("/")}${query}`);
    section.setAttribute("data-pool", state.pool);
    const columns = [
      { title: "#", key: "rank", num: true, cell: (r) => r.rank },
      { title: "bot", key: "bot", cell: (r) => botLink(r.bot) },
      { title: "", cell: (r) => pill(r.origin) },
      { title: "version", cell: (r) => versionOf(r.version).trim() },
      { title: "owner", cell: (r) => r.owner || (r.origin === "built-in" ? "Arena" : "–") },
      { title: "mu", key: "mu", num: true, cell: (r) => num(r.mu) },
      { title: "sigma", key: "sigma", num: true, cell: (r) => num(r.sigma) },
      { title: "mu − 3σ", key: "score", num: true, cell: (r) => h("strong", {}, num(r.conservative)) },
      { title: "games", key: "games", num: true, cell: (r) => r.games },
      { title: "win rate (95%)", key: "win_rate", num: true, cell: (r) => `${pct(r.win_rate)} [${pct(r.win_rate_low)}–${pct(r.win_rate_high)}]` },
      { title: "last played", key: "last_played", cell: (r) => ago(r.last_played) },
    ];
    if (state.bt) columns.push({ title: "Bradley–Terry Elo (95%)", cell: (r) => (r.bt_elo === undefined || r.bt_elo === null ? "–" : `${r.bt_elo.toFixed(0)} [${r.bt_elo_low.toFixed(0)}, ${r.bt_elo_high.toFixed(0)}]`) });
    const onSort = (key) => { state.order = state.sort === key ? (data.order === "asc" ? "desc" : "asc") : null; state.sort = key; state.page = 1; draw(); };
    section.replaceChildren(
      h("h2", {}, state.pool, h("span", { class: "muted" }, ` · ${data.matches} rated match(es)`)),
      h("div", { class: "controls" },
        h("label", {}, h("input", { type: "checkbox", checked: state.bt, onchange: (e) => { state.bt = e.target.checked; draw(); } }), " Bradley–Terry"),
        h("label", {}, h("input", { type: "checkbox", checked: state.all, onchange: (e) => { state.all = e.target.checked; draw(); } }), " retired versions"),
        h("a", { href: `/matches?pool=${enc(state.pool)}` }, "matches")),
      table(columns, data.standings, { sort: state.sort, order: data.order, onSort }),
      pager(data, (page) => { state.page = page; draw(); }),
      h("h3", {}, "The top bots over time ", h("span", { class: "muted" }, "(mu − 3σ after each rated game)")),
      ratingsChart(data.history, { width: Math.max(320, Math.min(1100, section.clientWidth - 34)) }),  // 1:1, text readable
      h("div", { class: "series-legend" }, data.history.map((line, i) =>
        h("span", {}, h("span", { class: "key", style: `background:${SERIES_COLOURS[i % SERIES_COLOURS.length]}` }), line.bot))));
  };
  await draw();
}

async function botList() {
  document.title = "Arena — bots";
  const search = h("input", { type: "search", placeholder: "name contains…", "aria-label": "search bots" });
  const holder = h("div", {});
  main.replaceChildren(h("h1", {}, "Bots"), h("div", { class: "controls" }, search), holder);
  const draw = async (page = 1) => {
    const data = await api(`/bots?page=${page}&per_page=50${search.value ? `&q=${enc(search.value)}` : ""}`);
    holder.replaceChildren(table([
      { title: "bot", cell: (r) => botLink(r.name) },
      { title: "versions", num: true, cell: (r) => r.versions },
      { title: "live version", cell: (r) => r.live_version ?? "–" },
      { title: "status", cell: (r) => pill(r.status) },
      { title: "", cell: (r) => pill(r.origin) },
      { title: "owner", cell: (r) => r.owner || (r.origin === "built-in" ? "Arena" : "–") },
    ], data.bots), pager(data, draw));
  };
  search.addEventListener("input", () => draw(1));
  await draw();
}

function preflightReport(report) {
  if (!report) return null;
  const steps = (report.steps || []).map((s) => h("li", {}, `${s.ok ? "✓" : s.skipped ? "–" : "✗"} ${s.title}: ${shown(s.detail)} `, h("span", { class: "muted" }, `(${num(s.seconds)} s)`)));
  const usage = report.usage || {};
  return h("details", { class: "preflight" }, h("summary", {}, `pre-flight ${report.ok ? "passed" : "failed"} in ${num(report.seconds)} s`),
    h("ul", {}, steps),
    h("p", { class: "muted" }, `peak memory ${usage.memory_peak_mb ?? "not measured"} MB, peak processes ${usage.processes_peak ?? "not measured"}, CPU ${usage.cpu_seconds ?? "–"} s`),
    (report.fix || []).map((fix) => h("p", {}, h("strong", {}, "fix: "), fix)),
    report.output_tail ? h("pre", {}, shown(report.output_tail)) : null);
}

async function botPage(name) {
  document.title = `Arena — ${name}`;
  const bot = await api(`/bots/${enc(name)}`);
  main.replaceChildren(h("h1", {}, bot.name, " ", pill(bot.versions.at(-1).origin), bot.owner ? h("span", { class: "muted" }, ` · owner ${bot.owner}`) : null,
    bot.remote ? [" ", pill(bot.remote.online ? "online" : "offline")] : null));
  if (bot.remote) main.append(h("p", { class: "muted", id: "presence" }, `Runs on its owner's computer: ${bot.remote.online ? `connected now (${bot.remote.streams} stream(s))` : "not connected"}; last seen ${bot.remote.last_seen ? ago(bot.remote.last_seen) : "never"}.`));
  main.append(h("h2", {}, "Versions"), table([
    { title: "version", cell: (v) => v.version },
    { title: "artifact", cell: (v) => h("code", {}, v.artifact_hash.slice(0, 12)) },
    { title: "status", cell: (v) => pill(v.status) },
    { title: "submitted", cell: (v) => ago(v.submitted_at) },
    { title: "retired", cell: (v) => (v.retired_at ? ago(v.retired_at) : "–") },
    { title: "faults", cell: (v) => Object.entries(v.faults).map(([reason, count]) => `${reason} ×${count}`).join(", ") || "none" },
  ], bot.versions));
  const played = bot.versions.filter((v) => v.ratings.length);
  if (played.length >= 2) {  // the newest version that played against the one before it
    const [older, newer] = played.slice(-2);
    const holder = h("section", { class: "card", id: "compare" }, h("h2", {}, `v${newer.version} against v${older.version}`));
    main.append(holder);
    api(`/bots/${enc(bot.name)}/compare?a=${enc(older.version)}&b=${enc(newer.version)}`).then((data) => {
      const cell = (v, low, high) => (v === null ? "–" : `${pct(v)} [${pct(low)}–${pct(high)}]`);
      const side = (mode, s) => (mode.measure === "score less luck" ? cell(s.corrected, s.corrected_low, s.corrected_high) : cell(s.score, s.score_low, s.score_high));
      holder.append(table([  // the verdict first: what a person came for, in sight at any width
        { title: "mode", cell: (m) => m.pool },
        { title: "verdict", name: "verdict", wrap: true, cell: (m) => m.verdict + (m.more_games ? ` (about ${m.more_games} more games each)` : "") },
        { title: `v${newer.version} - v${older.version}`, wrap: true, cell: (m) => (m.difference === null ? "–" : `${m.difference >= 0 ? "+" : ""}${(100 * m.difference).toFixed(1)} points [${(100 * m.difference_low).toFixed(1)}, ${(100 * m.difference_high).toFixed(1)}]`) },
        { title: `v${older.version}`, wrap: true, cell: (m) => `${side(m, m.a)} · ${m.a.games} games` },
        { title: `v${newer.version}`, wrap: true, cell: (m) => `${side(m, m.b)} · ${m.b.games} games` },
        { title: "opponents both met", num: true, cell: (m) => m.opponents.length },
      ], data.modes), h("p", { class: "muted" }, "On the opponents both versions met, so an easier field does not pass for progress; scores less the luck of the dice and draws where it was measured, 95% intervals. ",
        h("code", {}, `arena bot compare ${bot.name} ${older.version} ${newer.version}`)));
    }).catch((error) => holder.append(h("p", { class: "muted" }, error.message)));
  }
  for (const version of bot.versions) {
    if (version.preflight) main.append(h("div", { class: "card" }, h("strong", {}, `version ${version.version}: `), preflightReport(version.preflight)));
  }
  for (const version of [...bot.versions].reverse()) {
    for (const rating of version.ratings) {
      main.append(h("section", { class: "card rating", "data-pool": rating.pool },
        h("h2", {}, `${rating.pool} `, h("span", { class: "muted" }, `version ${version.version} · rank ${rating.rank ?? "–"} · mu ${num(rating.mu)} · sigma ${num(rating.sigma)} · ${rating.games} games (+${rating.wins} =${rating.draws} −${rating.losses})`)),
        h("div", { class: "row" },
          h("div", {}, ratingChart(rating.history)),
          h("div", {}, table([
            { title: "opponent", cell: (r) => botLink(r.opponent) },
            { title: "games", num: true, cell: (r) => r.games },
            { title: "W-D-L", cell: (r) => `${r.wins}-${r.draws}-${r.losses}` },
            { title: "score (95%)", cell: (r) => `${pct(r.score)} [${pct(r.score_low)}–${pct(r.score_high)}]` },
            { title: "less luck (95%)", cell: (r) => (r.corrected ? withInterval(r.corrected) : "not measured") },
          ], rating.head_to_head), unmeasured(rating.head_to_head))),
        rating.luck && rating.luck.games ? h("p", { class: "muted luck" }, `Luck over its ${rating.luck.games} matches: ${rating.luck.total >= 0 ? "+" : ""}${rating.luck.total.toFixed(2)} points (${rating.luck.per_game >= 0 ? "+" : ""}${rating.luck.per_game.toFixed(3)} a match).`) : null));
    }
  }
  main.append(h("h2", {}, "Recent matches"), matchTable(bot.recent_matches), h("p", {}, h("a", { href: `/matches?bot=${enc(bot.name)}` }, "all matches")));
}

// A score with its 95% interval, or with its count of games where one game gives none.
function withInterval(s) {
  if (s.score_low === null || s.score_high === null) return `${pct(s.score)} (${s.games} game${s.games === 1 ? "" : "s"})`;
  return `${pct(s.score)} [${pct(s.score_low)}–${pct(s.score_high)}]`;
}

// Why a head-to-head's "less luck" column reads "not measured" (each reason once), or nothing.
function unmeasured(rows) {
  const why = [...new Set(rows.map((r) => r.corrected_why).filter(Boolean))];
  return why.length ? h("p", { class: "muted luck-why" }, `Less luck: ${why.join("; ")}.`) : null;
}

function matchTable(rows) {
  return table([
    { title: "match", cell: (m) => matchLink(m.id) },
    { title: "game", cell: (m) => m.game },
    { title: "seats", cell: (m) => h("span", {}, m.seats.map((s, i) => [i ? " vs " : "", botLink(s.bot), s.rank === 0 ? " ★" : ""])) },
    { title: "ended by", cell: (m) => `${m.reason}${m.offender !== null ? ` (seat ${m.offender})` : ""}${m.rated ? "" : " · unrated"}` },
    { title: "steps", num: true, cell: (m) => m.steps },
    { title: "finished", cell: (m) => ago(m.finished_at) },
  ], rows);
}

async function matchList() {
  document.title = "Arena — matches";
  const params = new URLSearchParams(location.search);
  const holder = h("div", {});
  main.replaceChildren(h("h1", {}, "Matches", params.get("bot") ? ` of ${params.get("bot")}` : "", params.get("pool") ? ` in ${params.get("pool")}` : ""), holder);
  const draw = async (page = 1) => {
    const query = new URLSearchParams(params);
    query.set("page", page);
    const data = await api(`/matches?${query}`);
    holder.replaceChildren(matchTable(data.matches), pager(data, draw));
  };
  await draw(Number(params.get("page") || 1));
}

async function tournamentList() {
  document.title = "Arena — tournaments";
  const holder = h("div", {});
  main.replaceChildren(h("h1", {}, "Tournaments and ladders"), holder);
  const draw = async (page = 1) => {
    const data = await api(`/tournaments?page=${page}`);
    holder.replaceChildren(table([
      { title: "tournament", cell: (t) => h("a", { href: `/tournaments/${t.id}` }, t.label) },
      { title: "game", cell: (t) => t.game },
      { title: "format", cell: (t) => t.format },
      { title: "matches", num: true, cell: (t) => t.matches },
      { title: "status", cell: (t) => pill(t.status) },
      { title: "created", cell: (t) => ago(t.created_at) },
    ], data.tournaments), pager(data, draw));
  };
  await draw();
}

async function tournamentPage(id) {
  const draw = async (page = 1) => {
    const data = await api(`/tournaments/${enc(id)}?page=${page}`);
    const t = data.tournament;
    document.title = `Arena — ${t.label}`;
    const progress = data.progress.expected ? `${data.progress.stored} of ${data.progress.expected} matches` : `${data.progress.stored} matches (open-ended)`;
    main.replaceChildren(h("h1", {}, t.label, " ", pill(t.status)),
      h("p", { class: "muted" }, `${t.game} · ${t.format} · ${progress} · ${data.rounds_total} round(s) planned`),
      h("div", { class: "card" }, h("progress", { max: data.progress.expected || data.progress.stored || 1, value: data.progress.stored, style: "width:100%" })),
      h("h2", {}, "Standings"),
      table([
        { title: "#", num: true, cell: (r) => data.standings.indexOf(r) + 1 },
        { title: "bot", cell: (r) => botLink(r.bot) },
        { title: "points", num: true, cell: (r) => r.points },
        { title: "games", num: true, cell: (r) => r.games },
        { title: "W-D-L", cell: (r) => `${r.wins}-${r.draws}-${r.losses}` },
        { title: "score", num: true, cell: (r) => (r.score_pct === null ? "–" : `${r.score_pct}%`) },
        { title: "faults", num: true, cell: (r) => r.faults },
      ], data.standings),
      h("h2", {}, "Rounds"),
      ...data.rounds.map((round) => h("div", { class: "card" }, h("strong", {}, `round ${round.round + 1}`),
        h("ul", {}, round.pairings.map((p) => h("li", {}, p.bye ? `${p.bots[0]}: bye` : p.bots.join(" vs "), " ",
          p.matches.map((m) => h("span", {}, " ", matchLink(m.id, `[${m.reason}]`)))))))),
      pager({ total: data.rounds_total, page: data.page, per_page: data.per_page }, draw));
  };
  await draw();
}

// A ladder bot's version, or, for a bot on its owner's computer, whether it is connected (as `arena ladder
// status` says: "remote, online" or "remote, offline (last seen …)"): one offline is not paired.
function ladderVersion(bot) {
  if (bot.online === null || bot.online === undefined) return bot.version;
  return h("span", { class: "presence" }, "remote ", pill(bot.online ? "online" : "offline"),
    bot.online ? null : bot.last_seen ? ` · last seen ${ago(bot.last_seen)}` : " · never seen");
}

async function ladders() {
  document.title = "Arena — ladders";
  const { ladders: rows } = await api("/ladders");
  main.replaceChildren(h("h1", {}, "Ladders"));
  if (!rows.length) main.append(h("p", { class: "muted" }, "No ladders yet: start one with ", h("code", {}, "arena ladder serve --games GAME"), "."));
  for (const ladder of rows) {
    const last = ladder.last_round;
    main.append(h("section", { class: "card" },
      h("h2", {}, h("a", { href: `/tournaments/${ladder.ladder}` }, ladder.pool), " ", pill(ladder.service.running ? "running" : "stopped")),
      h("p", {}, `${ladder.schedule ?? "not scheduled"} · next round ${ladder.next_round_at ? ladder.next_round_at + "Z" : "–"} · ${ladder.matches} matches · ${ladder.pending} pending`),
      last ? h("p", { class: "muted" }, `last round ${last.round === null || last.round === undefined ? "–" : last.round + 1}: ${last.stored} stored, ${last.carried} carried over, ${last.infrastructure} infrastructure fault(s), ${num(last.seconds, 1)} s ${last.note ? "· " + last.note : ""}`) : null,
      table([
        { title: "bot", cell: (b) => botLink(b.bot) },
        { title: "version", cell: ladderVersion },
        { title: "games", num: true, cell: (b) => b.games },
        { title: "mu", num: true, cell: (b) => num(b.mu) },
        { title: "sigma", num: true, cell: (b) => num(b.sigma) },
        { title: "pending", num: true, cell: (b) => b.pending },
        { title: "recent faults", cell: (b) => b.recent_faults.map((f) => f.reason).join(", ") || "none" },
      ], ladder.bots)));
  }
}

// "greedy beat random", "a draw between a and b": who won, from the match's seats (rank 0 is first).
function outcome(match) {
  const first = match.seats.filter((s) => s.rank === 0);
  if (!first.length || first.length === match.seats.length) return `a draw between ${match.seats.map((s) => s.bot).join(" and ")}`;
  const rest = match.seats.filter((s) => s.rank !== 0);
  return `${first.map((s) => s.bot).join(" and ")} beat ${rest.map((s) => s.bot).join(" and ")}`;
}

// "Red (greedy) was lucky by 0.31": what the chance events gave the luckiest seat, in points of a game (1 a
// win); the corrected result is the result less it. Nothing where no luck was measured.
function luckLine(match) {
  const measured = match.seats.filter((s) => s.luck !== null && s.luck !== undefined);
  if (measured.length !== match.seats.length || !measured.length) return null;
  const luckiest = measured.reduce((a, b) => (b.luck > a.luck ? b : a));
  const text = Math.abs(luckiest.luck) < 0.005 ? "Neither side was lucky: chance evened out"
    : `${luckiest.seat_name} (${luckiest.bot}) was lucky by ${luckiest.luck.toFixed(2)}`;
  return h("p", { class: "muted", id: "luck", "data-luck": measured.map((s) => s.luck).join(",") }, text,
    " (what the dice and draws gave, in points of a game; results are corrected by it where few games decide)");
}

async function matchPage(id) {
  const match = await api(`/matches/${enc(id)}`);
  document.title = `Arena — match ${match.id}: ${outcome(match)}`;
  const viewer = h("div", { id: "viewer", class: "replay" }, h("p", { class: "muted" }, "replaying the record through the engine…"));
  const scores = match.seats.some((s) => s.score !== null) ? ` ${match.seats.map((s) => s.score ?? "–").join(" : ")}` : "";
  const fault = match.offender !== null && match.offender !== undefined ? match.seats.find((s) => s.seat === match.offender) : null;
  const evidence = h("div", {});
  main.replaceChildren(
    h("div", { class: "match-head" },
      h("h1", { id: "outcome" }, `Match ${match.id}: ${outcome(match)}`),
      h("p", {}, h("strong", {}, `${match.reason}${scores}`), fault ? ` (${fault.bot}'s fault)` : "",
        match.detail ? h("span", { class: "muted" }, ` — ${shown(match.detail)}`) : "", match.rated ? "" : " · unrated"),
      luckLine(match)),
    h("p", { class: "muted" }, match.seats.map((s, i) => [i ? " vs " : "", botLink(s.bot), versionOf(s.version), s.rank === 0 ? " ★" : ""]), " · ",
      `${match.game} · `, h("a", { href: `/tournaments/${match.tournament_id}` }, `tournament ${match.tournament_id}`), ` · round ${match.round + 1} · `,
      h("a", { href: `/api/matches/${match.id}/record`, download: `${match.uid}.jsonl` }, "record (JSON lines)")),
    evidence, viewer);
  showEvidence(match, evidence).catch(() => {});
  const analysis = match.analysed ? api(`/matches/${match.id}/analysis`).catch(() => null) : Promise.resolve(null);
  const replay = await streamReplay(`/api/matches/${enc(id)}/replay`, viewer);
  const found = await analysis;
  if (replay) showNotes(match, replay).catch(() => {});
  if (found && replay) replay.showAnalysis(found);
  else if (replay) viewer.append(h("p", { class: "muted", id: "no-analysis" }, "Not analysed yet: ",
    h("code", {}, `arena analyse ${match.id}`), " draws the chance to win under the board and marks the turning points."));
}

// A signed-in owner sees the notes their own bots left with their decisions beside the board (an operator:
// every bot's); nobody else is sent any.
async function showNotes(match, replay) {
  let data;
  try { data = await api(`/owner/matches/${match.id}/notes`); } catch (error) { return; }
  if (data.notes.length) replay.showNotes(data);
}

// A signed-in owner sees what the record kept of their own bot's fault (its last output lines); an operator
// sees every bot's. Nobody else is shown anything (the public record has none of it).
async function showEvidence(match, holder) {
  if (match.offender === null || match.offender === undefined) return;
  let data;
  try { data = await api(`/owner/matches/${match.id}/evidence`); } catch (error) { return; }
  const kept = data.seats.filter((s) => s.evidence);
  if (!kept.length) return;
  holder.replaceChildren(...kept.map((s) => h("div", { class: "card evidence", "data-seat": s.seat },
    h("strong", {}, `${s.bot}${versionOf(s.version)}: its last output`), h("span", { class: "muted" }, data.operator ? " (shown to operators and its owner)" : " (shown to you, its owner, only)"),
    s.evidence.output ? h("pre", {}, s.evidence.output) : h("p", { class: "muted" }, "it printed nothing"),
    Object.keys(s.evidence.usage || {}).length ? h("p", { class: "muted" }, Object.entries(s.evidence.usage).map(([k, v]) => `${k.replaceAll("_", " ")} ${v}`).join(" · ")) : null)));
}

// Read a replay's JSON lines as they come: the board is drawn from the first line, steps are added in
// batches as they arrive (a long match opens at once), the last line holds the result.
async function streamReplay(url, viewer) {
  const response = await fetch(url);
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new ApiError(response.status, typeof body.detail === "string" ? body.detail : response.statusText);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "", replay = null;
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
    const lines = buffer.split("\n");
    buffer = done ? "" : lines.pop();
    const steps = [];
    for (const line of lines) {
      if (!line.trim()) continue;
      const item = JSON.parse(line);
      if (item.header) {
        viewer.replaceChildren();
        replay = mountReplay(viewer, { header: item.header, board: item.board, start: item.start });
        performance.mark("arena-replay-board");
      } else if ("n" in item) steps.push(item);
      else {
        if (steps.length) replay.addSteps(steps.splice(0));
        replay.finish(item);
        performance.mark("arena-replay-loaded");
      }
    }
    if (steps.length) replay.addSteps(steps);
    if (done) break;
  }
  return replay;
}

async function liveList() {
  document.title = "Arena — live";
  main.replaceChildren(h("h1", {}, "Live matches"));
  let data;
  try {
    data = await api("/live");
  } catch (error) {
    main.append(h("p", { class: "muted" }, error.message));
    return;
  }
  if (!data.referee) return main.append(h("p", { class: "muted" }, data.detail));
  main.append(h("p", { class: "muted" }, `Watching the referee at ${data.referee}.`));
  if (!data.matches.length) main.append(h("p", { class: "muted" }, "Nothing is being played right now."));
  main.append(table([
    { title: "match", cell: (m) => h("a", { href: `/live/${enc(m.match_id)}` }, m.match_id.slice(0, 12)) },
    { title: "game", cell: (m) => m.game },
    { title: "players", cell: (m) => m.players.map((p) => p.name).join(" vs ") },
    { title: "steps", num: true, cell: (m) => m.steps },
  ], data.matches));
}

function livePage(matchId) {
  document.title = "Arena — live match";
  const holder = h("div", { id: "live", class: "live" });
  main.replaceChildren(h("h1", {}, "Live match ", h("span", { class: "muted" }, matchId.slice(0, 12))), holder);
  const view = mountLive(holder);
  const source = new EventSource(`/api/live/${enc(matchId)}/events`);
  for (const kind of ["header", "step", "finished", "error"]) {
    source.addEventListener(kind, (event) => {
      view[kind](JSON.parse(event.data));
      if (kind === "finished" || kind === "error") source.close();
    });
  }
}

// --- routing --------------------------------------------------------------------------------------

const routes = [
  [/^\/$/, leaderboards], [/^\/bots\/?$/, botList], [/^\/bots\/([^/]+)$/, botPage],
  [/^\/tournaments\/?$/, tournamentList], [/^\/tournaments\/(.+)$/, tournamentPage], [/^\/ladders\/?$/, ladders],
  [/^\/matches\/?$/, matchList], [/^\/matches\/([^/]+)$/, matchPage], [/^\/live\/?$/, liveList], [/^\/live\/([^/]+)$/, livePage],
  [/^\/signin$/, signInPage], [/^\/signup$/, signUpPage], [/^\/account$/, accountPage],
];

async function route() {
  for (const link of document.querySelectorAll("nav a")) {
    const here = link.getAttribute("href");
    link.classList.toggle("here", here === "/" ? location.pathname === "/" : location.pathname.startsWith(here));
  }
  const status = Number(document.body.dataset.status || 200);
  if (status >= 400) return showError(status, document.body.dataset.error);
  for (const [pattern, page] of routes) {
    const found = pattern.exec(location.pathname);
    if (!found) continue;
    try {
      await page(...found.slice(1).map(decodeURIComponent));
    } catch (error) {
      if (error instanceof ApiError) showError(error.status, error.message);
      else {
        console.error(error);
        showError("", `this page could not be drawn (${error.message}); please report it with the address`);
      }
    }
    return;
  }
  showError(404, `no page at ${location.pathname}`);
}

document.getElementById("theme").addEventListener("click", () => {
  const dark = document.documentElement.dataset.theme
    ? document.documentElement.dataset.theme === "dark"
    : matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "light" : "dark";
  try { localStorage.setItem("arena-theme", document.documentElement.dataset.theme); } catch (e) { /* private mode */ }
});

signOutLink().catch(() => {});
route().finally(() => document.body.setAttribute("data-ready", "true"));
