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
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? process.cwd(), "x.js"));
const resolve = (name) => import(require.resolve(name));
const { Client, StreamableHTTPClientTransport } = await resolve("@modelcontextprotocol/client");

const argv = process.argv.slice(2);
let mode = "auto";
let url;
const calls = [];
const reads = [];
const gets = [];
let command = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--mode") mode = argv[++i];
  else if (argv[i] === "--url") url = argv[++i];
  else if (argv[i] === "--call") calls.push([argv[++i], JSON.parse(argv[++i])]);
  else if (argv[i] === "--read") reads.push(argv[++i]);
  else if (argv[i] === "--get") gets.push([argv[++i], JSON.parse(argv[++i])]);
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
for (const [name, args] of calls) {
  try {
    report.calls.push({ name, arguments: args, result: await client.callTool({ name, arguments: args }) });
  } catch (err) {
    report.calls.push({ name, arguments: args, error: String(err) });
  }
}
report.reads = [];
for (const uri of reads) report.reads.push({ uri, result: await client.readResource({ uri }) });
report.gets = [];
for (const [name, args] of gets) {
  report.gets.push({ name, result: await client.getPrompt({ name, arguments: args }) });
}
report.answered = answered;
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
