// The stage budget (bench/stages.ts) attributes every sample of a profile to exactly one stage: the
// innermost frame of its stack that a rule claims. Checked on small synthetic profiles, no timing.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  bytesByStage,
  type CallFrame,
  type CpuProfile,
  cpuByStage,
  type HeapNode,
} from "../../bench/lib/stage-profile.js";
import { claim, STAGES } from "../../bench/lib/stage-rules.js";

const frame = (functionName: string, url = ""): CallFrame => ({
  functionName,
  url,
  lineNumber: 0,
  columnNumber: 0,
});
// Modules run from source (no bundle, no source map) are named by their path in the checkout.
const root = fileURLToPath(new URL("../..", import.meta.url));
const repo = (path: string, name = "f") => frame(name, new URL(path, `file://${root}`).href);
const pkg = (path: string, name = "f") => frame(name, `${root}node_modules/${path}`);

/** A profile of one stack per entry (root first), each sampled `weight` times, 10 µs apart. */
function profileOf(stacks: [CallFrame[], number][]): CpuProfile {
  const nodes: CpuProfile["nodes"] = [{ id: 1, callFrame: frame("(root)"), children: [] }];
  const samples: number[] = [];
  for (const [stack, weight] of stacks) {
    let parent = nodes[0]!;
    for (const callFrame of stack) {
      const id = nodes.length + 1;
      const node = { id, callFrame, children: [] as number[] };
      parent.children!.push(id);
      nodes.push(node);
      parent = node;
    }
    for (let i = 0; i < weight; i++) samples.push(parent.id);
  }
  return { nodes, samples, timeDeltas: samples.map(() => 10) };
}

const request = [frame("socketOnData", "node:_http_server"), frame("parserOnIncoming", "node:_http_server")];
const express = [pkg("express/lib/application.js", "handle"), pkg("router/index.js", "next")];

describe("CPU budget by stage", () => {
  it.each([
    ["parse", [...request, frame("emit", "node:events")]],
    ["parse", [...request, ...express, pkg("busboy/lib/types/multipart.js", "write")]],
    ["match", [...request, ...express, repo("server/rest/middleware/request-validation.ts", "matchPath")]],
    [
      "validate",
      [...request, ...express, repo("server/rest/middleware/request-validation.ts", "checkRequest")],
    ],
    ["validate", [...request, ...express, repo("gen/rest/body-validators.ts", "validate12")]],
    [
      "auth",
      [
        ...request,
        ...express,
        repo("server/rest/middleware/authenticate.ts"),
        repo("server/auth/api-keys.ts"),
      ],
    ],
    [
      "limit",
      [
        ...request,
        ...express,
        repo("server/rest/middleware/rate-limit.ts"),
        frame("setHeader", "node:_http_outgoing"),
      ],
    ],
    [
      "domain",
      [
        ...request,
        ...express,
        repo("server/rest/handlers/stamp-handlers.ts"),
        repo("server/keys/ed25519.ts"),
        frame("signOneShot", "node:internal/crypto/sig"),
        frame("run"),
      ],
    ],
    [
      "store",
      [
        ...request,
        ...express,
        repo("server/stamps/stamp-service.ts"),
        repo("server/store/sqlite/sqlite-stamp-repository.ts"),
        frame("get"),
      ],
    ],
    ["serialize", [...request, ...express, repo("server/rest/views/stamp-response.ts")]],
    [
      "serialize",
      [
        ...request,
        ...express,
        pkg("express/lib/response.js", "json"),
        pkg("express/lib/response.js", "stringify"),
      ],
    ],
    [
      "write",
      [
        ...request,
        ...express,
        pkg("express/lib/response.js", "send"),
        frame("end", "node:_http_outgoing"),
        frame("_writeGeneric", "node:net"),
        frame("writev"),
      ],
    ],
    ["framework", [...request, ...express]],
    [
      "framework",
      [
        ...request,
        ...express,
        repo("server/rest/middleware/request-id.ts"),
        frame("randomUUID", "node:internal/crypto/random"),
      ],
    ],
    ["gc", [frame("(garbage collector)")]],
    ["program", [frame("(program)")]],
    ["other", [frame("processTicksAndRejections", "node:internal/process/task_queues")]],
  ] as const)("%s: %#", (stage, stack) => {
    const totals = cpuByStage(profileOf([[[...stack], 3]]));
    expect(totals[stage]).toBe(30);
    expect(Object.values(totals).reduce((a, b) => a + b, 0)).toBe(30);
  });

  it("counts every sample once, idle apart from the busy stages", () => {
    const totals = cpuByStage(
      profileOf([
        [[frame("(idle)")], 5],
        [[...request, ...express, repo("server/store/sqlite/sqlite-stamp-repository.ts")], 2],
        [[...request, frame("writeHead", "node:_http_server")], 1],
      ]),
    );
    expect(totals).toMatchObject({ idle: 50, store: 20, write: 10 });
    expect(STAGES.reduce((n, s) => n + totals[s], 0)).toBe(30);
  });

  it("adds up a heap profile's bytes under the innermost claimed frame", () => {
    const node = (callFrame: CallFrame, selfSize: number, children: HeapNode[] = []): HeapNode => ({
      callFrame,
      selfSize,
      children,
    });
    const head = node(frame("(root)"), 0, [
      node(request[1]!, 100, [
        node(repo("server/rest/views/stamp-response.ts"), 40, [node(frame("fromString", "node:buffer"), 8)]),
        node(pkg("ajv/dist/core.js"), 16),
      ]),
    ]);
    expect(bytesByStage(head)).toMatchObject({ parse: 100, serialize: 48, validate: 16, other: 0 });
  });

  it("leaves a header set by a middleware to that middleware, not to the write", () => {
    expect(claim({ functionName: "setHeader", path: "node:_http_outgoing" })).toBeUndefined();
    expect(claim({ functionName: "_storeHeader", path: "node:_http_outgoing" })).toBe("write");
  });
});
