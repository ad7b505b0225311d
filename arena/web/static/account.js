// Owners' pages: sign in with the owner token (a session cookie the page cannot read; changes carry the
// session's CSRF token), upload a bot and watch its pre-flight as it runs, versions with retire buttons,
// remote bots, the owner's own fault evidence, a new token, sign out; and open sign-up where the server allows.
import { ApiError, ago, api, botLink, enc, h, main, pill, shown, table, versionOf } from "./common.js";

let csrf = "";

async function session() {
  try {
    const who = await api("/owner/session");
    csrf = who.csrf || "";
    return who;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

function send(path, { method = "POST", json = undefined, body = undefined, headers = {} } = {}) {
  const init = { method, headers: { "X-CSRF-Token": csrf, ...headers } };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  } else if (body !== undefined) init.body = body;
  return api(path, init);
}

export async function signOutLink() {
  const link = document.getElementById("account-link");
  if (!link) return;
  const who = await session().catch(() => null);
  link.textContent = who ? `Account (${who.owner})` : "Sign in";
  link.setAttribute("href", who ? "/account" : "/signin");
}

function notice(text, kind = "muted") {
  return h("p", { class: kind, role: kind === "error" ? "alert" : null }, text);
}

export async function signInPage() {
  document.title = "Arena — sign in";
  if (await session()) {
    location.replace("/account");
    return;
  }
  const token = h("input", { type: "password", name: "token", id: "token", autocomplete: "current-password", required: true, size: 52 });
  const message = h("div", {});
  const form = h("form", { class: "card", id: "signin" },
    h("label", { for: "token" }, "Owner token"), " ", token, " ",
    h("button", { type: "submit" }, "Sign in"), message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const who = await api("/owner/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: token.value.trim() }) });
      csrf = who.csrf;
      location.assign("/account");
    } catch (error) {
      message.replaceChildren(notice(error.message, "error"));
    }
  });
  const signup = await api("/signup").catch(() => ({ open: false }));
  main.replaceChildren(h("h1", {}, "Sign in"),
    h("p", { class: "muted" }, "With the token the operator gave you (", h("code", {}, "arena owner add NAME"), ")", signup.open ? [", or ", h("a", { href: "/signup" }, "sign up"), "."] : "."),
    form);
  token.focus();
}

export async function signUpPage() {
  document.title = "Arena — sign up";
  const open = await api("/signup").catch(() => ({ open: false }));
  if (!open.open) {
    main.replaceChildren(h("h1", {}, "Sign up"), notice("Sign-up is closed here: ask the operator for an owner token."));
    return;
  }
  const name = h("input", { type: "text", name: "name", id: "owner-name", pattern: "[a-z0-9][a-z0-9._-]{0,63}", required: true });
  const message = h("div", {});
  const form = h("form", { class: "card", id: "signup" }, h("label", { for: "owner-name" }, "Owner name"), " ", name, " ",
    h("button", { type: "submit" }, "Sign up"), message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const made = await api("/signup", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: name.value.trim() }) });
      csrf = made.csrf;
      form.replaceWith(h("div", { class: "card" }, h("p", {}, `Welcome, ${made.owner}. Your token, shown once: keep it secret.`),
        h("pre", { id: "new-token" }, made.token), h("p", {}, h("a", { href: "/account" }, "Go to your bots"))));
    } catch (error) {
      message.replaceChildren(notice(error.message, "error"));
    }
  });
  main.replaceChildren(h("h1", {}, "Sign up"), h("p", { class: "muted" }, "Pick an owner name: lowercase letters, digits, - _ ."), form);
}

function stepLine(step) {
  const mark = step.skipped ? "–" : step.ok === true ? "✓" : step.ok === false ? "✗" : "…";
  return h("li", { class: step.ok === false ? "failed" : "" }, `${mark} ${step.title}: ${shown(step.detail)} `, h("span", { class: "muted" }, `(${Number(step.seconds || 0).toFixed(2)} s)`));
}

function outcome(result) {
  if (!result) return null;
  const report = result.preflight;
  return h("div", { class: `outcome ${result.status}` },
    h("p", {}, pill(result.status), " ", shown(result.message || "")),
    (result.problems || []).length ? h("ul", { class: "problems" }, result.problems.map((p) => h("li", {}, h("strong", {}, shown(p.where)), `: ${shown(p.message)}`, p.fix ? h("div", { class: "muted" }, `fix: ${shown(p.fix)}`) : null))) : null,
    report ? [(report.fix || []).map((fix) => h("p", {}, h("strong", {}, "fix: "), shown(fix))),
      report.output_tail ? [h("p", { class: "muted" }, "the bot's last output:"), h("pre", {}, shown(report.output_tail))] : null] : null);
}

