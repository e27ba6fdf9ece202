// A real authorization server for the client credentials grant (the npm package
// oidc-provider), mounted at /oidc: three clients registered beforehand, "m2m-basic"
// (client_secret_basic), "m2m-post" (client_secret_post) and "m2m-jwt" (private_key_jwt with
// the public JWK given), JWT access tokens for the resource named by the request's `resource`.
// Usage: node oidc_m2m.mjs PORT PUBLIC_JWK_JSON. Prints "ready <issuer>" once it listens on
// 127.0.0.1:PORT, then one "token <json>" line per token request it answers: the form
// fields, the Authorization header and the error, if any.
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.env.NODE_PATH ?? "node_modules";
const { default: Provider } = await import(
  pathToFileURL(path.join(modules, "oidc-provider", "lib", "index.js")).href
);

const [port, jwk] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}/oidc`;
const m2m = { grant_types: ["client_credentials"], redirect_uris: [], response_types: [], scope: "mcp:tools" };

const provider = new Provider(issuer, {
  clients: [
    { ...m2m, client_id: "m2m-basic", client_secret: "basic-secret", token_endpoint_auth_method: "client_secret_basic" },
    { ...m2m, client_id: "m2m-post", client_secret: "post-secret", token_endpoint_auth_method: "client_secret_post" },
    {
      ...m2m,
      client_id: "m2m-jwt",
      jwks: { keys: [JSON.parse(jwk)] },
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_signing_alg: "RS256",
    },
  ],
  scopes: ["mcp:tools"],
  features: {
    clientCredentials: { enabled: true },
    registration: { enabled: false },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => ({
        scope: "mcp:tools",
        audience: resource,
        accessTokenFormat: "jwt",
        jwt: { sign: { alg: "RS256" } },
      }),
    },
  },
});

function record(ctx, err) {
  const line = {
    body: ctx.oidc?.body ?? null,
    authorization: ctx.get("authorization") || null,
    error: err ? err.error ?? String(err) : null,
  };
  process.stdout.write(`token ${JSON.stringify(line)}\n`);
}
provider.on("grant.success", (ctx) => record(ctx));
provider.on("grant.error", (ctx, err) => record(ctx, err));

const callback = provider.callback();
http
  .createServer((req, res) => {
    if (!req.url.startsWith("/oidc")) {
      res.writeHead(404).end();
      return;
    }
    req.originalUrl = req.url;
    req.url = req.url.slice("/oidc".length) || "/";
    callback(req, res);
  })
  .listen(Number(port), "127.0.0.1", () => process.stdout.write(`ready ${issuer}\n`));
