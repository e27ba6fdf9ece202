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
// capabilities, tools, prompts, resources, calls: [{name, arguments, result}]}.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? process.cwd(), "x.js"));
const resolve = (name) => import(require.resolve(name));
const { Client, StreamableHTTPClientTransport } = await resolve("@modelcontextprotocol/client");

const argv = process.argv.slice(2);
let mode = "auto";
let url;
const calls = [];
let command = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--mode") mode = argv[++i];
  else if (argv[i] === "--url") url = argv[++i];
  else if (argv[i] === "--call") calls.push([argv[++i], JSON.parse(argv[++i])]);
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
const client = new Client({ name: "ts-peer-client", version: "1.0.0" }, { versionNegotiation: negotiation });
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
  report.calls.push({ name, arguments: args, result: await client.callTool({ name, arguments: args }) });
}
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
