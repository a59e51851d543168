// pawl's dashboard: plain JavaScript, no build step, nothing fetched from elsewhere.
// The runs page (/), with the form that starts a run, and a run page (/run?id=…, with its
// clarifying questions to answer) that follow the daemon's event streams.
// Every action is a compare-and-set: it sends the version of the state on screen as If-Match.
"use strict";

const state = { run: null, version: null, source: null, pending: null, loading: 0 };
window.pawlDashboard = state;

const $ = (sel) => document.querySelector(sel);

// The session's CSRF key: the one-time link's redirect brings it in the fragment (never sent
// to a server); it is kept in this origin's storage (not a cookie: cookies reach every port of
// 127.0.0.1) and sent with every API call. The session cookie alone opens nothing.
function csrfKey() {
  const m = /^#csrf=([0-9a-f]{64})$/.exec(location.hash);
  if (m) {
    try { localStorage.setItem("pawl.csrf", m[1]); } catch (_) { /* storage off: this page only */ }
    csrfKey.value = m[1];
    history.replaceState(null, "", location.pathname + location.search);
  }
  if (!csrfKey.value) {
    try { csrfKey.value = localStorage.getItem("pawl.csrf") || ""; } catch (_) { csrfKey.value = ""; }
  }
  return csrfKey.value;
}
csrfKey();

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// Replaces an element's children: arrays are flattened, null and undefined left out.
function fill(parent, ...children) {
  parent.replaceChildren(...children.flat(3).filter((c) => c !== null && c !== undefined));
}

function badge(text, cls) {
  return el("span", { class: "badge " + (cls || text || "") }, text || "—");
}

function usd(x) { return "$" + (Number(x) || 0).toFixed(2); }
function dur(ms) {
  const s = Math.round((Number(ms) || 0) / 1000);
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0");
  return Math.floor(s / 3600) + "h" + String(Math.floor(s / 60) % 60).padStart(2, "0");
}
function when(ms) { return ms ? new Date(ms).toLocaleString() : "—"; }

function say(text, kind) {
  const m = $("#message");
  m.textContent = text;
  m.className = "message " + (kind || "");
  m.hidden = false;
  clearTimeout(say.timer);
  if (kind !== "conflict") say.timer = setTimeout(() => { m.hidden = true; }, 6000);
}

async function api(path, opts) {
  const o = Object.assign({ credentials: "same-origin" }, opts || {});
  o.headers = Object.assign({ "X-Pawl-Csrf": csrfKey() }, o.headers || {});
  const resp = await fetch("/api/v1" + path, o);
  let body = null;
  const type = resp.headers.get("content-type") || "";
  body = type.includes("json") ? await resp.json() : await resp.text();
  if (resp.status === 401 || (resp.status === 403 && body && body.error === "csrf_refused")) {
    showLogin();
    throw new Error("unauthorized");
  }
  return { status: resp.status, body };
}

// A refused or failed API call, with the server's own message (never a TypeError on a body
// that has no runs): thrown by `must`, shown by `main` in the page and the message line.
class ApiFailure extends Error {}

function must(resp) {
  if (resp.status >= 200 && resp.status < 300) return resp.body;
  const b = resp.body;
  const text = b && typeof b === "object" && b.message ? b.message : (typeof b === "string" && b ? b : "the server answered " + resp.status);
  throw new ApiFailure(text);
}

function showFailure(text) {
  $("#main").replaceChildren(el("h1", {}, "The server refused this page"), el("p", { id: "api-error" }, text));
  say(text, "error");
}

function showLogin() {
  const main = $("#main");
  main.replaceChildren(
    el("h1", {}, "Open the dashboard link"),
    el("p", { id: "login" }, "This page needs a dashboard session: open the one-time link that ", el("code", {}, "pawl serve"),
      " printed, or run ", el("code", {}, "pawl dashboard"), " for a new one (a session lasts 12 hours)."));
}

