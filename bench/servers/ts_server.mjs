// The TypeScript SDK (@modelcontextprotocol/sdk 1.x): McpServer + registerTool (echo, and
// `large`) + registerResource (bench://large), the 1 MiB text of payload.mjs.
//
// Usage: node ts_server.mjs stdio [--tools N]
//        node ts_server.mjs http --port P [--stateless] [--json-response] [--tools N]
//
// The SDK is installed by bench/run.py into bench/.node-ref (BENCH_NODE_REF overrides).
// Sessions: one McpServer + StreamableHTTPServerTransport per session, routed by
// Mcp-Session-Id. Stateless: a fresh server + transport per request, as in the SDK's
// simpleStatelessStreamableHttp example. Plain node:http, no express.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LARGE_TEXT, LARGE_TOOL, LARGE_URI } from './payload.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const nodeRef = process.env.BENCH_NODE_REF || join(here, '..', '.node-ref');
const require = createRequire(join(nodeRef, 'package.json'));
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { isInitializeRequest } = require('@modelcontextprotocol/sdk/types.js');
const z = require('zod');

const args = process.argv.slice(2);
const transportKind = args[0];
const opt = (name) => args.includes(name);
const val = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const port = val('--port', 8000);
const nTools = val('--tools', 0);
const stateless = opt('--stateless');
const jsonResponse = opt('--json-response');

const inputSchema = { text: z.string() };
const echo = async ({ text }) => ({ content: [{ type: 'text', text }] });
const large = async () => ({ content: [{ type: 'text', text: LARGE_TEXT }] });
const largeResource = async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'text/plain', text: LARGE_TEXT }],
});

function buildServer() {
  const server = new McpServer({ name: 'bench', version: '1.0' });
  server.registerTool('echo', { description: 'Echo the text.', inputSchema }, echo);
  server.registerTool(LARGE_TOOL, { description: '1 MiB of text.' }, large);
  server.registerResource('large', LARGE_URI, { mimeType: 'text/plain' }, largeResource);
  for (let i = 0; i < nTools; i++) {
    server.registerTool(`tool_${i}`, { description: 'Echo the text.', inputSchema }, echo);
  }
  return server;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendError(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function main() {
  if (transportKind === 'stdio') {
    await buildServer().connect(new StdioServerTransport());
    return;
  }
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      if (req.method !== 'POST') {
        const t = sessions.get(req.headers['mcp-session-id']);
        if (t) return await t.handleRequest(req, res);
        return sendError(res, 405, 'Method not allowed.');
      }
      const body = JSON.parse(await readBody(req));
      if (stateless) {
        const server = buildServer();
        const t = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined, enableJsonResponse: jsonResponse });
        res.on('close', () => { t.close(); server.close(); });
        await server.connect(t);
        return await t.handleRequest(req, res, body);
      }
      const sid = req.headers['mcp-session-id'];
      let t = sid ? sessions.get(sid) : undefined;
      if (!t) {
        if (sid || !isInitializeRequest(body)) return sendError(res, sid ? 404 : 400, 'No session');
        t = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: jsonResponse,
          onsessioninitialized: (id) => sessions.set(id, t),
        });
        t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
        await buildServer().connect(t);
      }
      await t.handleRequest(req, res, body);
    } catch (err) {
      console.error(err);
      if (!res.headersSent) sendError(res, 500, 'Internal server error');
    }
  });
  http.keepAliveTimeout = 60000;
  http.listen(port, '127.0.0.1');
}

main().catch((err) => { console.error(err); process.exit(1); });
