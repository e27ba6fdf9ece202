// The TypeScript SDK v2 (@modelcontextprotocol/server 2.x): McpServer + registerTool (echo,
// and `large`) + registerResource (bench://large, the 1 MiB text of payload.mjs).
//
// Usage: node ts2_server.mjs stdio [--tools N]
//        node ts2_server.mjs http --port P [--stateless] [--json-response] [--tools N]
//
// The SDK comes from .cache/peers/node (scripts/peers.sh; BENCH_PEERS_NODE overrides).
// HTTP: plain node:http, each request turned into a fetch Request and the Response streamed
// back (what @modelcontextprotocol/node's toNodeHandler does). Each request is classified
// with the SDK's own isLegacyRequest (on the body parsed once, passed on as parsedBody):
// - 2026-07-28 requests go to createMcpHandler(factory, {legacy: 'reject', responseMode}),
//   which builds a fresh McpServer per request; --json-response: responseMode 'json', else
//   'sse' (always a stream).
// - 2025-era requests go to WebStandardStreamableHTTPServerTransport: with sessions one
//   McpServer + transport per session, routed by Mcp-Session-Id (as the SDK's stateful
//   example); --stateless a fresh server + transport per request (its stateless example);
//   --json-response sets enableJsonResponse.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { LARGE_TEXT, LARGE_TOOL, LARGE_URI } from './payload.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const peers = process.env.BENCH_PEERS_NODE || join(here, '..', '..', '.cache', 'peers', 'node');
const require = createRequire(join(peers, 'package.json'));
const {
  McpServer, WebStandardStreamableHTTPServerTransport, createMcpHandler, isInitializeRequest,
  isLegacyRequest,
} = await import(require.resolve('@modelcontextprotocol/server'));
const { StdioServerTransport } = await import(
  require.resolve('@modelcontextprotocol/server/stdio'));
const { z } = await import(require.resolve('zod'));

const args = process.argv.slice(2);
const transportKind = args[0];
const opt = (name) => args.includes(name);
const val = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const port = val('--port', 8000);
const nTools = val('--tools', 0);
const stateless = opt('--stateless');
const jsonResponse = opt('--json-response');

const inputSchema = z.object({ text: z.string() });
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
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function jsonError(status, message) {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }),
    { status, headers: { 'content-type': 'application/json' } });
}

const modern = createMcpHandler(() => buildServer(), {
  legacy: 'reject', responseMode: jsonResponse ? 'json' : 'sse',
});
const sessions = new Map();

async function legacy(request, parsedBody) {
  if (stateless) {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined, enableJsonResponse: jsonResponse });
    await buildServer().connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }
  const sid = request.headers.get('mcp-session-id');
  let transport = sid ? sessions.get(sid) : undefined;
  if (!transport) {
    if (sid) return jsonError(404, 'Session not found');
    if (request.method !== 'POST' || !isInitializeRequest(parsedBody)) {
      return jsonError(400, 'No session');
    }
    const t = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: jsonResponse,
      onsessioninitialized: (id) => { sessions.set(id, t); },
      onsessionclosed: (id) => { sessions.delete(id); },
    });
    t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
    await buildServer().connect(t);
    transport = t;
  }
  return transport.handleRequest(request, { parsedBody });
}

async function main() {
  if (transportKind === 'stdio') {
    await buildServer().connect(new StdioServerTransport());
    return;
  }
  const http = createServer(async (req, res) => {
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const raw = req.method === 'POST' ? await readBody(req) : undefined;
      const parsedBody = raw === undefined ? undefined : JSON.parse(raw.toString('utf8'));
      const request = new Request(`http://${req.headers.host || '127.0.0.1'}${req.url}`, {
        method: req.method, headers, body: raw,
      });
      const isModern = parsedBody !== undefined && !(await isLegacyRequest(request, parsedBody));
      const response = isModern
        ? await modern.fetch(request, { parsedBody })
        : await legacy(request, parsedBody);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) Readable.fromWeb(response.body).pipe(res);
      else res.end();
    } catch (err) {
      console.error(err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' },
                               id: null }));
    }
  });
  http.keepAliveTimeout = 60000;
  http.listen(port, '127.0.0.1');
}

main().catch((err) => { console.error(err); process.exit(1); });
