// The layers of stampd and what may import what (docs/contributing.md, "Layers"), checked in CI by
// `npm run lint:layers`. Type-only imports count: a layer that names another's types depends on it.

/** The REST, gRPC and WebSocket adapters. */
const transport = "^server/(rest|grpc|ws)/";
/** What the transports share at the HTTP edge (client identification, 429s, the bearer challenge). */
const edge = "^server/http/";
/** The composition root: the only server files that wire transports to domains. */
const compositionRoot = "^server/(build|main)[.]ts$";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle makes both ends one module in all but name; break it with a port.",
      from: {},
      to: { circular: true },
    },
    {
      name: "transport-not-to-transport",
      severity: "error",
      comment:
        "Transports never import each other: what two of them share belongs at the edge (server/http/) or in a domain.",
      from: { path: transport },
      to: { path: transport, pathNot: "^server/$1/" },
    },
    {
      name: "edge-not-to-transport",
      severity: "error",
      comment: "server/http/ sits below the transports it serves.",
      from: { path: edge },
      to: { path: transport },
    },
    {
      name: "domain-not-to-transport",
      severity: "error",
      comment:
        "Domains (and the store, and the server's shared files) know no transport and no HTTP edge; only build.ts and main.ts wire them.",
      from: { path: "^server/", pathNot: [transport, edge, compositionRoot] },
      to: { path: [transport, edge] },
    },
    {
      name: "store-implementation-private",
      severity: "error",
      comment:
        "Domains depend on the store's ports (server/store/store.ts, the repository interfaces); only the store opens an engine.",
      from: { path: "^(server|cli)/", pathNot: "^server/store/" },
      to: { path: "^server/store/(sqlite|postgres|rows)/" },
    },
    {
      name: "server-not-to-client",
      severity: "error",
      comment:
        "The server imports nothing from its clients: what both need (verification, trust, proofs) is in core/.",
      from: { path: "^server/" },
      to: { path: "^(sdk|cli|browser)/" },
    },
    {
      name: "core-is-the-bottom",
      severity: "error",
      comment: "core/ holds what server and SDK share; it imports only generated types and libraries.",
      from: { path: "^core/" },
      to: { path: "^(server|sdk|cli|browser)/" },
    },
    {
      name: "gen-is-generated",
      severity: "error",
      comment: "gen/ is generated from specs/ and imports nothing of ours.",
      from: { path: "^gen/" },
      to: { path: "^(core|server|sdk|cli|browser)/" },
    },
    {
      name: "sdk-imports-core-and-gen",
      severity: "error",
      comment: "The SDK ships alone: it builds on core/ and gen/, never on the server or its callers.",
      from: { path: "^sdk/" },
      to: { path: "^(server|cli|browser)/" },
    },
    {
      name: "cli-not-to-transport",
      severity: "error",
      comment:
        "The CLI reaches a server through the SDK; operator commands may use domains and the store, never a transport.",
      from: { path: "^cli/" },
      to: { path: [transport, edge] },
    },
    {
      name: "browser-only-views",
      severity: "error",
      comment:
        "Page scripts are bundled for the browser: SDK, core and generated code, and the pages' shared views.",
      from: { path: "^browser/" },
      to: { path: "^(server|cli)/", pathNot: "^server/pages/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
