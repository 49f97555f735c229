// Which stage of a REST request a profiled frame belongs to (issue #24 asks for a CPU budget per
// request by stage). A frame is named by its function and its source: a path in the repository
// (`server/stamps/stamp-service.ts`, through the build's source map), a package file
// (`node_modules/busboy/lib/types/multipart.js`) or a node internal (`node:_http_outgoing`).
// A sample belongs to the innermost frame of its stack that a rule claims (stage-profile.ts), so a
// rule only has to claim the code of its own stage: node's crypto under a stamp signature stays
// unclaimed and lands on the domain frame that called it, under express's ETag on serialize.

/** The nine stages of the issue, then where the rest of the main thread's time goes. */
export const STAGES = [
  "parse",
  "match",
  "validate",
  "auth",
  "limit",
  "domain",
  "store",
  "serialize",
  "write",
  "framework",
  "gc",
  "program",
  "other",
] as const;

export type Stage = (typeof STAGES)[number];

/** A sampled frame: what stage-profile.ts makes of a V8 call frame. */
export interface Frame {
  functionName: string;
  /** Repository path, `node_modules/...`, `node:...`, or "" for native code and V8's own nodes. */
  path: string;
}

interface Rule {
  stage: Stage | "idle";
  path?: RegExp;
  name?: RegExp;
}

// Node's HTTP and socket functions that send. A header set by a middleware (`setHeader`) is not
// claimed as a write: it stays with that middleware.
const SENDING =
  /^(write|_write|writev|_writev|end|_send|_writeRaw|_storeHeader|_finish|_flush|_flushOutput|writeHead|_implicitHeader|writeGeneric|writevGeneric|handleWriteReq|afterWriteDispatched|onWriteComplete|resOnFinish|onFinish|writeOrBuffer|doWrite|onwrite|afterWrite|afterWriteTick|clearBuffer|_writeGeneric|writeAfterFIN|connectionCorkNT|uncork|cork)$/;

// First match wins for a frame; order matters only where two rules could claim the same frame.
const RULES: Rule[] = [
  { stage: "idle", name: /^\(idle\)$/ },
  { stage: "gc", name: /^\(garbage collector\)$/ },
  { stage: "program", name: /^\(program\)$/ },

  {
    stage: "write",
    path: /^node:(_http_outgoing|_http_server|net|internal\/stream_base_commons)$/,
    name: SENDING,
  },
  { stage: "write", path: /^node:_http_outgoing$/, name: /^(?!(set|get|has|remove|append)Header$)/ },
  { stage: "write", path: /^node:internal\/streams\/writable$/ },

  { stage: "parse", path: /^node:(_http_common|_http_server|_http_incoming|internal\/stream_base_commons)$/ },
  {
    stage: "parse",
    path: /^node_modules\/(busboy|streamsearch|raw-body|body-parser|content-type|type-is)\//,
  },
  { stage: "parse", path: /^server\/rest\/uploads\// },
  { stage: "parse", path: /^server\/rest\/middleware\/(json-body|large-bodies)\.ts$/ },

  { stage: "match", path: /^gen\/rest\/routes\.ts$/ },
  { stage: "match", path: /^server\/rest\/(operation-matcher|route-template)\.ts$/ },
  {
    stage: "match",
    path: /^server\/rest\/middleware\/request-validation\.ts$/,
    name: /^(matchPath|decodeParams)$/,
  },
  {
    stage: "match",
    path: /^node_modules\/express-openapi-validator\/dist\/middlewares\/openapi\.metadata\.js$/,
  },
  { stage: "match", path: /^node_modules\/path-to-regexp\// },

  { stage: "validate", path: /^gen\/rest\/[^/]*validators?\.ts$/ },
  { stage: "validate", path: /^server\/rest\/middleware\/request-validation\.ts$/ },
  { stage: "validate", path: /^node_modules\/(express-openapi-validator|ajv|ajv-formats)\// },

  { stage: "auth", path: /^server\/auth\// },
  { stage: "auth", path: /^server\/rest\/middleware\/(authenticate|require-key)\.ts$/ },

  { stage: "limit", path: /^server\/ratelimit\// },
  { stage: "limit", path: /^server\/(rest\/middleware\/rate-limit|http\/rate-limit-answer)\.ts$/ },

  { stage: "store", path: /^server\/store\// },
  { stage: "store", path: /^node_modules\/(better-sqlite3|pg|pg-protocol|pg-pool)\// },

  { stage: "serialize", path: /^server\/rest\/views\// },
  { stage: "serialize", path: /^gen\/rest\/[^/]*serializ/ },
  {
    stage: "serialize",
    path: /^node_modules\/express\/lib\/response\.js$/,
    name: /^(json|jsonp|send|stringify)$/,
  },
  { stage: "serialize", path: /^node_modules\/(etag|fast-json-stringify)\// },

  // The operation itself: the handler that calls the domain, the domain and what it is built on.
  { stage: "domain", path: /^server\/rest\/handlers\// },
  {
    stage: "domain",
    path: /^server\/(stamps|proofs|log|keys|hashing|fingerprints|identities|vault|events|anchors|idempotency)\//,
  },
  { stage: "domain", path: /^(core|sdk\/src)\// },
  { stage: "domain", path: /^node_modules\/(@noble|canonicalize|hash-wasm)\// },

  // express, its router, our middleware that belongs to none of the stages above, metrics, logging.
  { stage: "framework", path: /^node_modules\/(express|router|finalhandler|on-finished|cors|vary|send)\// },
  { stage: "framework", path: /^server\/rest\/(app|router|pipeline)\.ts$/ },
  { stage: "framework", path: /^server\/rest\/middleware\// },
  { stage: "framework", path: /^server\/(http|metrics)\// },
  { stage: "framework", path: /^server\/(logger|errors)\.ts$/ },
  { stage: "framework", path: /^node_modules\/(pino|prom-client)\// },
];

/** The stage that claims this frame, "idle" for V8's idle node, or undefined (ask the caller). */
export function claim(frame: Frame): Stage | "idle" | undefined {
  for (const rule of RULES) {
    if (rule.path && !rule.path.test(frame.path)) continue;
    if (rule.name && !rule.name.test(frame.functionName)) continue;
    return rule.stage;
  }
  return undefined;
}