function follow(path, onEvent) {
  if (state.source) state.source.close();
  // An EventSource cannot send headers: a stream takes the key in its query.
  const src = new EventSource("/api/v1" + path + (path.includes("?") ? "&" : "?") + "csrf=" + encodeURIComponent(csrfKey()));
  state.source = src;
  src.onopen = () => { const l = $("#live"); l.textContent = "● live"; l.classList.add("on"); };
  src.onerror = () => { const l = $("#live"); l.textContent = "○ reconnecting"; l.classList.remove("on"); };
  src.addEventListener("error", () => { if (src.readyState === EventSource.CLOSED) { const l = $("#live"); l.textContent = "○ offline"; l.classList.remove("on"); } });
  src.onmessage = (m) => {
    let e = null;
    try { e = JSON.parse(m.data); } catch (_) { return; }
    onEvent(e);
  };
}

// Coalesces bursts of events into one refresh.
function soon(fn) {
  if (state.pending) return;
  state.pending = setTimeout(() => { state.pending = null; fn(); }, 150);
}

// ---- the runs page ----

async function runsPage() {
  const body = must(await api("/runs?limit=200"));
  const main = $("#runs-box");
  const rows = body.runs.map((r) => el("tr", { "data-run": r.id },
    el("td", {}, el("a", { href: "/run?id=" + encodeURIComponent(r.id) }, r.goal.slice(0, 80)),
      el("div", { class: "muted" }, r.repo.name + " · " + r.id)),
    el("td", {}, badge(r.stalled ? "stalled" : r.status)),
    el("td", {}, badge(r.verdict)),
    el("td", { class: "num" }, r.iterations + "/" + r.max_iterations),
    el("td", { class: "num" }, usd(r.cost_usd)),
    el("td", { class: "num hide-sm" }, dur(r.active_ms)),
    el("td", { class: "hide-sm" }, when(r.created_at))));
  const totals = (list, key) => el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, key), el("th", { class: "num" }, "runs"),
      el("th", { class: "num" }, "cost"), el("th", { class: "num hide-sm" }, "tokens"))),
    el("tbody", {}, list.map((t) => el("tr", {}, el("td", {}, t[key]), el("td", { class: "num" }, t.runs),
      el("td", { class: "num" }, usd(t.cost_usd)), el("td", { class: "num hide-sm" }, t.tokens)))));
  fill(main,
    el("h1", {}, "Runs ", el("span", { class: "muted" }, "(" + body.total + ")")),
    el("div", { class: "scroll" }, el("table", { id: "runs-table" },
      el("thead", {}, el("tr", {}, el("th", {}, "goal"), el("th", {}, "status"), el("th", {}, "verdict"),
        el("th", { class: "num" }, "progress"), el("th", { class: "num" }, "cost"),
        el("th", { class: "num hide-sm" }, "time"), el("th", { class: "hide-sm" }, "started"))),
      el("tbody", {}, rows))),
    el("h2", {}, "Per day"), el("div", { class: "scroll" }, totals(body.totals.by_day, "day")),
    el("h2", {}, "Per repository"), el("div", { class: "scroll" }, totals(body.totals.by_repo, "repo")));
}


// ---- starting a run ----
// Rendered once (the runs list below it re-renders on every event; what is typed here stays).
// The checks run commands as the user: they are shown for confirmation before they are sent.

