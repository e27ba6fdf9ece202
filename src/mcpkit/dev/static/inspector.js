// mcpkit dev: the web inspector. Plain JavaScript, no build step, no third-party code.
// It talks only to the dev server that served it (a token-guarded JSON/SSE API) and hosts
// MCP Apps in a sandboxed iframe, speaking the host side of the ext-apps bridge.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token") || "";
const APP_PROTOCOL = "2026-01-26";
const state = { data: null, selected: null, calls: {}, tasks: {}, app: null, logLevel: "debug" };
const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

// ---- small helpers ------------------------------------------------------------------------

function $(id) { return document.getElementById(id); }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function pretty(value) { return JSON.stringify(value, null, 2); }

async function api(path, body) {
  const init = { method: body === undefined ? "GET" : "POST", headers: { "X-Mcpkit-Dev-Token": TOKEN } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const error = new Error((data && data.error && data.error.message) || `HTTP ${response.status}`);
    error.code = data && data.error ? data.error.code : undefined;
    error.status = response.status;
    throw error;
  }
  return data;
}

function newId() { return Math.random().toString(36).slice(2, 10); }

// ---- state and lists ---------------------------------------------------------------------

async function refresh() {
  let data;
  try {
    data = await api("/api/state");
  } catch (error) {
    showBanner(`The dev server did not answer: ${error.message}`);
    return;
  }
  state.data = data;
  renderHeader();
  renderLists();
  renderPending(data.pending || []);
  if (!state.selected && data.connected) {
    select("info", {}); // the first page: the server's info and capabilities
  } else if (state.selected) {
    const again = findItem(state.selected.kind, state.selected.key);
    if (again) select(state.selected.kind, again, true);
    else $("detail").replaceChildren(el("p", { class: "muted", text: "That item is gone since the reload." }));
  }
  refreshTasks();
}

function renderHeader() {
  const d = state.data;
  $("era-select").value = d.era;
  // Green: the page hears the dev server and the user's server runs; red: it does not run.
  $("link").classList.toggle("down", !d.connected);
  $("link").title = d.connected ? "the server is running" : "the server is not running";
  if (!d.connected) {
    $("server-info").textContent = `${d.spec}: not running`;
    const error = d.error || "unknown error";
    // The last stderr lines, each once, and none the error already says.
    const lines = [];
    for (const line of (d.stderr || []).slice(-12)) {
      if (line.trim() && !error.includes(line.trim()) && !lines.includes(line)) lines.push(line);
    }
    showBanner(["The server did not start:", error, ...lines].join("\n"));
    return;
  }
  hideBanner();
  const info = d.server || {};
  const era = d.modern ? "stateless 2026-07-28" : `initialize ${d.protocolVersion}`;
  // generation 1 is the first start: "reload #N" counts the restarts after it.
  const reloads = d.generation > 1 ? ` · reload #${d.generation - 1}` : "";
  $("server-info").textContent =
    `${info.title || info.name} ${info.version || ""} · ${era} · ${d.spec}${reloads}`;
}

function showBanner(text, info) {
  const banner = $("banner");
  banner.textContent = text;
  banner.className = info ? "banner info" : "banner";
  banner.hidden = false;
}

function hideBanner() { $("banner").hidden = true; }

function findItem(kind, key) {
  const d = state.data || {};
  const lists = { tool: d.tools, resource: d.resources, template: d.templates, prompt: d.prompts };
  if (kind === "info") return {};
  return (lists[kind] || []).find((item) => itemKey(kind, item) === key);
}

function itemKey(kind, item) {
  if (kind === "resource") return item.uri;
  if (kind === "template") return item.uriTemplate;
  return item.name;
}

function toolUi(tool) {
  const meta = tool._meta || {};
  const ui = meta.ui || {};
  const uri = ui.resourceUri || meta["ui/resourceUri"];
  if (!uri) return null;
  return { uri, visibility: ui.visibility || ["model", "app"] };
}

