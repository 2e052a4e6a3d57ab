// offprompt memory console (docs/adr/0038-memory-console.md). Vanilla JavaScript, no build step, no dependency.
// Rules this file keeps: stored content reaches the page only through textContent (never innerHTML), links and
// media only from checked URLs (https:, or data:/blob: made here for known media types); the credential lives in
// one variable of this closure (never a URL, storage or log); every data call is an existing API route.
"use strict";
(() => {
  const PAGE = 20;
  const MEDIA = {
    image: ["png", "jpeg", "jpg", "gif", "webp", "bmp"],
    audio: ["mp3", "mpeg", "wav", "ogg", "webm", "flac", "aac"],
  };
  const USAGE_SERIES = [
    ["requests", "Requests"],
    ["runs_added", "Runs added"],
    ["bytes_stored", "Bytes stored"],
    ["tokens_stored", "Tokens stored"],
    ["searches", "Searches"],
    ["loads", "Loads"],
  ];
  let auth = null; // {mode: "key" | "tenant", value}: memory only

  // ---- DOM helpers: text only ------------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name.startsWith("on")) throw new Error("no inline handlers");
      if (name === "text") node.textContent = String(value);
      else if (name === "dataset") Object.assign(node.dataset, value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    // an input as wide as its placeholder, so the hint is read whole (a box's default is ~20 characters)
    if (tag === "input" && node.placeholder && !node.hasAttribute("size")) node.size = Math.max(20, node.placeholder.length + 2);
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const $ = (selector) => document.querySelector(selector);
  function status(message) {
    $("#status").textContent = message || "";
  }
  function button(label, handler, attrs) {
    const b = el("button", { type: "button", ...(attrs || {}) }, label);
    b.addEventListener("click", handler);
    return b;
  }
  function field(label, input) {
    const id = input.id || `f-${Math.random().toString(36).slice(2)}`;
    input.id = id;
    return el("div", { class: "field" }, el("label", { for: id }, label), input);
  }
  function safeUrl(value) {
    try {
      const url = new URL(String(value), location.href);
      return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
    } catch {
      return null;
    }
  }
  function json(value) {
    return el("pre", { class: "json" }, JSON.stringify(value, null, 2));
  }
  function when(value) {
    return value ? String(value).replace("T", " ").replace(/\.\d+Z$/, "Z") : "—";
  }
  function bytes(n) {
    if (!Number.isFinite(n)) return "—";
    const units = ["B", "KB", "MB", "GB", "TB"];
    let i = 0;
    while (n >= 1000 && i < units.length - 1) {
      n /= 1000;
      i += 1;
    }
    return `${i ? n.toFixed(1) : n} ${units[i]}`;
  }

  // ---- the API ---------------------------------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }
  async function api(method, path, options) {
    const { query, body } = options || {};
    const url = new URL(path, location.origin);
    for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, v);
    const headers = { Accept: "application/json" };
    if (auth && auth.mode === "key") headers.Authorization = `Bearer ${auth.value}`;
    if (auth && auth.mode === "tenant") headers["X-Offprompt-Tenant"] = auth.value;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual", // a presigned redirect leaves this origin: the caller says so instead
      credentials: "omit",
      cache: "no-store",
    });
    if (response.type === "opaqueredirect") return { status: 303, redirected: true, body: null, headers: response.headers };
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      if (response.status === 401 && auth) signOut("Your credential was refused (401): sign in again.");
      throw new ApiError(response.status, data && data.code, (data && data.message) || `HTTP ${response.status}`);
    }
    return { status: response.status, body: data, headers: response.headers };
  }
  const seg = encodeURIComponent;

  function failure(error) {
    return el("p", { class: "error", role: "alert" }, error instanceof ApiError ? `${error.status} ${error.code || ""}: ${error.message}` : String(error));
  }

  // ---- stored artifacts, shown never run ---------------------------------------------------------------------
  function blobUrl(base64, type) {
    try {
      const raw = atob(base64);
      const buf = new Uint8Array(raw.length);
      for (let i = 0; i < raw.length; i += 1) buf[i] = raw.charCodeAt(i);
      return URL.createObjectURL(new Blob([buf], { type }));
    } catch {
      return null;
    }
  }
  function mediaUrl(kind, format, base64) {
    const f = String(format || "").toLowerCase();
    if (!MEDIA[kind].includes(f) || typeof base64 !== "string") return null;
    return blobUrl(base64, `${kind}/${f === "jpg" ? "jpeg" : f === "mp3" ? "mpeg" : f}`);
  }
  function artifact(a) {
    if (a === null || a === undefined) return el("span", { class: "muted" }, "—");
    if (typeof a !== "object") return el("pre", { class: "text" }, String(a));
    const type = String(a.type || "");
    const head = el("div", { class: "artifact-head" }, el("span", { class: "badge" }, type || "object"), a.name ? ` ${a.name}` : "");
    let content;
    switch (type) {
      case "TextArtifact":
        content = el("pre", { class: "text" }, String(a.value ?? ""));
        break;
      case "JsonArtifact":
        content = json(a.value);
        break;
      case "ErrorArtifact":
        content = el("pre", { class: "text error-text" }, String(a.value ?? ""));
        break;
      case "ImageArtifact": {
        const src = mediaUrl("image", a.format, a.value);
        content = src ? el("img", { src, alt: `${a.name || "image"} (${a.format}${a.width ? `, ${a.width}×${a.height}` : ""})`, class: "media" }) : el("p", { class: "muted" }, `image (${String(a.format)}) not shown`);
        break;
      }
      case "AudioArtifact": {
        const src = mediaUrl("audio", a.format, a.value);
        content = src ? el("audio", { src, controls: true, class: "media", "aria-label": a.name || "audio" }) : el("p", { class: "muted" }, `audio (${String(a.format)}) not shown`);
        break;
      }
      case "BlobArtifact": {
        const size = typeof a.value === "string" ? Math.floor((a.value.length * 3) / 4) : 0;
        const link = button(`Download (${bytes(size)})`, () => {
          const url = blobUrl(String(a.value), "application/octet-stream");
          if (!url) return;
          const anchor = el("a", { href: url, download: a.name || "blob" });
          anchor.click();
          setTimeout(() => URL.revokeObjectURL(url), 1000);
        });
        content = el("div", {}, link);
        break;
      }
      case "UrlArtifact": {
        const href = safeUrl(a.value);
        content = href ? el("a", { href, rel: "noopener noreferrer", target: "_blank" }, String(a.value)) : el("pre", { class: "text" }, String(a.value ?? ""));
        break;
      }
      case "ListArtifact":
        content = el("ol", { class: "list" }, (Array.isArray(a.value) ? a.value : []).map((v) => el("li", {}, artifact(v))));
        break;
      case "ActionArtifact":
        content = json(a.value);
        break;
      case "BooleanArtifact":
      case "InfoArtifact":
      case "GenericArtifact":
        content = el("pre", { class: "text" }, typeof a.value === "string" ? a.value : JSON.stringify(a.value));
        break;
      default:
        content = json(a);
    }
    return el("div", { class: "artifact" }, head, content, a.download_url && safeUrl(a.download_url) ? el("a", { href: safeUrl(a.download_url), rel: "noopener noreferrer" }, "presigned download") : null);
  }
  function runCard(entry) {
    const run = entry.run || {};
    const tokens = `${entry.input_tokens ?? "?"} in / ${entry.output_tokens ?? "?"} out tokens`;
    return el(
      "article",
      { class: "run", "aria-label": `run ${entry.seq}` },
      el("h4", {}, `#${entry.seq}`, el("span", { class: "muted" }, ` ${when(entry.created_at)} · ${tokens} · ${bytes(entry.size)}${entry.summarized ? " · summarized" : ""}`)),
      el("div", { class: "io" }, el("div", {}, el("h5", {}, "Input"), artifact(run.input)), el("div", {}, el("h5", {}, "Output"), artifact(run.output))),
      run.meta ? el("details", {}, el("summary", {}, "meta"), json(run.meta)) : null,
    );
  }

  // ---- views -----------------------------------------------------------------------------------------------
  function show(title, ...children) {
    const view = $("#view");
    view.replaceChildren(el("h2", { id: "view-title", tabindex: "-1" }, title), ...children.filter(Boolean));
    view.hidden = false;
    return view;
  }

  async function threadsView() {
    const prefix = el("input", { type: "search", name: "prefix", placeholder: "thread id starts with…", spellcheck: "false" });
    const body = el("tbody");
    const table = el("table", { class: "grid", id: "threads" }, el("caption", { class: "sr-only" }, "Threads, by id"), el("thead", {}, el("tr", {}, ["Thread", "Name", "Runs", "Kind", "Created", "Updated"].map((h) => el("th", { scope: "col" }, h)))), body);
    const more = el("div", { class: "more" });
    const form = el("form", { class: "row", role: "search" }, field("Filter by id prefix", prefix), el("button", { type: "submit" }, "Filter"));
    const count = el("p", { class: "muted", id: "threads-count" });
    let shown = 0;
    async function load(cursor) {
      more.replaceChildren();
      status("Loading threads…");
      try {
        const { body: page } = await api("GET", "/threads", { query: { limit: PAGE, cursor, prefix: prefix.value } });
        for (const t of page.threads) {
          const open = el("a", { href: `#/threads/${seg(t.thread_id)}` }, t.thread_id);
          body.append(el("tr", {}, el("td", {}, open), el("td", {}, t.name || ""), el("td", { class: "num" }, t.stored_runs ?? t.last_seq ?? ""), el("td", {}, t.kind), el("td", {}, when(t.created_at)), el("td", {}, when(t.updated_at))));
        }
        shown += page.threads.length;
        count.textContent = `${shown} thread${shown === 1 ? "" : "s"} shown${page.next_cursor ? " (more below)" : ""}`;
        if (page.next_cursor) more.append(button("Load more threads", () => load(page.next_cursor)));
        status("");
        if (!cursor) requestAnimationFrame(() => performance.mark("console:threads-painted"));
      } catch (e) {
        more.append(failure(e));
        status("");
      }
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      body.replaceChildren();
      shown = 0;
      load();
    });
    // Conversation search (POST /threads/search, docs/adr/0049): under the filter's prefix when there is one.
    const query = el("input", { type: "search", name: "conversation-query", placeholder: "what was said about…", maxlength: "2000" });
    const searchForm = el("form", { class: "row", role: "search", "aria-label": "Search past conversations" }, field("Search conversations", query), el("button", { type: "submit" }, "Search"));
    const hits = el("ol", { class: "list", id: "search-hits" });
    searchForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      hits.replaceChildren();
      if (!query.value.trim()) return;
      status("Searching…");
      try {
        const request = { query: query.value, limit: PAGE };
        if (prefix.value) request.thread_prefix = prefix.value;
        const { body: found } = await api("POST", "/threads/search", { body: request });
        hits.append(...found.hits.map(hitCard));
        if (!found.hits.length) hits.append(el("li", { class: "muted" }, "No turn matches."));
      } catch (e) {
        hits.append(el("li", {}, failure(e)));
      }
      status("");
    });
    show("Threads", searchForm, hits, form, count, table, more);
    await load();
  }
  function hitCard(hit) {
    const head = el("h4", {}, el("a", { href: `#/threads/${seg(hit.thread_id)}` }, hit.thread_id), el("span", { class: "muted" }, ` #${hit.seq} · ${when(hit.created_at)} · score ${Number(hit.score).toFixed(3)}`));
    const run = hit.run;
    const content = run ? el("div", { class: "io" }, el("div", {}, el("h5", {}, "Input"), artifact(run.input)), el("div", {}, el("h5", {}, "Output"), artifact(run.output))) : json(hit.item);
    return el("li", {}, el("article", { class: "run hit", "aria-label": `hit ${hit.thread_id} #${hit.seq}` }, head, content));
  }

  async function threadView(threadId) {
    const back = el("a", { href: "#/threads" }, "← All threads");
    const meta = el("div", { id: "thread-meta" });
    const runs = el("div", { id: "runs" });
    const more = el("div", { class: "more" });
    const heading = el("h3", {}, "Runs (newest first)");
    show(`Thread ${threadId}`, back, meta, heading, runs, more);
    let t;
    try {
      ({ body: t } = await api("GET", `/threads/${seg(threadId)}`));
      meta.replaceChildren(threadMeta(t), threadSettings(threadId, t));
    } catch (e) {
      meta.replaceChildren(failure(e));
      return;
    }
    meta.append(await extractionStatus(threadId));
    if (t.kind === "items") {
      // a framework session (docs/adr/0033): its items, not runs; the route pages oldest first within a page
      heading.textContent = "Items (newest first)";
      runs.id = "items";
      await loadItems(threadId, runs, more);
      return;
    }
    async function load(cursor) {
      more.replaceChildren();
      try {
        const { body: page } = await api("GET", `/threads/${seg(threadId)}/runs`, { query: { limit: PAGE, order: "desc", cursor } });
        runs.append(...page.runs.map(runCard));
        if (!page.runs.length && !cursor) runs.append(el("p", { class: "muted" }, "No runs."));
        if (page.next_cursor) more.append(button("Older runs", () => load(page.next_cursor)));
      } catch (e) {
        more.append(failure(e));
      }
    }
    await load();
  }
  async function extractionStatus(threadId) {
    // Long-term memory extraction (ADR 0051): each strategy's progress on this thread, its last error or pause.
    const box = el("section", { id: "extraction", "aria-label": "Extraction" });
    try {
      const { body } = await api("GET", `/threads/${seg(threadId)}/extraction`);
      const names = Object.keys(body.strategies || {}).sort();
      if (!names.length) return box;
      const head = ["Strategy", "Processed through", "Pending runs", "Records written", "State", "Updated"];
      const rows = names.map((name) => {
        const s = body.strategies[name];
        const state = s.paused ? `paused: ${s.paused}` : s.last_error ? `error: ${s.last_error}` : s.enabled ? "ok" : "disabled";
        return el("tr", {}, [name, `#${s.processed_through_seq ?? 0}`, s.pending_runs, s.records_written, state, when(s.updated_at)].map((v) => el("td", {}, v ?? "—")));
      });
      box.append(el("h3", {}, "Extraction"), el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))), el("tbody", {}, rows)));
    } catch (e) {
      box.append(failure(e));
    }
    return box;
  }
  function itemCard(item, seq) {
    const role = item && typeof item === "object" ? item.role ?? item.type : null;
    const content = item && typeof item === "object" ? item.content : undefined;
    const body = typeof content === "string" ? el("pre", { class: "text" }, content) : json(item);
    const head = el("h4", {}, `#${seq} `, role !== null && role !== undefined ? el("span", { class: "badge" }, String(role)) : null);
    return el("article", { class: `run item role-${String(role).replace(/[^a-z]/g, "")}`, "aria-label": `item ${seq}` }, head, body, typeof content === "string" ? el("details", {}, el("summary", {}, "JSON"), json(item)) : null);
  }
  async function loadItems(threadId, box, more, before) {
    more.replaceChildren();
    try {
      const { body: page } = await api("GET", `/threads/${seg(threadId)}/items`, { query: { limit: PAGE, before } });
      const cards = page.items.map((item, i) => itemCard(item, page.seqs[i]));
      box.append(...cards.reverse());
      if (!page.items.length && !before) box.append(el("p", { class: "muted" }, "No items."));
      if (page.next_before) more.append(button("Older items", () => loadItems(threadId, box, more, page.next_before)));
    } catch (e) {
      more.append(failure(e));
    }
  }
  function threadMeta(t) {
    const items = t.kind === "items"; // a framework session counts items where a thread of runs counts runs
    const rows = [
      ["Kind", t.kind],
      ...(items ? [["Stored items", t.stored_runs]] : [["Memory", t.memory_type], ["Stored runs", t.stored_runs], ["Visible runs", t.visible_runs]]),
      ["Last seq", t.last_seq],
      ...(t.actor_id ? [["Actor", t.actor_id]] : []),
      ...forkRows(t.fork),
      ["Created", when(t.created_at)],
      ["Updated", when(t.updated_at)],
    ];
    return el("div", {}, el("dl", { class: "meta" }, rows.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v ?? "—")])), t.summary ? el("details", {}, el("summary", {}, `Summary (through #${t.summary.through_seq})`), el("pre", { class: "text" }, t.summary.text)) : null);
  }
  function forkRows(fork) {
    // A fork (ADR 0037) reads its ancestors' runs up to its fork point: shown, never copied.
    if (!fork) return [];
    const rows = [];
    if (fork.forked_from) {
      const point = fork.ancestry && fork.ancestry.length ? ` after #${fork.ancestry[0].through_seq}` : "";
      rows.push(["Forked from", `${fork.forked_from}${point}`]);
    }
    if (fork.live_forks) rows.push(["Live forks", fork.live_forks]);
    return rows;
  }
  function threadSettings(threadId, t) {
    const maxRuns = el("input", { type: "number", min: 1, name: "max_runs", value: t.max_runs ?? "" });
    const retention = el("input", { type: "number", min: 1, name: "retention_days", value: t.retention_days ?? "" });
    const memoryType = el("select", { name: "memory_type" }, ["buffer", "summary"].map((v) => el("option", { value: v, selected: v === t.memory_type }, v)));
    const note = el("p", { role: "status" });
    // A framework session's items are never pruned by count nor summarized: only retention applies (409 otherwise).
    const items = t.kind === "items";
    const fields = items ? [field("Retention days (empty: forever)", retention)] : [field("Max runs (empty: all)", maxRuns), field("Retention days (empty: forever)", retention), field("Memory", memoryType)];
    const form = el("form", { class: "settings", "aria-label": "Thread settings" }, el("h3", {}, "Settings"), ...fields, el("button", { type: "submit" }, "Save settings"), note);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const number = (input) => (input.value === "" ? null : Number(input.value));
      const body = items ? { retention_days: number(retention) } : { max_runs: number(maxRuns), retention_days: number(retention), memory_type: memoryType.value };
      try {
        await api("PUT", `/threads/${seg(threadId)}`, { body });
        note.textContent = "Saved.";
      } catch (e) {
        note.replaceChildren(failure(e));
      }
    });
    const remove = button("Delete thread…", async () => {
      if (!window.confirm(`Delete thread "${threadId}" and all its runs? This cannot be undone.`)) return;
      try {
        await api("DELETE", `/threads/${seg(threadId)}`);
        location.hash = "#/threads";
      } catch (e) {
        note.replaceChildren(failure(e));
      }
    }, { class: "danger" });
    return el("div", { class: "side" }, form, remove);
  }

  async function promptView() {
    const thread = el("input", { name: "thread", required: true, spellcheck: "false" });
    const system = el("textarea", { name: "system", rows: 2 }, "");
    const input = el("textarea", { name: "input", rows: 2 }, "");
    const budget = el("input", { type: "number", name: "max_tokens", min: 1, value: 1000 });
    const tokenizer = el("select", { name: "tokenizer" }, ["cl100k_base", "o200k_base", "chars_per_token:4"].map((v) => el("option", { value: v }, v)));
    const out = el("div", { id: "prompt-result" });
    const form = el("form", { class: "stack" }, field("Thread id", thread), field("System message", system), field("Input", input), field("Budget (max tokens)", budget), field("Tokenizer", tokenizer), el("button", { type: "submit" }, "Preview prompt"));
    const fromHash = new URLSearchParams(location.hash.split("?")[1] || "").get("thread");
    if (fromHash) thread.value = fromHash;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      out.replaceChildren(el("p", { class: "muted" }, "Building…"));
      const request = { max_tokens: Number(budget.value), tokenizer: tokenizer.value };
      if (system.value) request.system = system.value;
      if (input.value) request.input = input.value;
      try {
        const { body: stack, headers } = await api("POST", `/threads/${seg(thread.value)}/prompt-stack`, { body: request });
        const messages = stack.messages || [];
        const fixed = (system.value ? 1 : 0) + (input.value ? 1 : 0);
        const memory = Math.max(0, messages.length - fixed);
        const kept = Math.ceil(memory / 2);
        const tokens = headers.get("X-Offprompt-Prompt-Tokens");
        const over = headers.get("X-Offprompt-Over-Budget") === "true";
        const summary = el("dl", { class: "meta", id: "prompt-summary" }, el("dt", {}, "Prompt tokens"), el("dd", {}, `${tokens} of ${budget.value}`), el("dt", {}, "Messages"), el("dd", {}, messages.length), el("dt", {}, "Runs kept"), el("dd", {}, kept));
        const warn = over ? el("p", { class: "error", role: "alert", id: "over-budget" }, "Over budget: the system and input messages alone exceed the budget; no run could be kept.") : null;
        const keptRuns = el("div", {});
        if (kept > 0) {
          const { body: page } = await api("GET", `/threads/${seg(thread.value)}/runs`, { query: { limit: Math.min(kept, 100), order: "desc" } });
          keptRuns.append(el("h3", {}, "Runs kept (newest first)"), el("table", { class: "grid" }, el("thead", {}, el("tr", {}, ["Run", "Input tokens", "Output tokens"].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, page.runs.map((r) => el("tr", {}, el("td", {}, `#${r.seq}`), el("td", { class: "num" }, r.input_tokens), el("td", { class: "num" }, r.output_tokens))))));
        }
        const list = el("ol", { class: "messages" }, messages.map((m) => el("li", { class: `message role-${String(m.role).replace(/[^a-z]/g, "")}` }, el("span", { class: "badge" }, m.role), (m.content || []).map((c) => artifact(c.artifact)))));
        out.replaceChildren(...[summary, warn, keptRuns, el("h3", {}, "Messages"), list].filter(Boolean));
      } catch (e) {
        out.replaceChildren(failure(e));
      }
    });
    show("Prompt preview", form, out);
  }

  async function memoryView() {
    const memory = el("input", { name: "memory", value: "TaskMemory", required: true, spellcheck: "false" });
    const form = el("form", { class: "row" }, field("Memory name", memory), el("button", { type: "submit" }, "Open"));
    const namespaces = el("div", { id: "namespaces" });
    const detail = el("div", { id: "namespace" });
    const metaBox = el("div", { id: "meta-entries" });
    async function open() {
      namespaces.replaceChildren(el("p", { class: "muted" }, "Loading…"));
      detail.replaceChildren();
      try {
        const { body: page } = await api("GET", `/memories/${seg(memory.value)}/namespaces`, { query: { limit: 100 } });
        const rows = page.namespaces.map((ns) => el("li", {}, button(ns.namespace ?? ns.name ?? JSON.stringify(ns), () => openNamespace(memory.value, ns.namespace ?? ns.name, detail), { class: "link" }), el("span", { class: "muted" }, ` ${namespaceSummary(ns)}`)));
        namespaces.replaceChildren(el("h3", {}, "Namespaces"), rows.length ? el("ul", { class: "plain" }, rows) : el("p", { class: "muted" }, "No namespaces."));
        const { body: meta } = await api("GET", `/memories/${seg(memory.value)}/meta`, { query: { limit: 20 } });
        metaBox.replaceChildren(el("h3", {}, "Meta entries (thought, actions, answer)"), meta.entries.length ? el("ol", { class: "list" }, meta.entries.map((m) => el("li", {}, m.thought ? el("p", {}, el("strong", {}, "Thought: "), String(m.thought)) : null, m.answer ? el("p", {}, el("strong", {}, "Answer: "), String(m.answer)) : null, m.actions ? el("details", {}, el("summary", {}, "actions"), json(m.actions)) : null))) : el("p", { class: "muted" }, "No meta entries."));
      } catch (e) {
        namespaces.replaceChildren(failure(e));
      }
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      open();
    });
    show("Task memory", form, el("div", { class: "split" }, namespaces, detail), metaBox);
    await open();
  }
  // A namespace's row: the tool activity that stored it, its storage, how many artifacts, their size (the API's
  // namespace record: docs/api.md).
  function namespaceSummary(ns) {
    const count = `${ns.artifact_count} artifact${ns.artifact_count === 1 ? "" : "s"}`;
    return `${ns.tool}.${ns.activity} · ${ns.storage} · ${count} · ${bytes(ns.total_bytes)}`;
  }

  async function openNamespace(memoryName, namespace, box) {
    const query = el("input", { type: "search", name: "query", required: true });
    const mode = el("select", { name: "mode" }, ["bm25", "knn", "hybrid"].map((v) => el("option", { value: v }, v)));
    const hits = el("ol", { class: "list", id: "hits" });
    const form = el("form", { class: "row", role: "search" }, field("Search", query), field("Mode", mode), el("button", { type: "submit" }, "Search"));
    const artifacts = el("div", { id: "artifacts" });
    box.replaceChildren(el("h3", {}, `Namespace ${namespace}`), form, hits, el("h3", {}, "Artifacts"), artifacts);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      hits.replaceChildren();
      try {
        const { body } = await api("POST", `/memories/${seg(memoryName)}/namespaces/${seg(namespace)}/search`, { body: { query: query.value, mode: mode.value, top_k: 5 } });
        hits.append(...body.hits.map((h) => el("li", {}, el("span", { class: "badge" }, Number(h.score).toFixed(3)), el("pre", { class: "text" }, String(h.text)))));
        if (!body.hits.length) hits.append(el("li", { class: "muted" }, "No hits."));
      } catch (e) {
        hits.append(el("li", {}, failure(e)));
      }
    });
    try {
      const loaded = await api("GET", `/memories/${seg(memoryName)}/namespaces/${seg(namespace)}/artifacts`);
      if (loaded.redirected) artifacts.replaceChildren(el("p", { class: "muted" }, "Too large to show here: load it with the client (a presigned download)."));
      else artifacts.replaceChildren(artifact(loaded.body));
    } catch (e) {
      artifacts.replaceChildren(failure(e));
    }
  }

  // ---- long-term records (docs/adr/0034): a namespace is a list of labels, "a.b" in a URL path -------------------
  const labels = (text) => String(text || "").split(".").map((l) => l.trim()).filter(Boolean);
  const dotted = (namespace) => (namespace || []).join(".");
  const recordPath = (namespace, key) => `/records/${seg(dotted(namespace))}/${seg(key)}`;
  async function recordsView() {
    const prefix = el("input", { type: "search", name: "ns-prefix", placeholder: "users.alice (labels joined by .)", spellcheck: "false" });
    const listForm = el("form", { class: "row", role: "search" }, field("Namespaces starting with", prefix), el("button", { type: "submit" }, "List namespaces"));
    const namespaces = el("div", { id: "record-namespaces" });
    const under = el("input", { type: "search", name: "under", placeholder: "empty: every namespace", spellcheck: "false" });
    const query = el("input", { type: "search", name: "record-query", placeholder: "empty: newest first" });
    const mode = el("select", { name: "record-mode" }, ["bm25", "knn", "hybrid"].map((v) => el("option", { value: v }, v)));
    const searchForm = el("form", { class: "row", role: "search", "aria-label": "Search records" }, field("Search under namespace", under), field("Text", query), field("Search mode", mode), el("button", { type: "submit" }, "Search records"));
    const hits = el("ol", { class: "list", id: "record-hits" });
    const more = el("div", { class: "more" });
    const detail = el("div", { id: "record" });
    async function listNamespaces() {
      namespaces.replaceChildren(el("p", { class: "muted" }, "Loading…"));
      try {
        const wanted = labels(prefix.value);
        const { body } = await api("POST", "/records/namespaces", { body: { prefix: wanted.length ? wanted : null, limit: 100 } });
        const rows = body.namespaces.map((ns) => el("li", {}, button(dotted(ns), () => {
          under.value = dotted(ns);
          search(0);
        }, { class: "link" })));
        namespaces.replaceChildren(el("h3", {}, "Namespaces"), rows.length ? el("ul", { class: "plain" }, rows) : el("p", { class: "muted" }, "No namespaces."));
      } catch (e) {
        namespaces.replaceChildren(failure(e));
      }
    }
    async function search(offset) {
      more.replaceChildren();
      if (!offset) {
        hits.replaceChildren();
        detail.replaceChildren();
      }
      const request = { namespace_prefix: labels(under.value), limit: PAGE, offset: offset || 0, refresh_ttl: false };
      if (query.value) Object.assign(request, { query: query.value, mode: mode.value });
      try {
        const { body } = await api("POST", "/records/search", { body: request });
        if (body.items.length === PAGE) more.append(button("More records", () => search((offset || 0) + PAGE)));
        hits.append(...body.items.map((r) => el("li", {}, button(`${dotted(r.namespace)} / ${r.key}`, () => openRecord(r.namespace, r.key, detail), { class: "link" }), el("span", { class: "muted" }, ` v${r.version} · ${when(r.updated_at)}${r.score === null || r.score === undefined ? "" : ` · score ${Number(r.score).toFixed(3)}`}`))));
        if (!body.items.length && !offset) hits.append(el("li", { class: "muted" }, "No records."));
      } catch (e) {
        hits.append(el("li", {}, failure(e)));
      }
    }
    listForm.addEventListener("submit", (event) => {
      event.preventDefault();
      listNamespaces();
    });
    searchForm.addEventListener("submit", (event) => {
      event.preventDefault();
      search(0);
    });
    show("Records", listForm, el("div", { class: "split" }, namespaces, el("div", {}, searchForm, hits, more, detail)));
    await listNamespaces();
  }
  async function openRecord(namespace, key, box) {
    const current = el("div", { id: "record-current" });
    const history = el("div", { id: "record-history" });
    const remove = button("Delete record…", async () => {
      if (!window.confirm(`Delete record "${key}" in ${dotted(namespace)}? Its history keeps the old versions.`)) return;
      try {
        await api("DELETE", recordPath(namespace, key));
        await openRecord(namespace, key, box);
      } catch (e) {
        current.append(failure(e));
      }
    }, { class: "danger", "aria-label": `Delete record ${key}` });
    box.replaceChildren(el("h3", {}, `Record ${dotted(namespace)} / ${key}`), current, remove, el("h3", {}, "History (newest first)"), history);
    try {
      const { body: r } = await api("GET", recordPath(namespace, key), { query: { refresh_ttl: "false" } });
      const rows = [["Version", r.version], ["Valid from", when(r.valid_from)], ["Created", when(r.created_at)], ["Expires", when(r.expires_at)]];
      current.replaceChildren(el("dl", { class: "meta" }, rows.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v ?? "—")])), json(r.value));
    } catch (e) {
      current.replaceChildren(e instanceof ApiError && e.status === 404 ? el("p", { class: "muted" }, "No current version (deleted or expired).") : failure(e));
    }
    try {
      const { body } = await api("GET", `${recordPath(namespace, key)}/history`);
      const rows = body.versions.map((v) => el("tr", { class: v.deleted ? "deleted" : null }, el("td", { class: "num" }, v.version), el("td", {}, when(v.valid_from)), el("td", {}, v.valid_to ? when(v.valid_to) : "current"), el("td", {}, v.deleted ? el("span", { class: "badge" }, "deleted") : json(v.value))));
      history.replaceChildren(el("table", { class: "grid" }, el("thead", {}, el("tr", {}, ["Version", "Valid from", "Valid to", "Value"].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows)));
    } catch (e) {
      history.replaceChildren(failure(e));
    }
  }

  async function usageView() {
    const days = 14;
    const to = new Date();
    const from = new Date(to.getTime() - (days - 1) * 86400000);
    const iso = (d) => d.toISOString().slice(0, 10);
    const series = el("select", { name: "series", id: "usage-series" }, USAGE_SERIES.map(([v, label]) => el("option", { value: v }, label)));
    const chart = el("div", { id: "usage-chart" });
    const table = el("div", {});
    show("Usage", el("p", { class: "muted" }, `Per UTC day, ${iso(from)} to ${iso(to)}.`), field("Series", series), chart, table);
    let report;
    try {
      ({ body: report } = await api("GET", "/usage", { query: { from: iso(from), to: iso(to) } }));
    } catch (e) {
      chart.replaceChildren(failure(e));
      return;
    }
    const byDay = new Map(report.days.map((d) => [d.date, d]));
    const all = [];
    for (let i = 0; i < days; i += 1) all.push(iso(new Date(from.getTime() + i * 86400000)));
    const plan = report.plan || {};
    function draw() {
      const name = series.value;
      const values = all.map((d) => Number((byDay.get(d) || {})[name] || 0));
      const limit = name === "runs_added" ? Number(plan.runs_per_day || 0) : 0;
      chart.replaceChildren(barChart(all, values, limit, USAGE_SERIES.find(([v]) => v === name)[1]));
    }
    series.addEventListener("change", draw);
    draw();
    // a tenant without a plan (the local stack's, a JWT or IAM deployment's) is not metered: no gauge, not "0 B"
    const unmetered = "not metered (only API-key tenants are: this one has no plan)";
    const gauge = !report.plan ? unmetered : plan.stored_bytes ? `${bytes(report.stored_bytes)} of ${bytes(plan.stored_bytes)} (${((100 * report.stored_bytes) / plan.stored_bytes).toFixed(1)}%)` : `${bytes(report.stored_bytes)} (no limit)`;
    const limits = el("dl", { class: "meta", id: "plan" }, el("dt", {}, "Plan"), el("dd", {}, plan.plan || "—"), el("dt", {}, "Stored now"), el("dd", {}, gauge), el("dt", {}, "Runs per day"), el("dd", {}, plan.runs_per_day ? plan.runs_per_day : "unlimited"), el("dt", {}, "Requests per second"), el("dd", {}, plan.rate_per_second ? plan.rate_per_second : "unlimited"));
    const rows = report.days.map((d) => el("tr", {}, el("td", {}, d.date), USAGE_SERIES.map(([v]) => el("td", { class: "num" }, d[v] ?? 0))));
    const byRoute = Object.entries((report.totals && report.totals.requests_by_route) || {}).sort((a, b) => b[1] - a[1]);
    const routes = el("table", { class: "grid", id: "usage-routes" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Route"), el("th", { scope: "col" }, "Requests"))), el("tbody", {}, byRoute.map(([route, n]) => el("tr", {}, el("td", {}, route), el("td", { class: "num" }, n)))));
    table.replaceChildren(el("h3", {}, "Plan limits"), limits, el("h3", {}, "Requests by route"), routes, el("h3", {}, "Numbers"), el("table", { class: "grid", id: "usage-table" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Day"), USAGE_SERIES.map(([, label]) => el("th", { scope: "col" }, label)))), el("tbody", {}, rows)));
  }
  function barChart(labels, values, limit, title) {
    const NS = "http://www.w3.org/2000/svg";
    const w = 640;
    const h = 200;
    const pad = 28;
    const most = Math.max(1, ...values);
    // a limit far above the use would flatten every bar: it is drawn only when it is on the scale, always named
    const drawn = limit && limit <= most * 4 ? limit : 0;
    const top = Math.max(most, drawn);
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", `0 0 ${w} ${h + pad}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("class", "chart");
    const t = document.createElementNS(NS, "title");
    t.textContent = `${title} per day: ${labels.map((l, i) => `${l} ${values[i]}`).join(", ")}${limit ? `; limit ${limit}` : ""}`;
    svg.append(t);
    const step = (w - pad) / labels.length;
    values.forEach((v, i) => {
      const bh = ((h - pad) * v) / top;
      const rect = document.createElementNS(NS, "rect");
      rect.setAttribute("x", String(pad + i * step + 2));
      rect.setAttribute("y", String(h - bh));
      rect.setAttribute("width", String(Math.max(1, step - 4)));
      rect.setAttribute("height", String(bh));
      rect.setAttribute("class", "bar");
      const tip = document.createElementNS(NS, "title");
      tip.textContent = `${labels[i]}: ${v}`;
      rect.append(tip);
      svg.append(rect);
      if ((labels.length - 1 - i) % 2 === 0) { // every other day, counted back from the last (today's)
        const text = document.createElementNS(NS, "text");
        text.setAttribute("x", String(pad + i * step + step / 2));
        text.setAttribute("y", String(h + 16));
        text.setAttribute("class", "axis");
        text.setAttribute("text-anchor", "middle");
        text.textContent = labels[i].slice(5);
        svg.append(text);
      }
    });
    const label = document.createElementNS(NS, "text");
    label.setAttribute("x", "0");
    label.setAttribute("y", "12");
    label.setAttribute("class", "axis");
    label.textContent = String(top);
    svg.append(label);
    if (drawn) {
      const y = h - ((h - pad) * drawn) / top;
      const line = document.createElementNS(NS, "line");
      for (const [k, v] of [["x1", pad], ["x2", w], ["y1", y], ["y2", y]]) line.setAttribute(k, String(v));
      line.setAttribute("class", "limit");
      svg.append(line);
    }
    const peak = Math.max(...values);
    const against = limit ? `; the plan's limit: ${limit} a day${drawn ? " (dashed)" : ""}, the busiest day used ${((100 * peak) / limit).toFixed(2)}%` : "";
    return el("figure", {}, svg, el("figcaption", { id: "usage-caption" }, `${title} per day${against}`));
  }

  function scopeSummary(scopes) {
    // A key's reach in words (docs/keys.md): the families it names, then its actions; no scope: the whole tenant.
    if (!scopes) return "whole tenant";
    const prefix = (p) => `${p}*`;
    const parts = [];
    if (scopes.threads) parts.push(`threads ${prefix(scopes.threads.prefix)}`);
    if (scopes.records) parts.push(`records ${prefix(scopes.records.namespace_prefix.map((l) => `${l}.`).join(""))}`);
    if (scopes.memories) parts.push(`memories ${scopes.memories.names.join(", ")}`);
    if (scopes.checkpoints) parts.push(`checkpoints ${prefix(scopes.checkpoints.prefix)}`);
    if (!parts.length) parts.push("no data");
    const actions = scopes.actions || [];
    parts.push(actions.includes("write") ? (actions.includes("read") ? "read and write" : "write only") : "read only");
    return parts.join(", ");
  }
  async function keysView() {
    const list = el("div", { id: "keys" });
    const name = el("input", { name: "key-name", maxlength: 64 });
    const prefix = el("input", { name: "key-thread-prefix", maxlength: 256, placeholder: "e.g. user-7- (optional)", spellcheck: "false" });
    const readOnly = el("input", { type: "checkbox", name: "key-read-only" });
    const created = el("div", { id: "new-key", "aria-live": "polite" });
    const hint = el("p", { class: "hint" }, "A thread prefix: the key reaches only those threads (no records, task memory or checkpoints). Read only: it cannot write or delete (without a prefix: every thread, record and checkpoint, no task memory). Other scopes: POST /keys (docs/keys.md).");
    const form = el("form", { class: "row" }, field("New key's name", name), field("Only threads starting with", prefix), el("label", { class: "check" }, readOnly, " Read only"), el("button", { type: "submit" }, "Create key"));
    async function refresh() {
      try {
        const { body } = await api("GET", "/keys");
        const rows = body.keys.map((k) => el("tr", {}, el("td", {}, k.prefix || k.key_id), el("td", {}, k.name || ""), el("td", {}, scopeSummary(k.scopes)), el("td", {}, k.expires_at ? when(k.expires_at) : "never"), el("td", {}, when(k.created_at)), el("td", {}, button("Revoke", async () => {
          if (!window.confirm(`Revoke key ${k.prefix || k.key_id}? Agents using it stop working at once.`)) return;
          try {
            await api("DELETE", `/keys/${seg(k.key_id)}`);
            await refresh();
          } catch (e) {
            list.append(failure(e));
          }
        }, { class: "danger", "aria-label": `Revoke key ${k.prefix || k.key_id}` }))));
        list.replaceChildren(el("table", { class: "grid" }, el("thead", {}, el("tr", {}, ["Key", "Name", "Scope", "Expires", "Created", ""].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows)));
      } catch (e) {
        list.replaceChildren(failure(e));
      }
    }
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const request = name.value ? { name: name.value } : {};
      if (prefix.value || readOnly.checked) {
        request.scopes = { actions: readOnly.checked ? ["read"] : ["read", "write"] };
        if (prefix.value) request.scopes.threads = { prefix: prefix.value };
        else Object.assign(request.scopes, { threads: { prefix: "" }, records: { namespace_prefix: [] }, checkpoints: { prefix: "" } });
      }
      try {
        const { body } = await api("POST", "/keys", { body: request });
        const secret = el("input", { readonly: true, value: body.key, class: "secret", "aria-label": "The new key" });
        created.replaceChildren(el("p", { class: "notice" }, "Copy this key now: it is shown once."), secret);
        name.value = "";
        prefix.value = "";
        readOnly.checked = false;
        await refresh();
      } catch (e) {
        created.replaceChildren(failure(e));
      }
    });
    show("API keys", form, hint, created, list);
    await refresh();
  }

  async function auditView() {
    // GET /audit (docs/audit.md): newest first, a page at a time; ids and codes only, never a value.
    const body = el("tbody");
    const table = el("table", { class: "grid", id: "audit" }, el("caption", { class: "sr-only" }, "Audit log, newest first"), el("thead", {}, el("tr", {}, ["Time", "Actor", "Via", "Operation", "Resources", "Status"].map((h) => el("th", { scope: "col" }, h)))), body);
    const more = el("div", { class: "more" });
    show("Audit log", el("p", { class: "muted" }, "Every write, delete, key change, export and erase, newest first; refused calls too. Never a value."), table, more);
    async function load(cursor) {
      more.replaceChildren();
      try {
        const { body: page } = await api("GET", "/audit", { query: { limit: PAGE, cursor } });
        for (const e of page.entries) {
          const actor = e.actor || {};
          const resources = Object.entries(e.resources || {}).map(([k, v]) => `${k} ${v}`).join(", ");
          body.append(el("tr", {}, el("td", {}, when(e.at)), el("td", {}, `${actor.type || ""} ${actor.id || ""}`.trim()), el("td", {}, e.via || ""), el("td", {}, e.operation || ""), el("td", {}, resources || "—"), el("td", {}, `${e.status ?? ""}${e.code ? ` ${e.code}` : ""}`)));
        }
        if (!page.entries.length && !cursor) more.append(el("p", { class: "muted" }, "No entries."));
        if (page.cursor) more.append(button("More entries", () => load(page.cursor)));
      } catch (e) {
        more.append(failure(e));
      }
    }
    await load();
  }

  // ---- sign in, routing --------------------------------------------------------------------------------------
  function signOut(message) {
    auth = null;
    $("#credential").value = "";
    $("#view").replaceChildren();
    $("#view").hidden = true;
    $("#nav").hidden = true;
    $("#who").hidden = true;
    $("#sign-in").hidden = false;
    $("#sign-in-error").textContent = message || "";
    status(message ? "" : "Signed out.");
  }
  async function signIn(event) {
    event.preventDefault();
    const mode = document.querySelector("input[name=mode]:checked").value;
    const value = $("#credential").value.trim();
    if (!value) return;
    performance.mark("console:sign-in");
    // No probe of its own: the first view's request proves the credential (a 401 there signs out and says so), so a
    // sign-in costs no extra, metered request and no deliberate 404 in the network log.
    auth = { mode, value };
    $("#credential").value = "";
    $("#sign-in-error").textContent = "";
    status(""); // not "Signed out." any more
    $("#sign-in").hidden = true;
    $("#nav").hidden = false;
    $("#who").hidden = false;
    const shown = value.startsWith("op_") ? `key ${value.split("_").slice(0, 2).join("_")}_…` : "a bearer token (JWT)";
    $("#who-name").textContent = mode === "key" ? shown : `tenant ${value}`;
    if (!location.hash || location.hash === "#") location.hash = "#/threads";
    else route();
  }
  async function route() {
    if (!auth) return;
    const hash = location.hash.replace(/^#\/?/, "");
    const [path] = hash.split("?");
    const [view, ...rest] = path.split("/");
    for (const link of document.querySelectorAll("#nav a")) {
      if (link.dataset.view === (view || "threads")) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    const views = { threads: threadsView, prompt: promptView, memory: memoryView, records: recordsView, usage: usageView, keys: keysView, audit: auditView };
    try {
      if (view === "threads" && rest.length) await threadView(decodeURIComponent(rest.join("/")));
      else await (views[view] || threadsView)();
      document.body.dataset.view = view || "threads";
      const title = $("#view-title");
      if (title) title.focus({ preventScroll: true });
    } catch (e) {
      show("Error", failure(e));
    }
  }
  function start() {
    $("#sign-in-form").addEventListener("submit", signIn);
    $("#sign-out").addEventListener("click", () => signOut());
    for (const radio of document.querySelectorAll("input[name=mode]")) {
      radio.addEventListener("change", () => {
        const key = radio.value === "key" && radio.checked;
        if (!radio.checked) return;
        $("#credential-label").textContent = key ? "API key or JWT" : "Tenant";
        $("#credential").type = key ? "password" : "text";
      });
    }
    window.addEventListener("hashchange", route);
    $("#credential").focus();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