function startForm(repos) {
  const startable = repos.filter((r) => r.can_start);
  const env = (r) => {
    if (!r) return el("p", { class: "muted" }, "—");
    if (!r.environment) return el("p", { id: "start-env-missing", class: "badge fail" }, "No environment recorded for this repository: run `pawl serve --add " + r.root + "` from a shell with the environment its runs need.");
    return el("details", { id: "start-env" },
      el("summary", {}, "The run's environment: as recorded when the repository joined (" + when(r.environment.recorded_at) + "), " + r.environment.vars.length + " variables"),
      el("table", {}, el("tbody", {}, r.environment.vars.map((v) => el("tr", {}, el("td", {}, v.name),
        el("td", { class: "env-value" }, v.value === null ? el("span", { class: "muted" }, "(set; value not shown)") : v.value))))));
  };
  const envBox = el("div", { id: "start-env-box" });
  const pick = () => fill(envBox, env(startable.find((r) => r.id === $("#start-repo").value)));
  const num = (id, label, attrs) => el("label", { class: "field" }, label, el("input", Object.assign({ id, type: "number", min: "0" }, attrs || {})));
  const form = el("div", { id: "start-form", class: "start" },
    el("label", { class: "field" }, "Repository", el("select", { id: "start-repo", onchange: pick },
      startable.map((r) => el("option", { value: r.id }, r.name + " — " + r.root)))),
    envBox,
    el("label", { class: "field" }, "Goal", el("textarea", { id: "start-goal", placeholder: "What the run must achieve" })),
    el("div", { class: "row" },
      el("label", { class: "field" }, "Mode", el("select", { id: "start-mode" }, ["auto", "simple", "work", "qa", "ralph"].map((m) => el("option", { value: m }, m)))),
      num("start-max-iterations", "Max iterations", { step: "1", placeholder: "pawl.toml" }),
      num("start-max-usd", "Max $", { step: "any", placeholder: "pawl.toml" }),
      el("label", { class: "field" }, "Max time", el("input", { id: "start-max-time", placeholder: "e.g. 30m" }))),
    el("label", { class: "field" }, "Acceptance checks, one command per line (optional: they must fail now and pass at the end)",
      el("textarea", { id: "start-checks", placeholder: "e.g. pytest tests/test_parser.py" })),
    el("div", { class: "actions" }, el("button", { id: "btn-start", class: "primary", onclick: reviewStart, disabled: !startable.length || undefined }, "Start")),
    el("div", { id: "start-confirm", hidden: true }),
    el("div", { id: "start-status" }));
  const box = $("#start-box");
  fill(box, el("details", { id: "start" },
    el("summary", {}, "Start a run"),
    startable.length ? form : el("p", { class: "muted" }, "No repository to start a run in: `pawl init` in one, or `pawl serve --add <dir>`.")));
  if (startable.length) pick();
}

function startRequest() {
  const body = { repo: $("#start-repo").value, goal: $("#start-goal").value, mode: $("#start-mode").value };
  const limits = {};
  const it = $("#start-max-iterations").value, usdv = $("#start-max-usd").value, t = $("#start-max-time").value.trim();
  if (it !== "") limits.max_iterations = Number(it);
  if (usdv !== "") limits.max_usd = Number(usdv);
  if (t) limits.max_time = t;
  if (Object.keys(limits).length) body.limits = limits;
  body.checks = $("#start-checks").value.split("\n").map((c) => c.trim()).filter((c) => c);
  return body;
}

// Checks are shown, exactly as they will run, and sent only once confirmed.
function reviewStart() {
  const body = startRequest();
  const confirmBox = $("#start-confirm");
  if (!body.checks.length) { confirmBox.hidden = true; sendStart(body); return; }
  const repo = $("#start-repo").selectedOptions[0].textContent;
  fill(confirmBox,
    el("p", {}, el("b", {}, "These commands will run as you"), " in " + repo + " — before the run (they must fail) and at its end:"),
    el("ol", { id: "start-confirm-checks" }, body.checks.map((c) => el("li", {}, el("code", {}, c)))),
    el("div", { class: "actions" },
      el("button", { id: "btn-start-confirm", class: "primary", onclick: () => { confirmBox.hidden = true; body.checks_confirmed = true; sendStart(body); } }, "Run these checks and start"),
      el("button", { id: "btn-start-back", onclick: () => { confirmBox.hidden = true; } }, "Back")));
  confirmBox.hidden = false;
}

async function sendStart(body) {
  const status = $("#start-status");
  $("#btn-start").disabled = true;
  const resp = await api("/runs", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (resp.status !== 202) {
    $("#btn-start").disabled = false;
    fill(status, el("p", { id: "start-error", class: "badge fail" }, (resp.body && resp.body.message) || ("Refused: " + resp.status)));
    return;
  }
  const handle = resp.body.start;
  fill(status, el("p", { id: "start-progress" }, "Starting: sealing the checks and taking the baseline…"));
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const s = await api("/starts/" + encodeURIComponent(handle));
    if (s.status !== 200) { fill(status, el("p", { id: "start-error", class: "badge fail" }, s.body.message || ("Refused: " + s.status))); break; }
    if (s.body.status === "started") { location.href = "/run?id=" + encodeURIComponent(s.body.run); return; }
    if (s.body.status === "failed") {
      $("#btn-start").disabled = false;
      fill(status, el("p", { id: "start-error", class: "badge fail" }, "The run did not start (exit " + s.body.exit_code + ")"), el("pre", {}, s.body.lines.join("\n")));
      return;
    }
    fill(status, el("p", { id: "start-progress" }, "Starting: sealing the checks and taking the baseline…"), el("pre", {}, s.body.lines.slice(-5).join("\n")));
  }
}

