// The official TypeScript SDK v2 client's OAuth flow against a protected Streamable HTTP
// server: discovery, dynamic registration, the authorization URL followed without a browser
// (the server approves at once), finishAuth with the callback's parameters, a tool call;
// then the access token is made unusable (as one that ran out): the server's 401 makes the
// SDK refresh, and the call is made again. Prints {"text", "second", "refreshed",
// "clientId", "firstTokens", "tokens"} as JSON. Runs with .cache/peers' Node 22 and
// NODE_PATH:
//
//   node tests/interop/peers/ts_oauth_client.mjs URL TOOL [--login USER | --external]
//
// With --login, the "browser" keeps cookies, logs in as USER and allows on the pages it is
// shown (an OAuth proxy's provider, a consent page).
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? process.cwd(), "x.js"));
const resolve = (name) => import(require.resolve(name));
const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await resolve(
  "@modelcontextprotocol/client",
);

const [url, tool, flag, user] = process.argv.slice(2);
// CLIENT_METADATA_URL: the client ID metadata document to use as client_id (when the
// authorization server supports them).
const clientMetadataUrl = process.env.CLIENT_METADATA_URL || undefined;
const login = flag === "--login" ? user : null;
// --external: a real browser is driven by whoever runs this: the authorization URL is
// printed as {"authorize": URL} and the redirect URL read back from stdin.
const external = flag === "--external";
async function askOutside(authorizationUrl) {
  process.stdout.write(JSON.stringify({ authorize: String(authorizationUrl) }) + "\n");
  const { createInterface } = await import("node:readline");
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return new URL(line.trim()).searchParams;
  }
  throw new Error("no redirect URL on stdin");
}
const redirectUrl = "http://127.0.0.1:3997/callback";
let callback = null;

const unescape = (s) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

// A browser without a screen: redirects, cookies (per origin), the pages' forms.
async function browse(start) {
  const jar = new Map();
  const send = async (target, init = {}) => {
    const origin = new URL(target).origin;
    const cookies = jar.get(origin) ?? new Map();
    const headers = { ...(init.headers ?? {}) };
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const r = await fetch(target, { ...init, headers, redirect: "manual" });
    for (const line of r.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    jar.set(origin, cookies);
    return r;
  };
  let current = start;
  let r = await send(current);
  for (let i = 0; i < 30; i++) {
    if (r.status >= 300 && r.status < 400) {
      current = new URL(r.headers.get("location"), current).href;
      if (current.startsWith(redirectUrl)) return new URL(current).searchParams;
      r = await send(current);
      continue;
    }
    const html = await r.text();
    const form = html.match(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/);
    if (r.status !== 200 || !form) throw new Error(`unexpected page ${r.status}: ${html}`);
    const data = new URLSearchParams();
    for (const m of form[2].matchAll(/<input type="?hidden"? name="?(\w+)"? value="([^"]*)"/g)) {
      data.set(m[1], unescape(m[2]));
    }
    if (form[2].includes('name="login"')) {
      data.set("login", login);
      data.set("password", "any");
    }
    if (form[2].includes("name=decision")) data.set("decision", "allow");
    current = new URL(unescape(form[1]), current).href;
    r = await send(current, {
      method: "POST",
      body: data.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
  }
  throw new Error("the login did not end");
}
const store = { client: undefined, tokens: undefined, verifier: undefined };
const provider = {
  clientMetadataUrl,
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
    if (external) {
      callback = await askOutside(authorizationUrl);
      return;
    }
    if (login !== null) {
      callback = await browse(authorizationUrl.href ?? String(authorizationUrl));
      return;
    }
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
const firstTokens = { ...store.tokens };
// The access token runs out: the next request is refused with 401 and the SDK refreshes.
store.tokens = { ...store.tokens, access_token: "run-out" };
const again = await session.client.callTool({ name: tool, arguments: {} });
await session.client.close();
console.log(
  JSON.stringify({
    text: result.content[0].text,
    second: again.content[0].text,
    refreshed:
      store.tokens.access_token !== "run-out" &&
      store.tokens.access_token !== firstTokens.access_token &&
      store.tokens.refresh_token !== firstTokens.refresh_token,
    clientId: store.client?.client_id,
    firstTokens,
    tokens: store.tokens,
  }),
);
