// The agentforge report: every view is drawn from the embedded --json documents.
// Whatever a recording, a tool or a file name holds is inserted as text (textContent),
// never as markup. A transcript's calls are drawn when it is opened, a page at a time.
"use strict";
(function () {
  const PAGE = 200;
  const REPLAY_VERDICTS = ["matched", "mismatched", "unrecorded", "drifted"];
  const LEVELS = ["breaking", "error", "warning", "info"];
  const data = JSON.parse(document.getElementById("report-data").textContent);

  // -- small helpers -------------------------------------------------------------------
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "class") node.className = value;
      else node.setAttribute(key, String(value));
    }
    for (const child of children || []) {
      if (child !== null && child !== undefined) {
        node.append(typeof child === "string" ? document.createTextNode(child) : child);
      }
    }
    return node;
  }
  function slug(text) { return String(text).replace(/[^a-z0-9]+/gi, "-").toLowerCase(); }
  function badge(verdict, text) {
    return el("span", {class: "badge v-" + slug(verdict), "data-verdict": verdict,
                       text: text === undefined ? verdict : text});
  }
  function card(count, label, key) {
    return el("div", {class: "card"}, [
      el("span", {class: "count", "data-count": key, text: String(count)}),
      el("span", {class: "label", text: label})]);
  }
  function table(headers, rows, numeric) {
    const head = el("tr", {}, headers.map((h, i) =>
      el("th", {class: numeric && numeric[i] ? "num" : null, text: h})));
    const body = rows.map((row) => el("tr", {}, row.map((cell, i) => {
      const td = el("td", {class: numeric && numeric[i] ? "num" : null});
      td.append(typeof cell === "object" && cell !== null ? cell : String(cell));
      return td;
    })));
    return el("div", {class: "table-wrap"}, [el("table", {}, [el("thead", {}, [head]),
                                                             el("tbody", {}, body)])]);
  }
  function pretty(text) {
    if (typeof text !== "string") return text === null || text === undefined ? "" : String(text);
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  function add(counts, key, by) { counts[key] = (counts[key] || 0) + (by === undefined ? 1 : by); }
  function plural(count, noun) { return count + " " + noun + (count === 1 ? "" : "s"); }

  // -- the documents, read once --------------------------------------------------------
  const transcripts = [];  // {source, transcript, format, match, summary, calls, error}
  const checks = [];       // {source, document}
  const fuzzes = [];       // {source, document}
  for (const run of data.runs) {
    const doc = run.document;
    if (run.kind === "replay") {
      for (const file of Array.isArray(doc.files) ? doc.files : [doc]) {
        transcripts.push({source: run.source, transcript: file.transcript || run.source,
                          format: file.format || "", match: file.match || doc.match || "",
                          summary: file.summary || {}, calls: file.calls || [],
                          error: file.error || null});
      }
    } else if (run.kind === "check") {
      checks.push({source: run.source, document: doc});
    } else if (run.kind === "fuzz") {
      fuzzes.push({source: run.source, document: doc});
    }
  }
  transcripts.forEach((t, index) => t.calls.forEach((call, position) => {
    call._t = index; call._n = position;
  }));
  const allCalls = transcripts.flatMap((t) => t.calls);

  function provider(rule) {
    const at = String(rule).indexOf(":");
    return at > 0 ? String(rule).slice(0, at) : "all providers";
  }
  const findings = checks.flatMap((run, index) =>
    (run.document.findings || []).map((f) => Object.assign({_run: index}, f)));

  // -- the views -----------------------------------------------------------------------
  const views = [["summary", "Summary", drawSummary]];
  if (transcripts.length) views.push(["replay", "Replay", drawReplay]);
  if (checks.length) views.push(["checks", "Checks", drawChecks]);
  if (fuzzes.length) views.push(["fuzz", "Fuzz", drawFuzz]);
  const main = document.getElementById("main");
  const tabs = document.getElementById("tabs");
  const sections = {};
  document.getElementById("title").textContent = data.title;
  for (const [name, label, draw] of views) {
    const section = el("section", {id: "view-" + name, "data-view": name, hidden: ""});
    sections[name] = {section: section, draw: draw, drawn: false};
    main.append(section);
    const button = el("button", {type: "button", role: "tab", "data-view": name, text: label});
    button.addEventListener("click", () => { location.hash = name; show(name); });
    tabs.append(button);
  }
  function show(name) {
    if (!sections[name]) name = "summary";
    for (const [key, entry] of Object.entries(sections)) entry.section.hidden = key !== name;
    for (const button of tabs.children) {
      button.setAttribute("aria-selected", String(button.dataset.view === name));
    }
    const entry = sections[name];
    if (!entry.drawn) { entry.drawn = true; entry.draw(entry.section); }
    document.body.dataset.view = name;
  }
  window.addEventListener("hashchange", () => show(location.hash.slice(1)));

  // -- summary -------------------------------------------------------------------------
  function drawSummary(section) {
    if (!transcripts.length && !checks.length && !fuzzes.length) {
      section.append(el("p", {class: "empty", text: "The report holds no result."}));
    }
    if (transcripts.length) drawReplaySummary(section);
    if (checks.length) drawCheckSummary(section);
    if (fuzzes.length) drawFuzzSummary(section);
  }

  function drawReplaySummary(section) {
    const totals = {};
    for (const t of transcripts) for (const v of REPLAY_VERDICTS) add(totals, v, t.summary[v] || 0);
    const calls = REPLAY_VERDICTS.reduce((sum, v) => sum + totals[v], 0);
    section.append(el("h2", {text: "Replay"}), el("div", {class: "cards", id: "replay-counts"}, [
      card(calls, "calls", "replay-calls"),
      card(transcripts.length, "transcripts", "replay-transcripts"),
      ...REPLAY_VERDICTS.map((v) => card(totals[v], v, "replay-" + v))]));
    const numeric = [false, ...REPLAY_VERDICTS.map(() => true), false];
    section.append(el("h3", {text: "Per file"}), table(["transcript", ...REPLAY_VERDICTS, "note"],
      transcripts.map((t) => [t.transcript, ...REPLAY_VERDICTS.map((v) => t.summary[v] || 0),
                              t.error || t.format]), numeric));
    const tools = {};
    for (const call of allCalls) {
      const row = tools[call.name] || (tools[call.name] = {});
      add(row, call.status);
    }
    const names = Object.keys(tools).sort();
    section.append(el("h3", {text: "Per tool"}), table(["tool", ...REPLAY_VERDICTS],
      names.map((n) => [n, ...REPLAY_VERDICTS.map((v) => tools[n][v] || 0)]),
      [false, ...REPLAY_VERDICTS.map(() => true)]));
  }

  function drawCheckSummary(section) {
    const totals = {};
    for (const run of checks) for (const l of LEVELS) add(totals, l, (run.document.summary || {})[l] || 0);
    section.append(el("h2", {text: "Checks"}), el("div", {class: "cards", id: "check-counts"},
      LEVELS.map((l) => card(totals[l], l, "check-" + l))));
    const rows = {};
    for (const f of findings) add(rows, f.tool + "\u0000" + provider(f.rule));
    const keys = Object.keys(rows).sort();
    if (keys.length) {
      section.append(el("h3", {text: "Findings per tool and provider"}),
        table(["tool", "provider", "findings"],
              keys.map((k) => [...k.split("\u0000"), rows[k]]), [false, false, true]));
    }
  }

  function drawFuzzSummary(section) {
    const reports = fuzzes.flatMap((run) => run.document.tools || []);
    const ran = reports.filter((r) => !r.skipped);
    const failures = ran.reduce((sum, r) => sum + (r.failures || []).length + (r.error ? 1 : 0), 0);
    section.append(el("h2", {text: "Fuzz"}), el("div", {class: "cards", id: "fuzz-counts"}, [
      card(ran.length, "tools fuzzed", "fuzz-tools"),
      card(reports.length - ran.length, "skipped", "fuzz-skipped"),
      card(ran.reduce((sum, r) => sum + (r.examples || 0), 0), "calls", "fuzz-calls"),
      card(failures, "failures", "fuzz-failures")]));
    section.append(el("h3", {text: "Per tool"}), table(["tool", "calls", "failures", "note"],
      reports.map((r) => [r.name, r.examples || 0, (r.failures || []).length,
                          r.skipped ? "skipped: " + r.skipped : r.error || ""]),
      [false, true, true, false]));
  }

  // -- filters -------------------------------------------------------------------------
  // One bar per view: a verdict, a tool and a search; ``apply`` runs on every change.
  function filterBar(name, verdictLabel, verdicts, tools, apply) {
    const verdict = el("select", {"data-filter": "verdict"}, [
      el("option", {value: "", text: "all"}), ...verdicts.map((v) => el("option", {value: v, text: v}))]);
    const tool = el("select", {"data-filter": "tool"}, [
      el("option", {value: "", text: "all tools"}),
      ...tools.map((t) => el("option", {value: t, text: t}))]);
    const search = el("input", {type: "search", "data-filter": "search", placeholder: "text, path, id"});
    const shown = el("span", {class: "shown", "data-shown": name});
    const bar = el("div", {class: "filters", role: "search"}, [
      el("label", {}, [verdictLabel, verdict]), el("label", {}, ["tool", tool]),
      el("label", {}, ["search", search]), shown]);
    let timer = 0;
    const changed = () => {
      apply({verdict: verdict.value, tool: tool.value,
             search: search.value.trim().toLowerCase()}, shown);
      shown.dataset.for = search.value;
    };
    verdict.addEventListener("change", changed);
    tool.addEventListener("change", changed);
    search.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(changed, 120); });
    return {bar: bar, run: changed};
  }
  function matchesText(search, parts) {
    if (!search) return true;
    for (const part of parts) {
      if (part !== null && part !== undefined && String(part).toLowerCase().includes(search)) return true;
    }
    return false;
  }

  // -- replay --------------------------------------------------------------------------
  function drawReplay(section) {
    const tools = [...new Set(allCalls.map((c) => c.name))].sort();
    const list = el("div", {id: "transcripts"});
    const items = transcripts.map((t, index) => transcriptItem(t, index));
    const filter = filterBar("replay", "verdict", REPLAY_VERDICTS, tools, (f, shown) => {
      let total = 0;
      for (const item of items) total += item.filter(f);
      shown.textContent = plural(total, "call") + " shown";
    });
    list.append(...items.map((item) => item.node));
    section.append(filter.bar, list);
    filter.run();
  }

  function callMatches(call, f) {
    return (!f.verdict || call.status === f.verdict) && (!f.tool || call.name === f.tool) &&
      matchesText(f.search, [call.name, call.id, call.where, call.arguments, call.expected,
                             call.actual, call.drift, transcripts[call._t].transcript]);
  }

  function transcriptItem(t, index) {
    const counts = el("span", {class: "counts"},
      REPLAY_VERDICTS.filter((v) => t.summary[v]).map((v) => badge(v, t.summary[v] + " " + v)));
    const hits = el("span", {class: "note"});
    const summary = el("summary", {}, [el("span", {class: "path", text: t.transcript}),
      t.format ? el("span", {class: "note", text: t.format + (t.match && t.match !== "exact" ? ", match " + t.match : "")}) : null,
      counts, hits]);
    const body = el("div", {class: "calls"});
    const node = el("details", {class: "transcript", "data-transcript": index}, [summary, body]);
    if (t.error) body.append(el("p", {class: "drift-note", text: "error: " + t.error}));
    let selected = t.calls;
    let drawn = 0;
    let more = null;
    function drawMore() {
      const stop = Math.min(selected.length, drawn + PAGE);
      const fragment = document.createDocumentFragment();
      for (; drawn < stop; drawn++) fragment.append(callNode(selected[drawn]));
      if (more) more.remove();
      body.append(fragment);
      more = null;
      if (drawn < selected.length) {
        more = el("button", {type: "button", class: "more",
                             text: "show " + Math.min(PAGE, selected.length - drawn) + " more of " + (selected.length - drawn)});
        more.addEventListener("click", drawMore);
        body.append(more);
      }
    }
    function redraw() {
      body.querySelectorAll(".call, .more, .empty").forEach((n) => n.remove());
      drawn = 0; more = null;
      if (!selected.length) body.append(el("p", {class: "empty", text: "No call matches."}));
      else drawMore();
    }
    node.addEventListener("toggle", () => { if (node.open && !body.querySelector(".call, .empty")) redraw(); });
    return {node: node, filter: (f) => {
      const any = f.verdict || f.tool || f.search;
      selected = any ? t.calls.filter((c) => callMatches(c, f)) : t.calls;
      node.hidden = Boolean(any) && !selected.length && !(t.error && !f.verdict && !f.tool);
      hits.textContent = any ? plural(selected.length, "call") + " match" : "";
      if (node.open) redraw();
      return selected.length;
    }};
  }

  function callNode(call) {
    const head = el("div", {class: "call-head"}, [
      el("span", {class: "name", text: call.name}), badge(call.status),
      el("span", {class: "where", text: [call.where, call.id ? "id " + call.id : null,
        typeof call.duration_ms === "number" ? call.duration_ms + " ms" : null].filter(Boolean).join(" · ")})]);
    const node = el("article", {class: "call s-" + slug(call.status), "data-verdict": call.status,
                                "data-tool": call.name}, [head]);
    node.append(el("div", {class: "turn"}, [el("div", {class: "who", text: "the model called"}),
                                            argumentsNode(call)]));
    if (call.status === "drifted") {
      node.append(el("p", {class: "drift-note", text: "not run: " + (call.drift || "the arguments no longer fit")}));
      node.append(resultNode("recorded result", call.expected, call.expected_is_error));
    } else if (call.status === "mismatched") {
      node.append(el("div", {class: "turn"}, [el("div", {class: "who", text: "result: recorded | today"}),
                                              diffNode(call)]));
    } else if (call.status === "unrecorded") {
      node.append(resultNode("today's result (none recorded)", call.actual, call.is_error));
    } else {
      node.append(resultNode("result", call.actual, call.is_error));
    }
    if (call.scrubbed && call.scrubbed.length) {
      node.append(el("p", {class: "note", text: "scrubbed before comparing: " + call.scrubbed.join(", ")}));
    }
    return node;
  }

  function resultNode(label, text, isError) {
    return el("div", {class: "turn"}, [
      el("div", {class: "who", text: label + (isError ? " (error)" : "")}),
      el("pre", {text: text === null || text === undefined ? "(none)" : pretty(text)})]);
  }

  // The recorded arguments, the key named by a drift highlighted.
  function argumentsNode(call) {
    const pre = el("pre", {class: "arguments"});
    const text = pretty(call.arguments);
    const named = call.status === "drifted" && /^"([^"]+)"/.exec(call.drift || "");
    if (!named) { pre.textContent = text; return pre; }
    const key = JSON.stringify(named[1]) + ":";
    const at = text.indexOf(key);
    if (at < 0) { pre.textContent = text; return pre; }
    pre.append(text.slice(0, at), el("mark", {class: "drifted-key", text: key.slice(0, -1)}),
               text.slice(at + key.length - 1));
    return pre;
  }

  // -- the side-by-side diff (JSON-aware) ----------------------------------------------
  function parsed(text) {
    if (typeof text !== "string") return {ok: false};
    try { return {ok: true, value: JSON.parse(text)}; } catch (e) { return {ok: false}; }
  }
  function scrubMatchers(scrubbed) {
    return (scrubbed || []).map((s) => String(s).replace(/ \([^)]*\)$/, "")).filter((s) => s.startsWith("$"))
      .map((s) => {
        const escaped = s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
          .replace(/\\\[\\\*\\\]/g, "\\[\\d+\\]").replace(/\\\.\\\./g, "(?:\\..*)?\\.")
          .replace(/\\\.\\\*/g, "\\.[^.\\[]+");
        return new RegExp("^" + escaped + "(?:$|[.\\[])");
      });
  }
  function childPath(path, key) {
    return typeof key === "number" ? path + "[" + key + "]" :
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? path + "." + key : path + "[" + JSON.stringify(key) + "]";
  }
  function isContainer(v) { return v !== null && typeof v === "object"; }
  function label(key, depth) {
    return "  ".repeat(depth) + (key === null ? "" : JSON.stringify(String(key)) + ": ");
  }
  // The lines of one value, pretty-printed at ``depth``.
  function valueLines(value, key, depth, comma) {
    const tail = comma ? "," : "";
    if (!isContainer(value)) return [label(key, depth) + JSON.stringify(value) + tail];
    const array = Array.isArray(value);
    const entries = array ? value.map((v, i) => [null, v]) : Object.entries(value);
    if (!entries.length) return [label(key, depth) + (array ? "[]" : "{}") + tail];
    const lines = [label(key, depth) + (array ? "[" : "{")];
    entries.forEach(([k, v], i) => lines.push(...valueLines(v, k, depth + 1, i < entries.length - 1)));
    lines.push("  ".repeat(depth) + (array ? "]" : "}") + tail);
    return lines;
  }
  // Rows [left, right, kind] of two values side by side, walking both trees together.
  function treeRows(a, b, key, depth, path, comma, scrub, rows) {
    const scrubbed = scrub.some((m) => m.test(path));
    const sameShape = isContainer(a) && isContainer(b) && Array.isArray(a) === Array.isArray(b);
    if (!sameShape) {
      const left = valueLines(a, key, depth, comma);
      const right = valueLines(b, key, depth, comma);
      const same = JSON.stringify(a) === JSON.stringify(b);
      const kind = same ? "same" : scrubbed ? "scrubbed" : "changed";
      for (let i = 0; i < Math.max(left.length, right.length); i++) {
        rows.push([left[i] === undefined ? "" : left[i], right[i] === undefined ? "" : right[i], kind]);
      }
      return;
    }
    const array = Array.isArray(a);
    const open = label(key, depth) + (array ? "[" : "{");
    rows.push([open, open, "same"]);
    const keys = array ? [...Array(Math.max(a.length, b.length)).keys()] :
      [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    keys.forEach((k, i) => {
      const last = i === keys.length - 1;
      const inA = array ? k < a.length : Object.prototype.hasOwnProperty.call(a, k);
      const inB = array ? k < b.length : Object.prototype.hasOwnProperty.call(b, k);
      const shownKey = array ? null : k;
      const here = childPath(path, k);
      if (inA && inB) { treeRows(a[k], b[k], shownKey, depth + 1, here, !last, scrub, rows); return; }
      const kind = scrub.some((m) => m.test(here)) ? "scrubbed" : inA ? "removed" : "added";
      for (const line of valueLines(inA ? a[k] : b[k], shownKey, depth + 1, !last)) {
        rows.push(inA ? [line, "", kind] : ["", line, kind]);
      }
    });
    const close = "  ".repeat(depth) + (array ? "]" : "}") + (comma ? "," : "");
    rows.push([close, close, "same"]);
  }
  // Rows of two texts, line by line (a longest common subsequence; big texts are paired).
  function textRows(a, b) {
    const left = String(a === null || a === undefined ? "" : a).split("\n");
    const right = String(b === null || b === undefined ? "" : b).split("\n");
    const rows = [];
    if (left.length * right.length > 250000) {
      for (let i = 0; i < Math.max(left.length, right.length); i++) {
        const l = left[i] === undefined ? "" : left[i];
        const r = right[i] === undefined ? "" : right[i];
        rows.push([l, r, l === r ? "same" : "changed"]);
      }
      return rows;
    }
    const n = left.length, m = right.length;
    const lcs = Array.from({length: n + 1}, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = left[i] === right[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
    let i = 0, j = 0;
    const pending = [[], []];
    const flush = () => {
      for (let k = 0; k < Math.max(pending[0].length, pending[1].length); k++) {
        const l = pending[0][k], r = pending[1][k];
        rows.push([l === undefined ? "" : l, r === undefined ? "" : r,
                   l === undefined ? "added" : r === undefined ? "removed" : "changed"]);
      }
      pending[0] = []; pending[1] = [];
    };
    while (i < n || j < m) {
      if (i < n && j < m && left[i] === right[j]) { flush(); rows.push([left[i], right[j], "same"]); i++; j++; }
      else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) pending[1].push(right[j++]);
      else pending[0].push(left[i++]);
    }
    flush();
    return rows;
  }
  // One cell; in a changed row, the part between the common start and end is marked.
  function cell(side, text, other, kind) {
    const td = el("td", {class: side});
    if (kind !== "changed" || !text || !other) { td.textContent = text; return td; }
    let start = 0;
    while (start < text.length && start < other.length && text[start] === other[start]) start++;
    let end = 0;
    while (end < text.length - start && end < other.length - start &&
           text[text.length - 1 - end] === other[other.length - 1 - end]) end++;
    td.append(text.slice(0, start), el("span", {class: "changed", text: text.slice(start, text.length - end)}),
              text.slice(text.length - end));
    return td;
  }
  function diffNode(call) {
    const a = parsed(call.expected), b = parsed(call.actual);
    const rows = [];
    if (a.ok && b.ok && (isContainer(a.value) || isContainer(b.value))) {
      treeRows(a.value, b.value, null, 0, "$", false, scrubMatchers(call.scrubbed), rows);
    } else {
      rows.push(...textRows(call.expected, call.actual));
    }
    const head = el("tr", {}, [el("th", {text: "recorded" + (call.expected_is_error ? " (error)" : "")}),
                               el("th", {text: "today" + (call.is_error ? " (error)" : "")})]);
    const body = rows.map(([l, r, kind]) => el("tr", {class: "d-" + kind, "data-diff": kind},
                                               [cell("l", l, r, kind), cell("r", r, l, kind)]));
    return el("div", {class: "table-wrap"}, [el("table", {class: "diff"}, [el("thead", {}, [head]),
                                                                          el("tbody", {}, body)])]);
  }

  // -- checks --------------------------------------------------------------------------
  function drawChecks(section) {
    const tools = [...new Set(findings.map((f) => f.tool || ""))].sort();
    const groups = el("div", {id: "findings"});
    const filter = filterBar("checks", "level", LEVELS, tools, (f, shown) => {
      const chosen = findings.filter((x) => (!f.verdict || x.level === f.verdict) &&
        (!f.tool || (x.tool || "") === f.tool) &&
        matchesText(f.search, [x.tool, x.rule, x.message, x.path, x.level]));
      shown.textContent = plural(chosen.length, "finding") + " shown";
      groups.replaceChildren(...checks.map((run, index) => checkRun(run, chosen.filter((x) => x._run === index))));
    });
    section.append(filter.bar, groups);
    filter.run();
  }
  function checkRun(run, chosen) {
    const doc = run.document;
    const what = [plural(doc.tools || 0, "tool")];
    if (doc.providers && doc.providers.length) what.push("providers " + doc.providers.join(", "));
    if (doc.clients && doc.clients.length) what.push("clients " + doc.clients.join(", "));
    if (doc.snapshot) what.push("snapshot " + doc.snapshot);
    const node = el("div", {class: "check-run"}, [
      el("h3", {}, [badge(doc.ok ? "ok" : "error", doc.ok ? "passed" : "failed"), " ", run.source]),
      el("p", {class: "note", text: what.join(" · ")})]);
    const byTool = {};
    for (const f of chosen) (byTool[(f.tool || "(tool set)") + "\u0000" + provider(f.rule)] ||= []).push(f);
    const keys = Object.keys(byTool).sort();
    if (!keys.length) node.append(el("p", {class: "empty", text: "No finding."}));
    for (const key of keys) {
      const [tool, prov] = key.split("\u0000");
      node.append(el("h3", {}, [el("code", {text: tool}), " · " + prov]),
        table(["level", "rule", "parameter", "message"], byTool[key].map((f) => [
          el("span", {class: "finding", "data-verdict": f.level, "data-tool": f.tool || ""}, [badge(f.level)]),
          f.rule, f.path || "", f.message])));
    }
    const silenced = doc.silenced || [];
    if (silenced.length) {
      node.append(el("h3", {text: "Silenced (count for nothing)"}),
        table(["tool", "rule", "message", "silenced by"], silenced.map((f) =>
          [f.tool || "", f.rule, f.message, f.silenced_by || ""])));
    }
    return node;
  }

  // -- fuzz ----------------------------------------------------------------------------
  function drawFuzz(section) {
    const kinds = [...new Set(fuzzes.flatMap((r) => (r.document.tools || []).flatMap(
      (t) => (t.failures || []).map((f) => f.kind))))].sort();
    const tools = [...new Set(fuzzes.flatMap((r) => (r.document.tools || []).map((t) => t.name)))].sort();
    const list = el("div", {id: "fuzz-tools"});
    const filter = filterBar("fuzz", "failure", kinds, tools, (f, shown) => {
      let count = 0;
      const nodes = [];
      for (const run of fuzzes) for (const report of run.document.tools || []) {
        if (f.tool && report.name !== f.tool) continue;
        const failures = (report.failures || []).filter((x) => (!f.verdict || x.kind === f.verdict) &&
          matchesText(f.search, [report.name, x.detail, x.location, x.arguments, x.command]));
        if ((f.verdict || f.search) && !failures.length) continue;
        count += failures.length;
        nodes.push(fuzzTool(run, report, failures));
      }
      shown.textContent = plural(count, "failure") + " shown";
      list.replaceChildren(...nodes);
    });
    section.append(filter.bar, list);
    filter.run();
  }
  function fuzzTool(run, report, failures) {
    const counts = Object.entries(report.counts || {}).filter(([, n]) => n).map(([k, n]) => badge(k, n + " " + k));
    const node = el("div", {class: "fuzz-tool", "data-tool": report.name}, [
      el("h3", {}, [badge(report.skipped ? "skipped" : report.failed ? "crash" : "ok",
                          report.skipped ? "skipped" : report.failed ? "failed" : "passed"), " ",
                    el("code", {text: report.name})]),
      el("p", {class: "note"}, [plural(report.examples || 0, "call") + " · seed " + run.document.seed + " ", ...counts])]);
    if (report.skipped) node.append(el("p", {class: "note", text: "skipped: " + report.skipped}));
    if (report.error) node.append(el("p", {class: "drift-note", text: report.error}));
    if (report.low_coverage) node.append(el("p", {class: "note", text: "every call ended in the same tool error (low coverage)"}));
    for (const f of failures) {
      node.append(el("div", {class: "failure", "data-verdict": f.kind}, [
        el("div", {}, [badge(f.kind), " " + f.detail + (f.location ? " (at " + f.location + ")" : "")]),
        el("div", {class: "who", text: "arguments (" + f.form + (f.shrunk ? ", shrunk" : "") + ")"}),
        el("pre", {text: f.arguments}),
        el("div", {class: "who", text: "reproduce"}),
        el("pre", {class: "command", text: f.command})]));
    }
    for (const b of report.blocked || []) {
      node.append(el("p", {class: "note", text: "blocked effect: " + b.effect + " — arguments " + b.arguments}));
    }
    return node;
  }

  show(location.hash.slice(1));
  document.body.dataset.ready = "true";
})();