function renderLists() {
  const d = state.data;
  const fill = (listId, countId, kind, items, label) => {
    const list = $(listId);
    list.replaceChildren();
    $(countId).textContent = String((items || []).length);
    for (const item of items || []) {
      const key = itemKey(kind, item);
      const tags = label(item);
      const li = el("li", { class: "item", title: item.description || key, dataset: { kind, key },
                            onclick: () => select(kind, item) },
        item.title || key, ...tags.map((t) => el("span", { class: "tag", text: t })));
      if (state.selected && state.selected.kind === kind && state.selected.key === key) li.classList.add("selected");
      list.append(li);
    }
  };
  fill("tool-list", "tool-count", "tool", d.tools, (t) => {
    const tags = [];
    const ui = toolUi(t);
    if (ui) tags.push(ui.visibility.includes("model") ? "app" : "app-only");
    const support = t.execution && t.execution.taskSupport;
    if (support && support !== "forbidden") tags.push("task");
    return tags;
  });
  fill("resource-list", "resource-count", "resource", d.resources,
       (r) => (r.mimeType === "text/html;profile=mcp-app" ? ["app"] : []));
  fill("template-list", "template-count", "template", d.templates, () => []);
  fill("prompt-list", "prompt-count", "prompt", d.prompts, () => []);
}

function markSelected(kind, key) {
  for (const node of document.querySelectorAll("#side .item")) {
    node.classList.toggle("selected", node.dataset.kind === kind && node.dataset.key === key);
  }
}

function select(kind, item, keepResult) {
  const key = kind === "info" ? "info" : itemKey(kind, item);
  const json = JSON.stringify(item);
  const same = state.selected && state.selected.kind === kind && state.selected.key === key && state.selected.json === json;
  state.selected = { kind, key, json };
  markSelected(kind, key);
  if (keepResult && same && kind !== "info") return; // a reload keeps an unchanged form as it is
  const detail = $("detail");
  detail.replaceChildren();
  if (kind === "tool") renderTool(detail, item);
  else if (kind === "resource") renderResource(detail, item);
  else if (kind === "template") renderTemplate(detail, item);
  else if (kind === "prompt") renderPrompt(detail, item);
  else renderInfo(detail);
}

// ---- forms from JSON Schemas --------------------------------------------------------------

function typeOf(schema) {
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null") || type[0];
  if (!type && schema.enum) type = "string";
  if (!type && (schema.anyOf || schema.oneOf)) {
    const options = (schema.anyOf || schema.oneOf).filter((s) => s.type !== "null");
    if (options.length === 1) return typeOf(options[0]);
  }
  return type || "json";
}

function enumOf(schema) {
  if (schema.enum) return schema.enum.map((v) => ({ value: v, label: String(v) }));
  const options = schema.oneOf || schema.anyOf;
  if (options && options.length && options.every((o) => o.const !== undefined)) {
    return options.map((o) => ({ value: o.const, label: o.title || String(o.const) }));
  }
  return null;
}

// A form for an object schema; returns {node, read()} where read() gives the value or throws.
function schemaForm(schema, options) {
  const opts = options || {};
  const properties = (schema && schema.properties) || {};
  const required = new Set((schema && schema.required) || []);
  const fields = [];
  const form = el("form", { class: "schema-form", id: opts.id, onsubmit: (e) => e.preventDefault() });
  for (const [name, prop] of Object.entries(properties)) {
    const type = typeOf(prop);
    const choices = enumOf(prop);
    const inputId = `${opts.prefix || "f"}-${name}`;
    let input;
    let read;
    if (choices) {
      input = el("select", { id: inputId, name });
      if (!required.has(name)) input.append(el("option", { value: "", text: "(none)" }));
      choices.forEach((c, i) => input.append(el("option", { value: String(i), text: c.label })));
      if (prop.default !== undefined) {
        const at = choices.findIndex((c) => c.value === prop.default);
        if (at >= 0) input.value = String(at);
      }
      read = () => (input.value === "" ? undefined : choices[Number(input.value)].value);
    } else if (type === "boolean") {
      input = el("input", { id: inputId, name, type: "checkbox" });
      input.checked = prop.default === true;
      read = () => input.checked;
    } else if (type === "integer" || type === "number") {
      input = el("input", { id: inputId, name, type: "number", step: type === "integer" ? "1" : "any",
                            placeholder: prop.default !== undefined ? String(prop.default) : type });
      read = () => {
        if (input.value.trim() === "") return undefined;
        const value = Number(input.value);
        if (Number.isNaN(value) || (type === "integer" && !Number.isInteger(value))) {
          throw new Error(`${name}: not ${type === "integer" ? "an integer" : "a number"}`);
        }
        return value;
      };
    } else if (type === "string") {
      const long = prop.format === undefined && (prop.maxLength || 0) > 200;
      input = el(long ? "textarea" : "input", { id: inputId, name, type: long ? undefined : "text",
                 placeholder: prop.default !== undefined ? String(prop.default) : (prop.format || "") });
      // Left empty: not given (a required one is then refused before anything is sent).
      read = () => (input.value === "" ? undefined : input.value);
      if (opts.complete) opts.complete(name, input);
    } else {
      input = el("textarea", { id: inputId, name, placeholder: type === "array" ? "[ ]" : "{ } (JSON)" });
      if (prop.default !== undefined) input.value = JSON.stringify(prop.default);
      read = () => {
        if (input.value.trim() === "") return undefined;
        try { return JSON.parse(input.value); } catch (e) { throw new Error(`${name}: not JSON (${e.message})`); }
      };
    }
    const label = el("label", { for: inputId }, name, required.has(name) ? el("span", { class: "req", text: " *" }) : null);
    const field = el("div", { class: "field", dataset: { name } }, label, input);
    const hint = [prop.title, prop.description, type !== "json" && !choices ? type : null].filter(Boolean).join(" · ");
    if (hint) field.append(el("div", { class: "hint", text: hint }));
    form.append(field);
    fields.push({ name, read, required: required.has(name) });
  }
  if (!fields.length) form.append(el("p", { class: "muted", text: "No arguments." }));
  const readAll = () => {
    const out = {};
    for (const field of fields) {
      const value = field.read();
      if (value === undefined) {
        if (field.required) throw new Error(`${field.name} is required`);
        continue;
      }
      out[field.name] = value;
    }
    return out;
  };
  return { node: form, read: readAll };
}