async function homePage() {
  fill($("#main"), el("div", { id: "start-box" }), el("div", { id: "runs-box" }, el("p", { class: "muted" }, "Loading…")));
  await runsPage();
  startForm(must(await api("/repos")).repos);
}

// ---- the run page ----

function chart(iterations) {
  const w = 600, h = 160, pad = 24;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("id", "chart");
  if (!iterations.length) return svg;
  let cost = 0, tokens = 0;
  const pts = iterations.map((it) => {
    cost += it.cost_usd || 0; tokens += (it.tokens_in || 0) + (it.tokens_out || 0);
    return { t: it.ended_at || it.started_at, cost, tokens };
  });
  const t0 = pts[0].t, t1 = Math.max(pts[pts.length - 1].t, t0 + 1);
  const maxC = Math.max(cost, 1e-9), maxT = Math.max(tokens, 1);
  const x = (t) => pad + (w - 2 * pad) * (t - t0) / (t1 - t0);
  const line = (key, max, color) => {
    const p = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    p.setAttribute("points", pts.map((q) => `${x(q.t).toFixed(1)},${(h - pad - (h - 2 * pad) * q[key] / max).toFixed(1)}`).join(" "));
    p.setAttribute("fill", "none");
    p.setAttribute("stroke", color);
    p.setAttribute("stroke-width", "2");
    svg.append(p);
  };
  line("cost", maxC, "#2563eb");
  line("tokens", maxT, "#15803d");
  return svg;
}

function section(title, ...body) { return [el("h2", {}, title), ...body]; }