// Follow one upload's pre-flight as it runs (server-sent events), into `holder`.
function follow(id, holder, onEnd) {
  const steps = h("ul", { class: "steps" });
  const stage = h("p", { class: "muted" }, "queued…");
  holder.replaceChildren(h("h3", {}, `Submission ${id}`), stage, steps);
  const source = new EventSource(`/api/owner/submissions/${id}/events`);
  source.addEventListener("progress", (event) => {
    const item = JSON.parse(event.data);
    if (item.kind === "stage") stage.textContent = item.text;
    else if (item.kind === "step" && item.step.ok !== null) steps.append(stepLine(item.step));
    else if (item.kind === "step") stage.textContent = `pre-flight: ${item.step.title}`;
  });
  source.addEventListener("end", (event) => {
    source.close();
    const done = JSON.parse(event.data);
    stage.textContent = "";
    holder.append(outcome(done.result));
    holder.dataset.status = done.status;
    if (onEnd) onEnd(done);
  });
  source.onerror = () => { source.close(); stage.textContent = "lost the connection to the server; reload to see how it went"; };
}

function uploadCard(onEnd) {
  const input = h("input", { type: "file", id: "archive", accept: ".zip,.tar.gz,.tgz,.tar" });
  const zone = h("div", { class: "dropzone", id: "dropzone", tabindex: "0" }, "Drop the bot's .zip or .tar.gz here, or ", h("label", { for: "archive", class: "link" }, "choose a file"), input);
  const progress = h("div", { id: "upload-progress" });
  const upload = async (file) => {
    if (!file) return;
    progress.replaceChildren(notice(`uploading ${file.name} (${(file.size / 1024).toFixed(0)} KB)…`));
    try {
      const made = await send(`/owner/submissions?filename=${enc(file.name)}`, { body: file, headers: { "Content-Type": "application/octet-stream" } });
      follow(made.id, progress, onEnd);
    } catch (error) {
      progress.replaceChildren(notice(error.message, "error"));
    }
  };
  input.addEventListener("change", () => upload(input.files[0]));
  for (const kind of ["dragenter", "dragover"]) zone.addEventListener(kind, (event) => { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => { event.preventDefault(); zone.classList.remove("over"); upload(event.dataTransfer.files[0]); });
  return h("section", { class: "card", id: "upload" }, h("h2", {}, "Submit a bot"),
    h("p", { class: "muted" }, "Pack the bot's folder (with its bot.toml at the top) with this command:"),
    h("pre", { id: "pack-command" }, h("code", {}, "tar czf my-bot.tar.gz -C my-bot .")),
    h("p", { class: "muted" }, "It is checked and pre-flighted in the sandbox; you see each step here as it runs."),
    zone, progress);
}

async function faultsOf(name, holder) {
  const { faults } = await api(`/owner/bots/${enc(name)}/faults`);
  holder.replaceChildren(faults.length ? h("div", {}, faults.map((f) => h("div", { class: "fault" },
    h("p", {}, h("a", { href: `/matches/${f.match}` }, `match ${f.match}`), ` · version ${f.version} · `, pill(f.reason), ` ${f.detail} · ${ago(f.finished_at)}`),
    f.usage && Object.keys(f.usage).length ? h("p", { class: "muted" }, `used: ${Object.entries(f.usage).map(([k, v]) => `${k} ${v}`).join(", ")}`) : null,
    f.output ? h("pre", {}, f.output) : h("p", { class: "muted" }, "no output kept")))) : notice("No faults: every match ended by the rules."));
}

function botCard(bot, redraw) {
  const evidence = h("div", { class: "evidence" });
  const rows = bot.versions.slice().reverse();
  const remote = bot.remote;
  return h("section", { class: "card mybot", "data-bot": bot.name },
    h("h3", {}, botLink(bot.name), remote ? [" ", pill(remote.online ? "online" : "offline"), h("span", { class: "muted" }, remote.last_seen ? ` · last seen ${ago(remote.last_seen)}` : " · never seen")] : null),
    table([
      { title: "version", cell: (v) => v.version },
      { title: "artifact", cell: (v) => h("code", {}, v.artifact_hash.slice(0, 12)) },
      { title: "status", cell: (v) => pill(v.status) },
      { title: "submitted", cell: (v) => ago(v.submitted_at) },
      { title: "faults", cell: (v) => Object.entries(v.faults).map(([reason, count]) => `${reason} ×${count}`).join(", ") || "none" },
      { title: "", cell: (v) => (v.status === "retired" ? "" : h("button", { type: "button", class: "retire", "data-version": v.version, onclick: async (event) => {
        event.target.disabled = true;
        try { await send(`/owner/bots/${enc(bot.name)}/retire`, { json: { version: v.version } }); await redraw(); } catch (error) { evidence.replaceChildren(notice(error.message, "error")); }
      } }, "Retire")) },
    ], rows),
    h("button", { type: "button", class: "show-faults", onclick: () => faultsOf(bot.name, evidence).catch((error) => evidence.replaceChildren(notice(error.message, "error"))) }, "Faults and their evidence"),
    evidence);
}

function remoteCard(redraw) {
  const name = h("input", { type: "text", id: "remote-name", pattern: "[a-z0-9][a-z0-9._-]{0,63}", required: true });
  const message = h("div", {});
  const form = h("form", { id: "register-remote" }, h("label", { for: "remote-name" }, "Name"), " ", name, " ", h("button", { type: "submit" }, "Register"), message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const made = await send("/owner/remote-bots", { json: { name: name.value.trim() } });
      message.replaceChildren(h("p", {}, `${made.name}'s token, shown once:`), h("pre", { class: "token" }, made.token),
        made.connect
          ? h("p", { class: "muted" }, "Run it on your computer: ", h("code", { id: "connect-command" }, made.connect.command))
          : h("p", { class: "muted" }, "Run it with ", h("code", {}, `ARENA_REMOTE=arena://${made.name}:TOKEN@HOST:PORT python3 bot.py`),
              ": this server does not say where its ladder takes remote bots (arena web --remote-address); ask its operator for HOST:PORT."),
        h("p", { class: "muted" }, "It says when it connects, is seated and finishes a match, and connects again by itself if the connection is lost."),
        h("p", { class: "muted" }, "python3 there needs Arena's SDK: docs/writing-a-bot.md, 'Arena's SDK on your own computer', says how to install it (a clone of Arena and pip install)."));
      await redraw(false);
    } catch (error) {
      message.replaceChildren(notice(error.message, "error"));
    }
  });
  return h("section", { class: "card", id: "remote" }, h("h2", {}, "A bot on your own computer"),
    h("p", { class: "muted" }, "Register a name; your bot connects to the ladder's referee with the token and is paired while it is connected."), form);
}

