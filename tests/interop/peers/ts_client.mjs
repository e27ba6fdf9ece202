// Drive an MCP server with the official TypeScript SDK v2 client; print what it saw as JSON.
//
// Runs with the Node 22 and the packages of .cache/peers (scripts/peers.sh); NODE_PATH must
// name .cache/peers/node/node_modules (NodePeer.env() in tests/interop/conftest.py does):
//
//   node tests/interop/peers/ts_client.mjs --mode auto --call add '{"a":2,"b":3}' -- CMD [ARG ...]
//   node tests/interop/peers/ts_client.mjs --mode 2026-07-28 --url http://127.0.0.1:PORT/mcp
//
// --mode is the SDK's versionNegotiation mode: legacy (initialize handshake, the SDK's
// default), auto (probe server/discover, fall back to initialize) or a modern version to pin.
// The report has the shape of peers/py_client.py's: {protocolVersion, serverInfo,
// capabilities, tools, prompts, resources, calls: [{name, arguments, result}], reads, gets,
// answered}. --read URI and --get PROMPT JSON are repeatable like --call (a call that fails
// reports {name, arguments, error}). The client declares sampling, elicitation and roots
// and answers them with canned values (2026-07-28: the SDK fulfils input_required results
// through these handlers); every request it answered is listed in "answered".
//
// Notifications and streams (the options of py_client.py): --subscribe URI (repeatable)
// sends resources/subscribe before the calls; every server notification but progress is in
// "notifications" ({method, params}, arrival order); --wait-notifications N waits (at most
// --notify-wait seconds) after the calls until N arrived, then --settle seconds more; each
// call's progress messages are in its "progress". The SDK's transport resumes a broken SSE
// stream itself (GET with Last-Event-ID after the server's retry delay).
// --listen-tools TOOL JSON (2026-07-28): client.listen() for tool-list changes, call TOOL,
// report the first change within --listen-wait seconds ({honored, call, events, closed}).
// --task TOOL JSON: the call through the official tasks package
// (@modelcontextprotocol/ext-tasks, createTaskSessionFromClient): on a 2025 connection
// through the SDK Client; on 2026-07-28 the SDK Client's codec rejects the tasks
// extension's wire shapes, and the package then requires a host "rawDispatch": here a
// plain fetch POST of the framed request it hands over. "tasks" lists {name, kind,
// statuses, result | error}.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(path.join(process.env.NODE_PATH ?? process.cwd(), "x.js"));
const resolve = (name) => import(require.resolve(name));
const { Client, StreamableHTTPClientTransport } = await resolve("@modelcontextprotocol/client");

const argv = process.argv.slice(2);
let mode = "auto";
let url;
const calls = [];
const reads = [];
const gets = [];
const subscribes = [];
const taskCalls = [];
let listenTools;
let listenWait = 3;
let waitNotifications = 0;
let notifyWait = 10;
let settle = 0.5;
let command = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--mode") mode = argv[++i];
  else if (argv[i] === "--url") url = argv[++i];
  else if (argv[i] === "--call") calls.push([argv[++i], JSON.parse(argv[++i])]);
  else if (argv[i] === "--read") reads.push(argv[++i]);
  else if (argv[i] === "--get") gets.push([argv[++i], JSON.parse(argv[++i])]);
  else if (argv[i] === "--subscribe") subscribes.push(argv[++i]);
  else if (argv[i] === "--task") taskCalls.push([argv[++i], JSON.parse(argv[++i])]);
  else if (argv[i] === "--listen-tools") listenTools = [argv[++i], JSON.parse(argv[++i])];
  else if (argv[i] === "--listen-wait") listenWait = Number(argv[++i]);
  else if (argv[i] === "--wait-notifications") waitNotifications = Number(argv[++i]);
  else if (argv[i] === "--notify-wait") notifyWait = Number(argv[++i]);
  else if (argv[i] === "--settle") settle = Number(argv[++i]);
  else if (argv[i] === "--") { command = argv.slice(i + 1); break; }
  else throw new Error(`unknown argument ${argv[i]}`);
}
let transport;
if (url) {
  transport = new StreamableHTTPClientTransport(new URL(url));
} else {
  if (command.length === 0) throw new Error("give --url or a stdio server command after --");
  const { StdioClientTransport } = await resolve("@modelcontextprotocol/client/stdio");
  transport = new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });
}
const negotiation = mode === "legacy" || mode === "auto" ? { mode } : { mode: { pin: mode } };
const client = new Client(
  { name: "ts-peer-client", version: "1.0.0" },
  { versionNegotiation: negotiation, capabilities: { sampling: {}, elicitation: {}, roots: {} } },
);
const answered = [];
client.setRequestHandler("sampling/createMessage", async (request) => {
  answered.push({ kind: "sampling", params: request.params });
  return { model: "interop-model", role: "assistant", content: { type: "text", text: "sampled by the TypeScript client" } };
});
client.setRequestHandler("elicitation/create", async (request) => {
  answered.push({ kind: "elicitation", params: request.params });
  return { action: "accept", content: { name: "Tess", color: "green" } };
});
client.setRequestHandler("roots/list", async () => {
  answered.push({ kind: "roots" });
  return { roots: [{ uri: "file:///interop/ts-root", name: "ts root" }] };
});
const notifications = [];
const arrivals = [];
const notified = (notification) => {
  if (notification.method === "notifications/progress") return;
  notifications.push({ method: notification.method, params: notification.params ?? null });
  for (const wake of arrivals.splice(0)) wake();
};
for (const method of [
  "notifications/resources/updated",
  "notifications/tools/list_changed",
  "notifications/resources/list_changed",
  "notifications/prompts/list_changed",
  "notifications/message",
]) {
  client.setNotificationHandler(method, async (notification) => notified(notification));
}
client.fallbackNotificationHandler = async (notification) => notified(notification);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// Until `count` notifications arrived or `seconds` passed (the timer, unref'd, never keeps
// the process alive).
const notificationsArrived = async (count, seconds) => {
  const deadline = Date.now() + seconds * 1000;
  while (notifications.length < count && Date.now() < deadline) {
    let timer;
    const timeout = new Promise((resolve) => {
      timer = setTimeout(resolve, deadline - Date.now());
      timer.unref();
    });
    await Promise.race([new Promise((resolve) => arrivals.push(resolve)), timeout]);
    clearTimeout(timer);
  }
};
await client.connect(transport);
const listed = async (fetch, field, key) => {
  try {
    return (await fetch())[field].map((item) => String(item[key]));
  } catch (err) {
    return { error: String(err) };
  }
};
const report = {
  protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
  serverInfo: client.getServerVersion() ?? null,
  capabilities: client.getServerCapabilities() ?? null,
  tools: await listed(() => client.listTools(), "tools", "name"),
  prompts: await listed(() => client.listPrompts(), "prompts", "name"),
  resources: await listed(() => client.listResources(), "resources", "uri"),
  calls: [],
};
for (const uri of subscribes) await client.subscribeResource({ uri });
for (const [name, args] of calls) {
  const progress = [];
  const onprogress = (p) => progress.push(p.message ?? null);
  try {
    const result = await client.callTool({ name, arguments: args }, { onprogress });
    report.calls.push({ name, arguments: args, progress, result });
  } catch (err) {
    report.calls.push({ name, arguments: args, progress, error: String(err) });
  }
}
if (waitNotifications > 0) {
  await notificationsArrived(waitNotifications, notifyWait);
  await sleep(settle * 1000);
}
report.notifications = notifications;
if (listenTools) {
  const [tool, args] = listenTools;
  const before = notifications.length;
  const sub = await client.listen({ toolsListChanged: true });
  const call = await client.callTool({ name: tool, arguments: args });
  await notificationsArrived(before + 1, listenWait);
  const events = notifications.slice(before).map((n) => n.method);
  await sub.close();
  report.listen = { honored: sub.honoredFilter, call, events, closed: await sub.closed };
}
if (taskCalls.length > 0) report.tasks = await runTasks();
report.reads = [];
for (const uri of reads) report.reads.push({ uri, result: await client.readResource({ uri }) });
report.gets = [];
for (const [name, args] of gets) {
  report.gets.push({ name, result: await client.getPrompt({ name, arguments: args }) });
}
report.answered = answered;
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");