function renderRun(run, its, report) {
  state.run = run;
  state.version = run.version;
  const ended = run.status === "done" || run.status === "cancelled";
  const main = $("#main");
  const criteria = (report && report.criteria) || [];
  const checks = (report && report.checks) || [];
  const failures = Object.entries((report && report.failures_by_class) || {});
  fill(main,
    el("h1", { id: "run-goal" }, run.goal),
    el("div", { class: "muted" }, run.repo.name + " · " + run.id + " · " + run.driver + (run.mode ? " · " + run.mode : "")),
    el("div", { class: "cards" },
      el("div", { class: "card" }, el("div", { class: "k" }, "status"),
        el("div", { class: "v", id: "run-status", "data-status": run.status }, badge(run.stalled ? "stalled" : run.status))),
      el("div", { class: "card" }, el("div", { class: "k" }, "verdict"), el("div", { class: "v" }, badge(run.verdict))),
      el("div", { class: "card" }, el("div", { class: "k" }, "iterations"),
        el("div", { class: "v", id: "run-iterations" }, run.spent.iterations + " / " + run.limits.max_iterations)),
      el("div", { class: "card" }, el("div", { class: "k" }, "cost"),
        el("div", { class: "v" }, usd(run.cost_usd) + (run.limits.max_usd ? " / " + usd(run.limits.max_usd) : ""))),
      el("div", { class: "card" }, el("div", { class: "k" }, "tokens"), el("div", { class: "v" }, run.tokens)),
      el("div", { class: "card" }, el("div", { class: "k" }, "time"), el("div", { class: "v" }, dur(run.active_ms)))),
    run.stop_reason ? el("p", {}, "Stop reason: ", el("b", {}, run.stop_reason)) : null,
    run.verdict_reason ? el("p", { class: "muted" }, run.verdict_reason) : null,
    run.tampered ? el("p", { class: "badge fail" }, run.tampered) : null,
    el("div", { class: "actions" },
      el("button", { id: "btn-stop", onclick: () => act("stop"), disabled: (run.status !== "active" && run.status !== "awaiting_user") || undefined }, "Stop"),
      el("input", { id: "add-usd", class: "usd", type: "number", min: "0", step: "1", value: "5", "aria-label": "dollars to add" }),
      el("button", { id: "btn-resume", onclick: () => act("resume", { add_usd: Number($("#add-usd").value) || 0 }), disabled: ended || undefined }, "Add $ budget"),
      el("button", { id: "btn-cancel", class: "danger", onclick: () => { if (confirm("Cancel this run for good?")) act("cancel"); }, disabled: ended || undefined }, "Cancel"),
      el("span", { class: "muted", id: "run-version" }, "version " + run.version)),
    run.awaiting ? el("div", { id: "awaiting" },
      el("h2", {}, "Waiting for you"),
      el("p", {}, run.awaiting.text), run.awaiting.instructions ? el("p", {}, el("b", {}, run.awaiting.instructions)) : null,
      el("textarea", { id: "answer", placeholder: "What you did, or your answer" }),
      el("div", { class: "actions" }, el("button", { id: "btn-answer", class: "primary", onclick: () => act("answer", { answer: $("#answer").value }) }, "Answer"))) : null,
    questionsSection(run),
    section("Criteria and checks", el("div", { class: "scroll" }, el("table", { id: "criteria" },
      el("thead", {}, el("tr", {}, el("th", {}, "criterion"), el("th", {}, "status"), el("th", {}, "evidence"))),
      el("tbody", {}, criteria.map((c) => el("tr", {}, el("td", {}, c.id + " " + c.text), el("td", {}, badge(c.status)),
        el("td", {}, c.evidence ? (c.evidence.name + ": " + c.evidence.end) : "—"))),
        checks.map((c) => el("tr", {}, el("td", {}, "check " + c.name), el("td", {}, badge(c.passed ? "passed" : "failed", c.passed ? "done" : "fail")),
          el("td", {}, c.end + (c.failing_tests.length ? " · failing: " + c.failing_tests.slice(0, 5).join(", ") : "")))))))),
    report && report.tree_hash ? el("p", { class: "muted" }, "verified tree " + report.tree_hash) : null,
    report && report.findings && report.findings.length ? section("Test-integrity findings", el("pre", {}, report.findings.join("\n"))) : null,
    section("Iterations", el("div", { class: "legend" }, el("span", { class: "cost" }, "— cost"), "  ", el("span", { class: "tokens" }, "— tokens"), " (cumulative)"),
      chart(its),
      el("div", { class: "scroll" }, el("table", { id: "iterations" },
        el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "outcome"), el("th", { class: "num" }, "tokens"),
          el("th", { class: "num" }, "cost"), el("th", { class: "num hide-sm" }, "time"), el("th", { class: "hide-sm" }, "summary"))),
        el("tbody", {}, its.map((it) => el("tr", { "data-n": it.n }, el("td", {}, it.n), el("td", {}, it.outcome || "running"),
          el("td", { class: "num" }, (it.tokens_in || 0) + (it.tokens_out || 0)), el("td", { class: "num" }, usd(it.cost_usd)),
          el("td", { class: "num hide-sm" }, dur(it.active_ms)), el("td", { class: "hide-sm" }, it.summary || ""))))))),
    section("Failures by class", failures.length
      ? el("table", {}, el("tbody", {}, failures.map(([k, n]) => el("tr", {}, el("td", {}, k), el("td", { class: "num" }, n)))))
      : el("p", { class: "muted" }, "none")),
    section("Diff", el("pre", { id: "diff" }, "…")),
    section("Report", el("pre", { id: "report" }, "…")),
    section("Events", el("pre", { id: "events" }, "")));
}

// The run's clarifying questions: the pending ones answered here (the driver waits on them in
// the store), the answered ones with who answered.
function questionsSection(run) {
  const qs = run.questions || [];
  if (!qs.length) return null;
  return el("div", { id: "questions" }, el("h2", {}, "Questions"),
    qs.map((q) => q.answer === null || q.answer === undefined
      ? el("div", { class: "question", "data-q": q.id },
        el("p", {}, el("b", {}, q.question)), el("p", { class: "muted" }, "Recommended: " + q.recommended),
        el("textarea", { id: "q-" + q.id, placeholder: q.recommended }),
        el("div", { class: "actions" },
          el("button", { class: "primary", id: "btn-q-" + q.id, onclick: () => answerQuestion(run.id, q.id, $("#q-" + q.id).value) }, "Answer"),
          el("button", { id: "btn-q-rec-" + q.id, onclick: () => answerQuestion(run.id, q.id, q.recommended) }, "Take the recommendation")))
      : el("div", { class: "question answered", "data-q": q.id },
        el("p", {}, q.question), el("p", {}, "→ ", el("b", {}, q.answer), el("span", { class: "muted" }, " (" + (q.assumed ? "assumed" : "answered") + (q.answered_by ? " by " + q.answered_by : "") + ")")))));
}