// A schema form with a raw JSON fallback (a toggle).
function argumentsEditor(schema, prefix) {
  const form = schemaForm(schema || {}, { id: `${prefix}-form`, prefix });
  const raw = el("textarea", { id: `${prefix}-raw`, class: "raw", hidden: true, rows: 6 });
  let rawMode = false;
  const toggle = el("button", { type: "button", class: "secondary small", id: `${prefix}-raw-toggle`, text: "Raw JSON",
    onclick: () => {
      rawMode = !rawMode;
      if (rawMode) {
        try { raw.value = pretty(form.read()); } catch (e) { raw.value = "{}"; }
      }
      raw.hidden = !rawMode;
      form.node.hidden = rawMode;
      toggle.textContent = rawMode ? "Form" : "Raw JSON";
    } });
  const read = () => {
    if (!rawMode) return form.read();
    const value = JSON.parse(raw.value || "{}");
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("the arguments must be a JSON object");
    return value;
  };
  return { node: el("div", {}, form.node, raw), toggle, read };
}

// ---- results ------------------------------------------------------------------------------

function renderContent(block) {
  if (block.type === "text") return el("pre", { class: "content-text", text: block.text });
  if (block.type === "image") return el("img", { class: "content-image", alt: "image", src: `data:${block.mimeType};base64,${block.data}` });
  if (block.type === "audio") return el("audio", { controls: true, src: `data:${block.mimeType};base64,${block.data}` });
  if (block.type === "resource") {
    const r = block.resource || {};
    return el("div", {}, el("span", { class: "badge", text: r.uri }), el("pre", { text: r.text !== undefined ? r.text : `(${(r.blob || "").length} base64 chars)` }));
  }
  if (block.type === "resource_link") return el("div", {}, el("span", { class: "badge", text: "link" }), block.uri);
  return el("pre", { text: pretty(block) });
}

function renderToolResult(target, result) {
  target.replaceChildren();
  target.className = result.isError ? "result error" : "result";
  target.append(el("div", {}, el("span", { class: result.isError ? "badge error" : "badge ok", text: result.isError ? "isError" : "ok" })));
  for (const block of result.content || []) target.append(renderContent(block));
  if (result.structuredContent !== undefined) {
    target.append(el("h3", { text: "structuredContent" }), el("pre", { class: "structured", text: pretty(result.structuredContent) }));
  }
}

function renderError(target, error) {
  target.replaceChildren(el("span", { class: "badge error", text: error.code !== undefined ? `error ${error.code}` : "error" }),
                         el("pre", { class: "error-text", text: error.message }));
  target.className = "result error";
}

// ---- tools --------------------------------------------------------------------------------

