// The official TypeScript SDK v2 client's OAuth flow against a protected Streamable HTTP
// server: discovery, dynamic registration, the authorization URL followed without a browser
// (the server approves at once), finishAuth with the callback's parameters, a tool call.
// Prints {"text", "clientId"} as JSON. Runs with .cache/peers' Node 22 and NODE_PATH:
//
//   node tests/interop/peers/ts_oauth_client.mjs URL TOOL
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? process.cwd(), "x.js"));
const resolve = (name) => import(require.resolve(name));
const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await resolve(
  "@modelcontextprotocol/client",
);

const [url, tool] = process.argv.slice(2);
const redirectUrl = "http://127.0.0.1:3997/callback";
let callback = null;
const store = { client: undefined, tokens: undefined, verifier: undefined };
const provider = {
  get redirectUrl() {
    return redirectUrl;
  },
  get clientMetadata() {
    return {
      client_name: "official-typescript",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  },
  clientInformation: () => store.client,
  saveClientInformation: (info) => {
    store.client = info;
  },
  tokens: () => store.tokens,
  saveTokens: (tokens) => {
    store.tokens = tokens;
  },
  saveCodeVerifier: (verifier) => {
    store.verifier = verifier;
  },
  codeVerifier: () => store.verifier,
  // The "browser": the authorization server approves at once and redirects back.
  redirectToAuthorization: async (authorizationUrl) => {
    const r = await fetch(authorizationUrl, { redirect: "manual" });
    callback = new URL(r.headers.get("location")).searchParams;
  },
};

async function connect() {
  const client = new Client({ name: "official-typescript", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
}

let session;
try {
  session = await connect();
} catch (error) {
  if (!(error instanceof UnauthorizedError) || callback === null) throw error;
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await transport.finishAuth(callback);
  session = await connect();
}
const result = await session.client.callTool({ name: tool, arguments: {} });
await session.client.close();
console.log(JSON.stringify({ text: result.content[0].text, clientId: store.client?.client_id }));