export async function accountPage() {
  document.title = "Arena — your bots";
  const who = await session();
  if (!who) {
    location.replace("/signin");
    return;
  }
  const mine = h("div", { id: "my-bots" });
  const submissions = h("div", { id: "my-submissions" });
  const draw = async (all = true) => {
    const [data, account, uploads] = await Promise.all([api("/owner/bots"), api("/owner"), api("/owner/submissions")]);
    usage.textContent = `${account.usage.live_bots} of ${account.limits.live_bots} live bots · ${account.usage.uploads_last_hour} of ${account.limits.uploads_per_hour} uploads this hour`;
    mine.replaceChildren(...(data.bots.length ? data.bots.map((bot) => botCard(bot, draw)) : [notice("No bots yet: submit one above.")]));
    if (all) submissions.replaceChildren(table([
      { title: "#", num: true, cell: (s) => s.id },
      { title: "file", cell: (s) => s.filename },
      { title: "bot", cell: (s) => (s.name ? `${s.name}${versionOf(s.version)}` : "–") },
      { title: "status", cell: (s) => pill(s.status) },
      { title: "uploaded", cell: (s) => ago(s.created_at) },
    ], uploads.submissions.slice(0, 10)));
  };
  const usage = h("p", { class: "muted", id: "usage" });
  const tokenBox = h("div", {});
  const signOut = h("button", { type: "button", id: "sign-out", onclick: async () => { await send("/owner/session", { method: "DELETE" }); location.assign("/"); } }, "Sign out");
  const rotate = h("button", { type: "button", id: "rotate-token", onclick: async () => {
    if (!confirm("A new token: the old one stops working, and you are signed out everywhere.")) return;
    const made = await send("/owner/token");
    tokenBox.replaceChildren(h("p", {}, "Your new token, shown once:"), h("pre", { class: "token" }, made.token), h("p", {}, h("a", { href: "/signin" }, "Sign in again")));
  } }, "New token");
  main.replaceChildren(h("h1", {}, `${who.owner}'s bots`), h("div", { class: "controls" }, usage, signOut, rotate), tokenBox,
    uploadCard(() => draw()), h("h2", {}, "Your bots"), mine, remoteCard(draw), h("h2", {}, "Recent uploads"), submissions);
  await draw();
}