async function answerQuestion(runId, qid, text) {
  const resp = await api(`/runs/${encodeURIComponent(runId)}/questions/${qid}`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ answer: text }),
  });
  if (resp.status === 200) say("Answer sent: the run goes on with it.");
  else say(resp.body.message || ("Refused: " + resp.status), resp.status === 409 ? "conflict" : "error");
  await loadRun(runId);
}

async function loadExtras(id) {
  const [diff, md] = await Promise.all([api(`/runs/${id}/diff`), api(`/runs/${id}/report?format=markdown`)]);
  const d = $("#diff"); if (d) d.textContent = diff.status === 200 ? (diff.body.patch || "(no changes)") : diff.body.message;
  const r = $("#report"); if (r) r.textContent = md.status === 200 ? md.body : md.body.message;
}

async function loadRun(id) {
  state.loading += 1;
  try { return await loadRunNow(id); } finally { state.loading -= 1; }
}

async function loadRunNow(id) {
  const [run, its, report] = await Promise.all([api(`/runs/${id}`), api(`/runs/${id}/iterations`), api(`/runs/${id}/report`)]);
  try { must(run); must(its); } catch (e) { if (!(e instanceof ApiFailure)) throw e; showFailure(e.message); return false; }
  const events = $("#events") ? $("#events").textContent : "";
  const typed = [...document.querySelectorAll("#main textarea[id]")].map((t) => [t.id, t.value]);
  renderRun(run.body, its.body.iterations || [], report.status === 200 ? report.body : null);
  for (const [tid, v] of typed) { const t = document.getElementById(tid); if (t) t.value = v; }
  $("#events").textContent = events;
  loadExtras(id);
  return true;
}

async function act(what, body) {
  const run = state.run;
  const resp = await api(`/runs/${run.id}/${what}`, {
    method: "POST",
    headers: Object.assign({ "If-Match": `"${state.version}"` }, body ? { "Content-Type": "application/json" } : {}),
    body: body ? JSON.stringify(body) : undefined,
  });
  if (resp.status === 200) {
    say(what === "stop" ? "Stop requested: the run stops after its current step." :
      what === "resume" ? "Budget added." + (resp.body.next ? " Continue it with: " + resp.body.next : "") :
      what === "cancel" ? "Run cancelled." : "Answer sent.");
    await loadRun(run.id);
  } else if (resp.status === 409) {
    say(`Conflict: the run changed since you looked (version ${state.version}, now ${resp.body.run && resp.body.run.version}). Nothing was done — check its state and try again.`, "conflict");
    if (resp.body.run) await loadRun(run.id);
  } else {
    say(resp.body.message || ("Refused: " + resp.status), "error");
  }
}

async function runPage(id) {
  if (!(await loadRun(id))) return;
  follow(`/runs/${encodeURIComponent(id)}/events/stream`, (e) => {
    const log = $("#events");
    if (log) log.textContent = `#${e.id} ${new Date(e.at).toLocaleTimeString()} ${e.kind} ${JSON.stringify(e.data).slice(0, 200)}\n` + log.textContent.slice(0, 20000);
    soon(() => loadRun(id));
  });
}

async function main() {
  const params = new URLSearchParams(location.search);
  try {
    if (location.pathname === "/run" && params.get("id")) await runPage(params.get("id"));
    else {
      await homePage();
      follow("/events/stream", () => soon(runsPage));
    }
  } catch (e) {
    if (e instanceof ApiFailure) showFailure(e.message);
    else if (e.message !== "unauthorized") say(String(e), "error");
  }
}

main();
