import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { requestTimestamp } from "../../server/anchors/tsp-client.js";
import { ManualClock, systemClock } from "../../server/clock.js";
import { revokeKey, rotateKey } from "../../server/keys/key-rotation.js";
import { OpensslTsa } from "../anchors/openssl-tsa.js";
import { Hosts } from "../helpers/hosts.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { type Bundle, getJson, publishedTrust, type SigstoreTrust, sigstoreVerify } from "./sigstore-js.js";

/**
 * The outside TSA (TSA_URL) as a second timestamp of Sigstore bundles (docs/sigstore.md), with a
 * real `openssl ts` authority behind a front the test turns down, slow or garbled.
 */
class TsaFront {
  mode: "pass" | "down" | "stall" | "garbage" = "pass";
  url = "";
  requests = 0;
  private readonly server: Server;
  private readonly stalled: ServerResponse[] = [];

  constructor(private readonly tsa: OpensslTsa) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        this.requests++;
        if (this.mode === "down") return res.writeHead(503).end();
        if (this.mode === "stall") return void this.stalled.push(res);
        if (this.mode === "garbage") return res.writeHead(200).end(Buffer.from("not a TimeStampResp"));
        const reply = await fetch(this.tsa.url, { method: "POST", body: Buffer.concat(chunks) });
        res.writeHead(reply.status).end(Buffer.from(await reply.arrayBuffer()));
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/tsa`;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.stalled) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const timestampsOf = (bundle: Bundle) =>
  bundle.verificationMaterial.timestampVerificationData.rfc3161Timestamps;

let tsa: OpensslTsa;
beforeAll(async () => {
  tsa = await new OpensslTsa().start();
});
afterAll(async () => {
  await tsa?.stop();
});

/** A stamp of `document` over REST, its batch sealed, and its bundle. */
async function stampedBundle(svc: RunningService, document: string): Promise<{ id: string; bundle: Bundle }> {
  const { stamp_id } = await createStamp(svc, document);
  await svc.service.proofs.pipeline.tick();
  return { id: stamp_id, bundle: await getJson<Bundle>(svc.baseUrl, `/stamps/${stamp_id}/sigstore`) };
}

describe("a bundle with the outside TSA's token, checked by sigstore-js", () => {
  let svc: RunningService;
  let front: TsaFront;
  const document = "the deed, dated by two authorities\n";
  let made: { id: string; bundle: Bundle };
  let trust: SigstoreTrust;

  beforeAll(async () => {
    front = await new TsaFront(tsa).start();
    // A generous bound: the test's authority spawns openssl per token, which on a loaded machine
    // took longer than the default 3 s, and a bundle then came with one token (the bound itself
    // is tested below).
    svc = await startService({
      RATE_LIMIT_ENABLED: "false",
      TSA_URL: front.url,
      TSA_CA_FILE: tsa.caFile,
      TSA_BUNDLE_TIMEOUT_MS: "30000",
    });
    made = await stampedBundle(svc, document);
    trust = await publishedTrust(svc.baseUrl);
  });
  afterAll(async () => {
    await svc?.close();
    await front?.stop();
  });

  it("carries the built-in token and the outside one, and verifies requiring one or both", async () => {
    expect(timestampsOf(made.bundle)).toHaveLength(2);
    await expect(sigstoreVerify(made.bundle, document, trust, 1)).resolves.toBeUndefined();
    await expect(sigstoreVerify(made.bundle, document, trust, 2)).resolves.toBeUndefined();
    await expect(sigstoreVerify(made.bundle, `${document}!`, trust, 2)).rejects.toThrow(
      /signature verification failed/,
    );
  });

  it("lists the outside TSA's chain, leaf first, for its certificates' period", async () => {
    const outside = trust.root.timestampAuthorities.find((a) => a.subject.commonName === "Test TSA")!;
    expect(outside.certChain.certificates).toHaveLength(2);
    const caDer = execFileSync("openssl", ["x509", "-in", tsa.caFile, "-outform", "DER"]);
    expect(outside.certChain.certificates[1]!.rawBytes).toBe(caDer.toString("base64"));
    expect(Date.parse(outside.validFor.end!)).toBeGreaterThan(Date.now());
  });

  it("fails against a trusted root without the outside TSA", async () => {
    const without = trust.root.timestampAuthorities.filter((a) => a.subject.commonName !== "Test TSA");
    expect(without).toHaveLength(trust.root.timestampAuthorities.length - 1);
    const root = { ...trust.root, timestampAuthorities: without };
    await expect(sigstoreVerify(made.bundle, document, { ...trust, root }, 1)).rejects.toThrow(
      /timestamp could not be verified/,
    );
  });

  it("keeps the outside token: fetched again, the bundle carries the same one", async () => {
    const requests = front.requests;
    const again = await getJson<Bundle>(svc.baseUrl, `/stamps/${made.id}/sigstore`);
    expect(front.requests).toBe(requests);
    expect(timestampsOf(again)[1]).toEqual(timestampsOf(made.bundle)[1]);
    expect(again.messageSignature).toEqual(made.bundle.messageSignature);
    expect(again.verificationMaterial.tlogEntries[0]!.canonicalizedBody).toBe(
      made.bundle.verificationMaterial.tlogEntries[0]!.canonicalizedBody,
    );
    await expect(sigstoreVerify(again, document, trust, 2)).resolves.toBeUndefined();
  });

  it("is a token openssl verifies over the signature against TSA_CA_FILE", async () => {
    const file = join(tsa.dir, "bundle-outside.tsr");
    writeFileSync(file, Buffer.from(timestampsOf(made.bundle)[1]!.signedTimestamp, "base64"));
    const signature = Buffer.from(made.bundle.messageSignature.signature, "base64");
    const digest = createHash("sha256").update(signature).digest("hex");
    const out = execFileSync(
      "openssl",
      ["ts", "-verify", "-digest", digest, "-in", file, "-CAfile", tsa.caFile],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    expect(out).toContain("Verification: OK");
  });

  it("is not asked for once the stamp's key is retired; bundles made before still verify", async () => {
    const before = "bundled before the rotation\n";
    const waiting = "stamped before the rotation, bundled after it\n";
    const early = await stampedBundle(svc, before);
    const { stamp_id: lateId } = await createStamp(svc, waiting);
    await svc.service.proofs.pipeline.tick();
    const { store, keys } = svc.service.ctx;
    const ports = { repo: store.keyRing, atRest: keys.atRest, clock: systemClock, overlapMs: 0 };
    for (const kind of ["service", "log", "tsa"] as const) await rotateKey(ports, kind);
    await keys.ring!.refresh();
    // The outside TSA's clock is this machine's: its next token is dated after the retirement.
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const trustNow = await publishedTrust(svc.baseUrl);
    const requests = front.requests;
    const late = await getJson<Bundle>(svc.baseUrl, `/stamps/${lateId}/sigstore`);
    expect(front.requests).toBe(requests);
    expect(timestampsOf(late)).toHaveLength(1);
    await expect(sigstoreVerify(late, waiting, trustNow, 1)).resolves.toBeUndefined();
    await expect(sigstoreVerify(late, waiting, trustNow, 2)).rejects.toThrow(/expected 2 timestamps, got 1/);
    // Why: the outside TSA's token of now, after the key's period, fails the bundle it joins.
    const signature = Buffer.from(late.messageSignature.signature, "base64");
    const digest = createHash("sha256").update(signature).digest();
    const { response } = await requestTimestamp(tsa.url, digest);
    const withLateToken = structuredClone(late);
    timestampsOf(withLateToken).push({ signedTimestamp: Buffer.from(response).toString("base64") });
    await expect(sigstoreVerify(withLateToken, waiting, trustNow, 1)).rejects.toThrow(
      /Public key is not valid for timestamp/,
    );

    const earlyAgain = await getJson<Bundle>(svc.baseUrl, `/stamps/${early.id}/sigstore`);
    expect(timestampsOf(earlyAgain)[1]).toEqual(timestampsOf(early.bundle)[1]);
    await expect(sigstoreVerify(early.bundle, before, trustNow, 2)).resolves.toBeUndefined();
    await expect(sigstoreVerify(earlyAgain, before, trustNow, 2)).resolves.toBeUndefined();
    await expect(sigstoreVerify(made.bundle, document, trustNow, 2)).resolves.toBeUndefined();

    const after = await stampedBundle(svc, "stamped after the rotation\n");
    expect(timestampsOf(after.bundle)).toHaveLength(2);
    await expect(
      sigstoreVerify(after.bundle, "stamped after the rotation\n", trustNow, 2),
    ).resolves.toBeUndefined();
  });

  it("leaves a kept outside token out once its key is revoked from before the token's time", async () => {
    const text = "its key revoked between the stamp and its outside token\n";
    const { stamp_id } = await createStamp(svc, text);
    await svc.service.proofs.pipeline.tick();
    // The outside token's second is then more than 0.5 s after the stamp's time.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const both = await getJson<Bundle>(svc.baseUrl, `/stamps/${stamp_id}/sigstore`);
    expect(timestampsOf(both)).toHaveLength(2);
    const { store, keys } = svc.service.ctx;
    const ports = { repo: store.keyRing, atRest: keys.atRest, clock: systemClock, overlapMs: 0 };
    const service = (await publishedTrust(svc.baseUrl)).ring.find(
      (k) => k.kind === "service" && k.state === "active",
    )!;
    // Between the stamp (and its built-in token) and the outside token, a second or more later.
    const at = new Date(
      Date.parse((await getJson<{ created_at: string }>(svc.baseUrl, `/stamps/${stamp_id}`)).created_at) +
        500,
    );
    await revokeKey(ports, "service", service.key_id, { reason: "test", at });
    await keys.ring!.refresh();

    const trustNow = await publishedTrust(svc.baseUrl);
    await expect(sigstoreVerify(both, text, trustNow, 1)).rejects.toThrow(
      /Public key is not valid for timestamp/,
    );
    const again = await getJson<Bundle>(svc.baseUrl, `/stamps/${stamp_id}/sigstore`);
    expect(timestampsOf(again)).toHaveLength(1);
    await expect(sigstoreVerify(again, text, trustNow, 1)).resolves.toBeUndefined();
  });
});

describe("an outside TSA that is down, slow or answers garbage", () => {
  let svc: RunningService;
  let front: TsaFront;
  const clock = new ManualClock(new Date());
  const timeoutMs = 1000;

  beforeAll(async () => {
    front = await new TsaFront(tsa).start();
    svc = await startService(
      {
        RATE_LIMIT_ENABLED: "false",
        TSA_URL: front.url,
        TSA_CA_FILE: tsa.caFile,
        TSA_BUNDLE_TIMEOUT_MS: String(timeoutMs),
      },
      { clock },
    );
  });
  afterAll(async () => {
    await svc?.close();
    await front?.stop();
  });
  afterEach(() => {
    front.mode = "pass";
    // Past the quiet period that follows a failure.
    clock.advance(31_000);
  });

  it.each(["down", "stall", "garbage"] as const)(
    "%s: the bundle is served at once with the built-in token, and a later request adds the outside one",
    async (mode) => {
      front.mode = mode;
      const document = `bundled while the outside TSA is ${mode}\n`;
      const startedAt = performance.now();
      const first = await stampedBundle(svc, document);
      expect(performance.now() - startedAt).toBeLessThan(timeoutMs + 5000);
      expect(timestampsOf(first.bundle)).toHaveLength(1);
      const trust = await publishedTrust(svc.baseUrl);
      await expect(sigstoreVerify(first.bundle, document, trust, 1)).resolves.toBeUndefined();

      // Back, but within the quiet period after the failure: not asked yet.
      front.mode = "pass";
      const requests = front.requests;
      const quiet = await getJson<Bundle>(svc.baseUrl, `/stamps/${first.id}/sigstore`);
      expect(timestampsOf(quiet)).toHaveLength(1);
      expect(front.requests).toBe(requests);

      clock.advance(31_000);
      const later = await getJson<Bundle>(svc.baseUrl, `/stamps/${first.id}/sigstore`);
      expect(timestampsOf(later)).toHaveLength(2);
      expect(later.verificationMaterial.tlogEntries[0]!.canonicalizedBody).toBe(
        first.bundle.verificationMaterial.tlogEntries[0]!.canonicalizedBody,
      );
      await expect(
        sigstoreVerify(later, document, await publishedTrust(svc.baseUrl), 2),
      ).resolves.toBeUndefined();
    },
  );
});

describe("outside tokens on PostgreSQL, two instances", { timeout: 120_000 }, () => {
  const hosts = new Hosts();
  afterAll(() => hosts.close());

  it("keep one outside token per stamp, served by either instance", async () => {
    const front = await new TsaFront(tsa).start();
    hosts.onClose(() => front.stop());
    const { url } = await hosts.schema();
    const env = {
      DATABASE_URL: url,
      DATA_DIR: hosts.folder(),
      TSA_URL: front.url,
      TSA_CA_FILE: tsa.caFile,
      TSA_BUNDLE_TIMEOUT_MS: "30000",
    };
    const a = await hosts.instance(env);
    const b = await hosts.instance(env);
    const document = "asked of both instances at once\n";
    const { stamp_id } = await createStamp(a, document);
    await a.service.proofs.pipeline.tick();
    const path = `/stamps/${stamp_id}/sigstore`;
    const [fromA, fromB] = await Promise.all([
      getJson<Bundle>(a.baseUrl, path),
      getJson<Bundle>(b.baseUrl, path),
    ]);
    const again = await getJson<Bundle>(a.baseUrl, path);
    // Both may have asked; one token was kept, and every later answer carries it.
    expect(timestampsOf(again)).toHaveLength(2);
    expect(timestampsOf(await getJson<Bundle>(b.baseUrl, path))[1]).toEqual(timestampsOf(again)[1]);
    for (const bundle of [fromA, fromB, again]) {
      await expect(
        sigstoreVerify(bundle, document, await publishedTrust(b.baseUrl), 2),
      ).resolves.toBeUndefined();
    }
  });
});
