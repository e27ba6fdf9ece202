// A real OpenID provider (the npm package oidc-provider) standing in for GitHub, Google...:
// no dynamic client registration, ONE client registered beforehand, PKCE required, its
// built-in login and consent pages. Usage: node oidc_upstream.mjs PORT CLIENT_ID SECRET
// REDIRECT_URI. Prints "ready <issuer>" once it listens on 127.0.0.1:PORT.
import path from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.env.NODE_PATH ?? "node_modules";
const { default: Provider } = await import(
  pathToFileURL(path.join(modules, "oidc-provider", "lib", "index.js")).href
);

const [port, clientId, clientSecret, redirectUri] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const accounts = new Map();
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  features: {
    registration: { enabled: false },
    revocation: { enabled: true },
    devInteractions: { enabled: true },
  },
  pkce: { required: () => true },
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["name", "preferred_username"],
  },
  async findAccount(ctx, id) {
    accounts.set(id, true);
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          email: `${id}@example.com`,
          email_verified: true,
          name: `User ${id}`,
          preferred_username: id,
        };
      },
    };
  },
});

provider.listen(Number(port), "127.0.0.1", () => {
  process.stdout.write(`ready ${issuer}\n`);
});