function renderTool(detail, tool) {
  const ui = toolUi(tool);
  detail.append(el("h1", { class: "detail-title", text: tool.title || tool.name }),
                el("p", { class: "description", text: tool.description || "" }));
  if (ui) detail.append(el("p", {}, el("span", { class: "badge", text: ui.visibility.includes("model") ? "MCP App" : "app-only" }), ui.uri));
  const editor = argumentsEditor(tool.inputSchema, "tool");
  const support = tool.execution && tool.execution.taskSupport;
  const asTask = el("input", { type: "checkbox", id: "as-task" });
  if (support === "required") asTask.checked = true;
  const result = el("div", { id: "result", class: "result", hidden: true });
  const call = el("button", { type: "button", id: "call-button", text: "Call tool", onclick: async () => {
    let args;
    try { args = editor.read(); } catch (e) { result.hidden = false; renderError(result, e); return; }
    const callId = newId();
    startProgress(callId, tool.name);
    result.hidden = false;
    result.replaceChildren(el("p", { class: "muted", text: "Calling…" }));
    call.disabled = true;
    try {
      const answer = await api("/api/tools/call", { name: tool.name, arguments: args, callId, task: asTask.checked });
      if (answer.task) {
        state.tasks[answer.task.taskId] = { ...answer.task, callId, arguments: args, tool };
        result.replaceChildren(el("span", { class: "badge", text: "task" }), ` ${answer.task.taskId}: ${answer.task.status}`);
        renderTasks();
      } else {
        renderToolResult(result, answer);
        endProgress(callId, answer.isError ? "error" : "done");
        if (ui) openApp(ui.uri, tool, args, answer);
      }
    } catch (e) {
      renderError(result, e);
      endProgress(callId, "error");
    } finally {
      call.disabled = false;
    }
  } });
  const actions = el("div", { class: "actions" }, call, editor.toggle);
  if (support && support !== "forbidden") actions.append(el("label", {}, asTask, " run as a task"));
  if (ui) actions.append(el("button", { type: "button", class: "secondary", id: "open-app", text: "Open view", onclick: () => openApp(ui.uri, tool, null, null) }));
  detail.append(editor.node, actions, result);
}

// ---- resources, templates, prompts --------------------------------------------------------

function renderReadResult(target, result) {
  target.replaceChildren();
  target.className = "result";
  for (const c of result.contents || []) {
    target.append(el("div", {}, el("span", { class: "badge", text: c.mimeType || "contents" }), c.uri));
    if (c.text !== undefined) target.append(el("pre", { class: "content-text", text: c.text }));
    else if (c.blob !== undefined && (c.mimeType || "").startsWith("image/")) target.append(el("img", { class: "content-image", src: `data:${c.mimeType};base64,${c.blob}` }));
    else target.append(el("pre", { text: `(${(c.blob || "").length} base64 chars)` }));
  }
}

function renderResource(detail, resource) {
  detail.append(el("h1", { class: "detail-title", text: resource.title || resource.name || resource.uri }),
                el("p", { class: "description", text: resource.description || "" }),
                el("p", {}, el("code", { text: resource.uri }), " ", resource.mimeType ? el("span", { class: "badge", text: resource.mimeType }) : null));
  const result = el("div", { id: "result", class: "result", hidden: true });
  const read = el("button", { type: "button", id: "read-button", text: "Read", onclick: async () => {
    result.hidden = false;
    try { renderReadResult(result, await api("/api/resources/read", { uri: resource.uri })); } catch (e) { renderError(result, e); }
  } });
  const actions = el("div", { class: "actions" }, read);
  if (resource.mimeType === "text/html;profile=mcp-app") {
    actions.append(el("button", { type: "button", class: "secondary", id: "open-app", text: "Open view", onclick: () => openApp(resource.uri, null, null, null) }));
  }
  detail.append(actions, result);
}

function templateVariables(template) {
  const names = [];
  for (const match of template.matchAll(/\{([+#./;?&]?)([^}]+)\}/g)) {
    for (const part of match[2].split(",")) names.push(part.replace(/\*$/, "").replace(/:\d+$/, ""));
  }
  return names;
}

function expandTemplate(template, values) {
  return template.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, op, vars) => {
    const parts = vars.split(",").map((v) => v.replace(/\*$/, "").replace(/:\d+$/, ""));
    const encode = op === "+" || op === "#" ? encodeURI : encodeURIComponent;
    const filled = parts.filter((p) => values[p] !== undefined && values[p] !== "").map((p) => (op === "?" || op === "&" || op === ";" ? `${p}=${encode(values[p])}` : encode(values[p])));
    if (!filled.length) return "";
    const joiner = { "": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&" }[op];
    const lead = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&" }[op];
    return lead + filled.join(joiner);
  });
}

// Completion as you type: a datalist under the input, filled by completion/complete.
function completer(ref, contextOf) {
  return (name, input) => {
    const list = el("datalist", { id: `complete-${name}-${newId()}` });
    input.setAttribute("list", list.id);
    input.after(list);
    let timer = null;
    let seq = 0;
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const mine = ++seq;
        try {
          const answer = await api("/api/complete", { ref, argument: { name, value: input.value }, context: contextOf(name) });
          if (mine !== seq) return;
          list.replaceChildren(...(answer.completion.values || []).map((v) => el("option", { value: v })));
          input.dataset.suggestions = (answer.completion.values || []).join(",");
        } catch (e) { /* the server has no completion for this argument */ }
      }, 150);
    });
  };
}