// The calls of --task through @modelcontextprotocol/ext-tasks (see the header).
async function runTasks() {
  // The package exports ESM only ("import" conditions): no require.resolve, its file then.
  const modules = process.env.NODE_PATH ?? path.join(process.cwd(), "node_modules");
  const entry = path.join(modules, "@modelcontextprotocol", "ext-tasks", "dist", "client", "index.js");
  const { createTaskSessionFromClient, resultFromTaskOutcome } = await import(pathToFileURL(entry).href);
  const modern = client.getProtocolEra() === "modern";
  const version = client.getNegotiatedProtocolVersion();
  let nextId = 1;
  // A framed request (envelope _meta included) POSTed as is; the JSON-RPC response read
  // from a JSON body or an SSE stream.
  const rawDispatch = async (request, options) => {
    const message = { jsonrpc: "2.0", id: `task-${nextId++}`, ...request };
    const params = message.params ?? {};
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": version,
      "mcp-method": message.method,
    };
    const name = message.method === "tools/call" ? params.name : params.taskId;
    if (typeof name === "string") headers["mcp-name"] = name;
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(message),
      signal: options?.signal,
    });
    const text = await response.text();
    const candidates = (response.headers.get("content-type") ?? "").includes("text/event-stream")
      ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim())
      : [text];
    for (const candidate of candidates) {
      if (!candidate) continue;
      const parsed = JSON.parse(candidate);
      if (parsed.id !== message.id) continue;
      if (parsed.error) return { kind: "error", error: parsed.error };
      return { kind: "result", result: parsed.result };
    }
    throw new Error(`no JSON-RPC response to ${message.method} (HTTP ${response.status}): ${text.slice(0, 200)}`);
  };
  const framing = {
    protocolVersion: version,
    clientInfo: { name: "ts-peer-client", version: "1.0.0" },
    clientCapabilities: { sampling: {}, elicitation: {}, roots: {} },
  };
  const onInputRequest = async (request) => {
    answered.push({ kind: `task ${request.kind}`, params: request.params ?? null });
    if (request.kind === "elicitation") return { action: "accept", content: { v: "ts" } };
    if (request.kind === "sampling") {
      return { model: "interop-model", role: "assistant", content: { type: "text", text: "sampled by the TypeScript client" } };
    }
    return { roots: [{ uri: "file:///interop/ts-root", name: "ts root" }] };
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: "scaleout-peer",
    onInputRequest,
    ...(modern ? { rawDispatch, v2RequestFraming: framing } : {}),
  });
  const out = [];
  try {
    for (const [name, args] of taskCalls) {
      const done = { name, arguments: args, statuses: [] };
      try {
        const execution = await session.callTool(name, args, { task: { preference: "prefer" } });
        done.kind = execution.kind;
        const { outcome } = await execution.settle({
          onEvent: (event) => {
            const status = event.type === "task" ? event.task.status : event.outcome.status;
            if (done.statuses.at(-1) !== status) done.statuses.push(status);
          },
        });
        done.result = resultFromTaskOutcome(outcome);
      } catch (err) {
        done.error = String(err);
      }
      out.push(done);
    }
  } finally {
    await session.close();
  }
  return out;
}
