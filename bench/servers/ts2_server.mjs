// The TypeScript SDK v2 (@modelcontextprotocol/server 2.x): McpServer + registerTool, served
// on the 2026-07-28 stateless wire by createMcpHandler (its web-standard fetch handler).
//
// Usage: node ts2_server.mjs stdio [--tools N]
//        node ts2_server.mjs http --port P [--json-response] [--tools N]
//
// The SDK comes from .cache/peers/node (scripts/peers.sh; BENCH_PEERS_NODE overrides).
// HTTP: plain node:http, each request turned into a fetch Request for handler.fetch and the
// Response streamed back (what @modelcontextprotocol/node's toNodeHandler does). The
// factory builds a fresh McpServer per request, as createMcpHandler expects.
// --json-response: responseMode 'json' (one JSON body); otherwise 'sse' (always a stream).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const peers = process.env.BENCH_PEERS_NODE || join(here, '..', '..', '.cache', 'peers', 'node');
const require = createRequire(join(peers, 'package.json'));
const { McpServer, createMcpHandler } = await import(
  require.resolve('@modelcontextprotocol/server'));
const { StdioServerTransport } = await import(
  require.resolve('@modelcontextprotocol/server/stdio'));
const { z } = await import(require.resolve('zod'));

const args = process.argv.slice(2);
const transportKind = args[0];
const opt = (name) => args.includes(name);
const val = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const port = val('--port', 8000);
const nTools = val('--tools', 0);
const jsonResponse = opt('--json-response');

const inputSchema = z.object({ text: z.string() });
const echo = async ({ text }) => ({ content: [{ type: 'text', text }] });

function buildServer() {
  const server = new McpServer({ name: 'bench', version: '1.0' });
  server.registerTool('echo', { description: 'Echo the text.', inputSchema }, echo);
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

async function main() {
  if (transportKind === 'stdio') {
    await buildServer().connect(new StdioServerTransport());
    return;
  }
  const handler = createMcpHandler(() => buildServer(), {
    responseMode: jsonResponse ? 'json' : 'sse',
  });
  const http = createServer(async (req, res) => {
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      const request = new Request(`http://${req.headers.host || '127.0.0.1'}${req.url}`, {
        method: req.method, headers, body,
      });
      const response = await handler.fetch(request);
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