function renderTemplate(detail, template) {
  detail.append(el("h1", { class: "detail-title", text: template.title || template.name || template.uriTemplate }),
                el("p", { class: "description", text: template.description || "" }),
                el("p", {}, el("code", { text: template.uriTemplate })));
  const names = templateVariables(template.uriTemplate);
  const schema = { type: "object", properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])), required: names };
  const inputs = {};
  const form = schemaForm(schema, { id: "template-form", prefix: "tpl",
    complete: (name, input) => { inputs[name] = input; completer({ type: "ref/resource", uri: template.uriTemplate }, (n) => contextFrom(inputs, n))(name, input); } });
  const result = el("div", { id: "result", class: "result", hidden: true });
  const uriView = el("code", { id: "template-uri" });
  const read = el("button", { type: "button", id: "read-button", text: "Read", onclick: async () => {
    result.hidden = false;
    try {
      const uri = expandTemplate(template.uriTemplate, form.read());
      uriView.textContent = uri;
      renderReadResult(result, await api("/api/resources/read", { uri }));
    } catch (e) { renderError(result, e); }
  } });
  detail.append(form.node, el("div", { class: "actions" }, read, uriView), result);
}

function contextFrom(inputs, except) {
  const out = {};
  for (const [name, input] of Object.entries(inputs)) if (name !== except && input.value) out[name] = input.value;
  return Object.keys(out).length ? out : undefined;
}

function renderPrompt(detail, prompt) {
  detail.append(el("h1", { class: "detail-title", text: prompt.title || prompt.name }),
                el("p", { class: "description", text: prompt.description || "" }));
  const args = prompt.arguments || [];
  const schema = { type: "object", properties: Object.fromEntries(args.map((a) => [a.name, { type: "string", description: a.description }])),
                   required: args.filter((a) => a.required).map((a) => a.name) };
  const inputs = {};
  const form = schemaForm(schema, { id: "prompt-form", prefix: "prompt",
    complete: (name, input) => { inputs[name] = input; completer({ type: "ref/prompt", name: prompt.name }, (n) => contextFrom(inputs, n))(name, input); } });
  const result = el("div", { id: "result", class: "result", hidden: true });
  const get = el("button", { type: "button", id: "get-button", text: "Get prompt", onclick: async () => {
    result.hidden = false;
    try {
      const answer = await api("/api/prompts/get", { name: prompt.name, arguments: form.read() });
      result.replaceChildren();
      result.className = "result";
      if (answer.description) result.append(el("p", { class: "description", text: answer.description }));
      for (const message of answer.messages || []) result.append(el("div", {}, el("span", { class: "badge", text: message.role })), renderContent(message.content));
    } catch (e) { renderError(result, e); }
  } });
  detail.append(form.node, el("div", { class: "actions" }, get), result);
}

function renderInfo(detail) {
  const d = state.data || {};
  detail.append(el("h1", { class: "detail-title", text: "Server" }));
  const kv = el("dl", { class: "kv" });
  const row = (k, v) => kv.append(el("dt", { text: k }), el("dd", { text: v === undefined || v === null ? "—" : String(v) }));
  const info = d.server || {};
  row("name", info.name); row("title", info.title); row("version", info.version);
  row("protocol", d.protocolVersion); row("era", d.modern ? "2026-07-28 (stateless)" : "legacy (initialize)");
  row("file", d.spec); row("reloads", d.generation);
  detail.append(kv);
  if (d.instructions) detail.append(el("h3", { text: "instructions" }), el("pre", { text: d.instructions }));
  detail.append(el("h3", { text: "capabilities" }), el("pre", { id: "capabilities", text: pretty(d.capabilities || {}) }));
}

// ---- progress, logs, tasks ----------------------------------------------------------------

function startProgress(callId, label) {
  const box = $("progress");
  const placeholder = $("progress-empty");
  if (placeholder) placeholder.remove();
  const bar = el("progress", { max: "1" });
  bar.removeAttribute("value");
  const status = el("span", { class: "status", text: "running" });
  const row = el("div", { class: "bar", dataset: { call: callId } }, el("div", { class: "label" }, el("span", { text: label }), status), bar,
                 el("div", { class: "message muted" }));
  box.prepend(row);
  while (box.children.length > 8) box.lastChild.remove();
  state.calls[callId] = { row, bar, status };
}

function onProgress(event) {
  const call = state.calls[event.callId];
  if (!call) return;
  if (event.total) { call.bar.max = event.total; call.bar.value = event.progress; }
  call.seen = event.total ? `${event.progress}/${event.total}` : String(event.progress);
  call.status.textContent = call.how ? `${call.seen} · ${call.how}` : call.seen;
  call.row.querySelector(".message").textContent = event.message || "";
}

function endProgress(callId, how) {
  const call = state.calls[callId];
  if (!call) return;
  if (!call.bar.hasAttribute("value")) { call.bar.max = 1; call.bar.value = how === "done" ? 1 : 0; }
  call.how = how; // progress that arrives after the answer keeps this mark
  call.status.textContent = call.seen ? `${call.seen} · ${how}` : how;
}

function addLog(level, text) {
  if (level !== "stderr" && LEVELS.indexOf(level) < LEVELS.indexOf(state.logLevel)) return;
  const log = $("log");
  log.append(el("li", {}, el("span", { class: `lvl ${level}`, text: level }), text));
  while (log.children.length > 500) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

async function refreshTasks() {
  try {
    for (const task of await api("/api/tasks")) state.tasks[task.taskId] = { ...(state.tasks[task.taskId] || {}), ...task };
  } catch (e) { /* not connected */ }
  renderTasks();
}

function renderTasks() {
  const list = $("task-list");
  const tasks = Object.values(state.tasks);
  if (!tasks.length) { list.replaceChildren(el("li", { class: "muted", text: "No tasks." })); return; }
  list.replaceChildren(...tasks.reverse().map((task) => {
    const terminal = ["completed", "failed", "cancelled"].includes(task.status);
    return el("li", { class: "task", dataset: { task: task.taskId, status: task.status } },
      el("span", { class: terminal ? (task.status === "completed" ? "badge ok" : "badge error") : "badge", text: task.status }),
      `${task.tool && task.tool.name ? task.tool.name : task.tool || ""} `, el("code", { text: task.taskId.slice(0, 12) }),
      terminal ? null : el("button", { type: "button", class: "danger small", text: "Cancel", onclick: async () => {
        try { await api("/api/tasks/cancel", { taskId: task.taskId }); } catch (e) { addLog("error", `cancel: ${e.message}`); }
      } }));
  }));
}

function onTask(event) {
  const id = event.taskId;
  if (!id) return;
  const task = state.tasks[id] || { taskId: id };
  task.status = event.status || task.status;
  state.tasks[id] = task;
  renderTasks();
  if (event.result || event.error) {
    endProgress(task.callId || event.callId, event.error ? "error" : "done");
    const result = $("result");
    if (result && state.selected && task.tool && state.selected.key === task.tool.name) {
      if (event.result) renderToolResult(result, event.result); else renderError(result, { message: event.error });
    }
    const ui = task.tool && task.tool.name ? toolUi(task.tool) : null;
    if (ui && event.result) openApp(ui.uri, task.tool, task.arguments, event.result);
  }
}

// ---- requests from the server: elicitation and sampling -----------------------------------

function renderPending(list) {
  const box = $("request-list");
  const ids = new Set(list.map((r) => r.id));
  for (const node of [...box.children]) if (!ids.has(node.dataset.id)) node.remove();
  for (const request of list) if (!box.querySelector(`[data-id="${request.id}"]`)) box.append(requestCard(request));
  $("requests").hidden = box.children.length === 0;
}

function requestCard(request) {
  const p = request.params;
  const card = el("div", { class: "request", dataset: { id: request.id, kind: request.kind } });
  const answer = async (result) => {
    try { await api("/api/answer", { id: request.id, result }); card.remove(); }
    catch (e) { card.append(el("p", { class: "badge error", text: e.message })); }
    $("requests").hidden = $("request-list").children.length === 0;
  };
  if (request.kind === "elicitation" && p.mode === "url") {
    card.append(el("div", { class: "kind", text: "Elicitation (URL)" }), el("p", { text: p.message }),
                el("p", {}, el("code", { text: p.url })),
                el("div", { class: "actions" },
                   el("button", { type: "button", class: "accept", text: "Done / accept", onclick: () => answer({ action: "accept" }) }),
                   el("button", { type: "button", class: "secondary decline", text: "Decline", onclick: () => answer({ action: "decline" }) })));
  } else if (request.kind === "elicitation") {
    const form = schemaForm(p.requestedSchema || {}, { id: `elicit-${request.id}`, prefix: `el-${request.id}` });
    const error = el("div");
    card.append(el("div", { class: "kind", text: "Elicitation" }), el("p", { text: p.message }), form.node,
                el("div", { class: "actions" },
                   el("button", { type: "button", class: "accept", text: "Accept", onclick: () => {
                     try { answer({ action: "accept", content: form.read() }); } catch (e) { error.replaceChildren(el("span", { class: "badge error", text: e.message })); }
                   } }),
                   el("button", { type: "button", class: "secondary decline", text: "Decline", onclick: () => answer({ action: "decline" }) }),
                   el("button", { type: "button", class: "secondary cancel", text: "Cancel", onclick: () => answer({ action: "cancel" }) })), error);
  } else {
    const messages = (p.messages || []).map((m) => el("div", {}, el("span", { class: "badge", text: m.role }), renderContent(Array.isArray(m.content) ? m.content[0] : m.content)));
    const reply = el("textarea", { class: "sampling-reply", placeholder: "The model's answer" });
    const model = el("input", { type: "text", value: "mcpkit-dev-human", class: "sampling-model" });
    card.append(el("div", { class: "kind", text: "Sampling (you are the model)" }),
                p.systemPrompt ? el("p", { class: "muted", text: `system: ${p.systemPrompt}` }) : null,
                ...messages, el("h3", { text: "Answer" }), reply, el("h3", { text: "model" }), model,
                el("div", { class: "actions" },
                   el("button", { type: "button", class: "accept", text: "Send", onclick: () => answer({
                     role: "assistant", content: { type: "text", text: reply.value }, model: model.value, stopReason: "endTurn" }) })));
  }
  return card;
}

// ---- MCP Apps: the host side of the bridge ------------------------------------------------

function appMessage(method, text) {
  const list = $("app-messages");
  list.append(el("li", { dataset: { method } }, el("span", { class: "method", text: method }), text));
  while (list.children.length > 100) list.firstChild.remove();
}

async function openApp(uri, tool, args, result) {
  const panel = $("app-panel");
  let view;
  try {
    view = await api("/api/apps/view", { uri });
  } catch (e) {
    panel.hidden = false;
    appMessage("error", `cannot read ${uri}: ${e.message}`);
    return;
  }
  const frame = $("app-frame");
  if (view.allow) frame.setAttribute("allow", view.allow); else frame.removeAttribute("allow");
  frame.style.border = view.prefersBorder === false ? "none" : "";
  state.app = { uri, tool, args, result, initialized: false, frame, nextId: 1, waiting: {} };
  $("app-uri").textContent = uri;
  $("app-messages").replaceChildren();
  panel.hidden = false;
  frame.src = view.viewUrl;
}

function closeApp() {
  const app = state.app;
  if (app && app.initialized) post({ jsonrpc: "2.0", id: `teardown-${app.nextId++}`, method: "ui/resource-teardown", params: {} });
  state.app = null;
  $("app-frame").src = "about:blank";
  $("app-panel").hidden = true;
}

function post(message) {
  const app = state.app;
  if (app && app.frame.contentWindow) app.frame.contentWindow.postMessage(message, "*");
}

function notifyApp(method, params) { post({ jsonrpc: "2.0", method, params }); }

function hostContext() {
  const app = state.app;
  const ctx = { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"], platform: "web",
                locale: navigator.language, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
                containerDimensions: { maxHeight: 800, width: app ? app.frame.clientWidth : 600 } };
  if (app && app.tool) ctx.toolInfo = { tool: app.tool };
  return ctx;
}

async function onAppRequest(msg) {
  const app = state.app;
  const p = msg.params || {};
  switch (msg.method) {
    case "ui/initialize":
      return { protocolVersion: APP_PROTOCOL, hostInfo: { name: "mcpkit dev", version: "1" },
               hostCapabilities: { serverTools: {}, serverResources: {}, logging: {}, openLinks: {},
                                   message: { text: {} }, updateModelContext: { text: {} } },
               hostContext: hostContext() };
    case "tools/call":
      appMessage("tools/call", `${p.name} ${JSON.stringify(p.arguments || {})}`);
      return await api("/api/apps/call", { name: p.name, arguments: p.arguments || {} });
    case "resources/read":
      appMessage("resources/read", p.uri);
      return await api("/api/resources/read", { uri: p.uri });
    case "resources/list":
      return { resources: (state.data && state.data.resources) || [] };
    case "ui/message": {
      const text = (p.content || []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ");
      appMessage("ui/message", `${p.role || "user"}: ${text}`);
      return {};
    }
    case "ui/update-model-context":
      appMessage("ui/update-model-context", JSON.stringify(p.content || p.structuredContent || p));
      return {};
    case "ui/open-link":
      appMessage("ui/open-link", p.url);
      return {};
    case "ui/download-file":
      appMessage("ui/download-file", JSON.stringify(p).slice(0, 300));
      return {};
    case "ui/request-display-mode":
      appMessage("ui/request-display-mode", p.mode);
      return { mode: "inline" };
    case "ping":
      return {};
    default: {
      const error = new Error(`Method not found: ${msg.method}`);
      error.code = -32601;
      throw error;
    }
  }
}

function onAppNotification(msg) {
  const app = state.app;
  const p = msg.params || {};
  if (msg.method === "ui/notifications/initialized") {
    app.initialized = true;
    appMessage("initialized", "the view is ready");
    if (app.args) notifyApp("ui/notifications/tool-input", { arguments: app.args });
    if (app.result) notifyApp("ui/notifications/tool-result", app.result);
  } else if (msg.method === "ui/notifications/size-changed") {
    if (p.height) app.frame.style.height = `${Math.min(Math.max(p.height, 60), 1200)}px`;
  } else if (msg.method === "notifications/message") {
    addLog(p.level || "info", `[app] ${typeof p.data === "string" ? p.data : JSON.stringify(p.data)}`);
  } else if (msg.method === "ui/notifications/request-teardown") {
    appMessage("request-teardown", "the view asked to close");
  }
}

window.addEventListener("message", async (event) => {
  const app = state.app;
  if (!app || event.source !== app.frame.contentWindow) return;
  const msg = event.data;
  if (!msg || msg.jsonrpc !== "2.0") return;
  if (msg.method && msg.id !== undefined) {
    try {
      post({ jsonrpc: "2.0", id: msg.id, result: await onAppRequest(msg) });
    } catch (e) {
      post({ jsonrpc: "2.0", id: msg.id, error: { code: e.code && e.code < 0 ? e.code : -32603, message: e.message } });
    }
  } else if (msg.method) {
    onAppNotification(msg);
  }
});

// ---- the event stream ---------------------------------------------------------------------

function connectEvents() {
  const source = new EventSource(`/api/events?token=${encodeURIComponent(TOKEN)}`);
  source.onopen = () => $("link").classList.add("up");
  source.onerror = () => $("link").classList.remove("up"); // EventSource reconnects by itself
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    switch (event.type) {
      case "hello": refresh(); break; // first connection, or back after the dev server restarted
      case "reload":
        addLog("notice", `server ${event.reason === "change" ? "reloaded after a change" : "restarted"} (#${event.generation - 1})${event.error ? ": " + event.error : ""}`);
        refresh();
        if (state.app && !event.error) { const a = state.app; openApp(a.uri, a.tool, a.args, a.result); }
        break;
      case "exited": addLog("error", event.error); refresh(); break;
      case "list_changed": refresh(); break;
      case "progress": onProgress(event); break;
      case "log": addLog(event.level, `${event.logger ? event.logger + ": " : ""}${typeof event.data === "string" ? event.data : JSON.stringify(event.data)}`); break;
      case "stderr": addLog("stderr", event.line); break;
      case "request": renderPending([...pendingNow(), event.request]); break;
      case "answered": {
        const node = $("request-list").querySelector(`[data-id="${event.id}"]`);
        if (node) node.remove();
        $("requests").hidden = $("request-list").children.length === 0;
        break;
      }
      case "task": onTask(event); break;
      default: break;
    }
  };
}

function pendingNow() {
  return [...$("request-list").children].map((node) => ({ id: node.dataset.id }));
}

// ---- start --------------------------------------------------------------------------------

function start() {
  if (!TOKEN) showBanner("Open the URL with ?token=… that mcpkit dev printed.");
  $("era-select").addEventListener("change", async (event) => {
    showBanner(`Reconnecting in ${event.target.value}…`, true);
    try { await api("/api/connect", { era: event.target.value }); } catch (e) { showBanner(e.message); }
    refresh();
  });
  $("restart-button").addEventListener("click", async () => { await api("/api/restart", {}); refresh(); });
  $("show-info").addEventListener("click", () => select("info", {}));
  $("app-close").addEventListener("click", closeApp);
  $("log-clear").addEventListener("click", () => $("log").replaceChildren());
  $("log-level").addEventListener("change", async (event) => {
    state.logLevel = event.target.value;
    try { await api("/api/logging", { level: event.target.value }); } catch (e) { /* no logging capability */ }
  });
  connectEvents();
}

start();
