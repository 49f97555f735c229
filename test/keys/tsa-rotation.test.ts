import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ringTsaCaPem } from "../../core/key-ring.js";
import type { components } from "../../gen/openapi/types.js";
import {
  createClient,
  fetchProofBundle,
  TimestampTokenError,
  verifyProofBundle,
  verifyTimestampToken,
} from "../../sdk/src/index.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createSchema } from "../store/postgres.js";

type Schemas = components["schemas"];
type RingKey = Schemas["RingKey"];

const root = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "stampd-tsa-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A service on the real clock: its TSA certificates are valid from an hour before they are made. */
async function instance(env: Record<string, string>): Promise<RunningService> {
  const svc = await startService({ RATE_LIMIT_ENABLED: "false", ...env });
  cleanup.push(() => svc.close());
  return svc;
}

/** `stampd …` against the service's store, configured as the service is. */
async function stampd(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ["bin/stampd.js", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "silent", ...env },
  });
  return stdout;
}

interface Stamped {
  id: string;
  hash: string;
  createdAt: string;
  document: string;
}

/** A confirmed stamp of `text` over REST, the document saved in `dir`. */
async function stamp(svc: RunningService, dir: string, text: string): Promise<Stamped> {
  const form = new FormData();
  form.append("file", new Blob([text]), "document.txt");
  const res = await fetch(`${svc.baseUrl}/stamps`, { method: "POST", body: form });
  expect(res.status).toBe(201);
  const body = (await res.json()) as Schemas["StampResponse"];
  await svc.service.proofs.pipeline.tick();
  const document = join(dir, `${body.stamp_id}.txt`);
  writeFileSync(document, text);
  return { id: body.stamp_id, hash: body.document_hash, createdAt: body.created_at, document };
}

async function token(svc: RunningService, id: string): Promise<Uint8Array> {
  const res = await fetch(`${svc.baseUrl}/stamps/${id}/timestamp.tsr`);
  if (res.status !== 200) throw new Error(`timestamp.tsr answered ${res.status}: ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

const ring = async (svc: RunningService): Promise<RingKey[]> =>
  ((await (await fetch(`${svc.baseUrl}/keys`)).json()) as Schemas["KeyRing"]).keys;
const tsaKeys = (keys: RingKey[]) => keys.filter((k) => k.kind === "tsa");
const caBundle = async (svc: RunningService) => (await fetch(`${svc.baseUrl}/tsa/ca.pem`)).text();

/** `openssl ts -verify -data <document> -in <reply> -CAfile <bundle>`: its output or its errors. */
function opensslVerify(dir: string, document: string, reply: Uint8Array, caPem: string): string {
  const [tsr, ca] = [join(dir, "reply.tsr"), join(dir, "ca.pem")];
  writeFileSync(tsr, reply);
  writeFileSync(ca, caPem);
  try {
    return execFileSync("openssl", ["ts", "-verify", "-data", document, "-in", tsr, "-CAfile", ca], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    return `${(err as { stdout: string }).stdout}${(err as { stderr: string }).stderr}`;
  }
}

/** The SHA-256 of the certificate that signed a token (its ESSCertIDv2), the token verified with the ring. */
const certificateOf = async (reply: Uint8Array, s: Stamped, keys: RingKey[]) =>
  (await verifyTimestampToken(reply, "sha3-256", s.hash, ringTsaCaPem(keys), { keyRing: keys }))
    .certificateHash;

// openssl is there: the test run provides it or stops (test/environment/global-setup.ts).
describe("TSA rotation", () => {
  it("keeps tokens of stamps from before `stampd keys rotate --kind tsa` on their certificate; all verify with openssl, the SDK and stampd verify", async () => {
    const dir = folder();
    const env = { DATA_DIR: folder(), KEY_RING_REFRESH_SECONDS: "30" };
    const svc = await instance(env);
    const before = await stamp(svc, dir, "signed before the TSA rotation\n");
    const oldReply = await token(svc, before.id);

    const out = JSON.parse(await stampd(env, "keys", "rotate", "--kind", "tsa", "--json")) as {
      active: RingKey;
      retired: RingKey;
    };
    expect(out.active).toMatchObject({ kind: "tsa", state: "active" });
    expect(out.retired).toMatchObject({ kind: "tsa", state: "retired" });
    // What the periodic re-read (every KEY_RING_REFRESH_SECONDS) does.
    await svc.service.ctx.keys.ring!.refresh();
    const after = await stamp(svc, dir, "signed after the TSA rotation\n");

    const keys = await ring(svc);
    expect(tsaKeys(keys).map((k) => [k.key_id, k.state])).toEqual([
      [out.retired.key_id, "retired"],
      [out.active.key_id, "active"],
    ]);
    const bundle = await caBundle(svc);
    expect(bundle).toBe(ringTsaCaPem(keys));
    expect(bundle.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);

    // The old stamp's token, issued again now, is signed by the old certificate: it is the key of its time.
    const reissued = await token(svc, before.id);
    const newReply = await token(svc, after.id);
    expect(await certificateOf(reissued, before, keys)).toBe(await certificateOf(oldReply, before, keys));
    expect(await certificateOf(newReply, after, keys)).not.toBe(await certificateOf(oldReply, before, keys));

    for (const [s, reply] of [
      [before, oldReply],
      [before, reissued],
      [after, newReply],
    ] as const) {
      expect(opensslVerify(dir, s.document, reply, bundle)).toContain("Verification: OK");
      const verified = await verifyTimestampToken(reply, "sha3-256", s.hash, ringTsaCaPem(keys), {
        keyRing: keys,
      });
      expect(verified.genTime.toISOString()).toBe(s.createdAt);
    }
    // Each token chains to its own CA only: the bundle is what a verifier needs.
    const [oldCa, newCa] = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g)!;
    expect(opensslVerify(dir, before.document, oldReply, newCa!)).toContain("Verification: FAILED");
    expect(opensslVerify(dir, after.document, newReply, oldCa!)).toContain("Verification: FAILED");

    // Proof bundles of both, verified offline with the saved ring by the SDK and by stampd verify.
    const client = createClient({ baseUrl: svc.baseUrl, maxRetries: 0 });
    writeFileSync(join(dir, "keys.json"), JSON.stringify({ keys }));
    for (const s of [before, after]) {
      const proofBundle = await fetchProofBundle(client, s.id, { serviceUrl: svc.baseUrl });
      const check = await verifyProofBundle(proofBundle, { keyRing: keys });
      expect(check.pieces.find((p) => p.name === "rfc3161 timestamp")).toMatchObject({
        status: "valid",
        detail: expect.stringContaining("a TSA key of the deployment's key ring, in its period"),
      });
      const file = join(dir, `${s.id}.stampd.json`);
      writeFileSync(file, JSON.stringify(proofBundle));
      const printed = await stampd(env, "verify", file, s.document, "--key-ring", join(dir, "keys.json"));
      expect(printed).toContain(`stamp ${s.id}: VALID`);
      expect(printed).toMatch(/rfc3161 timestamp\s+valid/);
    }
  });

  it("takes an operator's certificate and key (--cert-file, --key-file), refusing one that is not for time-stamping", async () => {
    const dir = folder();
    const env = { DATA_DIR: folder() };
    const svc = await instance(env);
    const ca = operatorCa(dir);
    const wrong = operatorCert(dir, ca, "wrong", "serverAuth");
    const refused = await stampd(
      env,
      "keys",
      "rotate",
      "--kind",
      "tsa",
      "--cert-file",
      wrong.cert,
      "--key-file",
      wrong.key,
    ).then(
      () => "",
      (err: { stderr: string }) => err.stderr,
    );
    expect(refused).toContain("extendedKeyUsage is not timeStamping alone, critical");
    expect(tsaKeys(await ring(svc))).toHaveLength(1);

    const tsa = operatorCert(dir, ca, "tsa", "critical,timeStamping");
    await stampd(env, "keys", "rotate", "--kind", "tsa", "--cert-file", tsa.cert, "--key-file", tsa.key);
    await svc.service.ctx.keys.ring!.refresh();
    const s = await stamp(svc, dir, "signed by the operator's TSA\n");
    const reply = await token(svc, s.id);
    const bundle = await caBundle(svc);
    expect(opensslVerify(dir, s.document, reply, bundle)).toContain("Verification: OK");
    const keys = await ring(svc);
    const verified = await verifyTimestampToken(reply, "sha3-256", s.hash, ringTsaCaPem(keys), {
      keyRing: keys,
    });
    expect(verified.signer).toBe("operator TSA");
  });

  it("is honoured by a second instance once it re-reads the ring", async () => {
    const schema = await createSchema();
    cleanup.push(() => schema.drop());
    const dir = folder();
    const env = { DATABASE_URL: schema.url, DATA_DIR: folder(), KEY_RING_REFRESH_SECONDS: "30" };
    const a = await instance(env);
    const b = await instance(env);
    const before = await stamp(b, dir, "before, on B\n");
    const { active } = JSON.parse(await stampd(env, "keys", "rotate", "--kind", "tsa", "--json")) as {
      active: RingKey;
    };
    // B has not re-read the ring: it still serves the CA it knew and signs with the key it knew.
    expect((await caBundle(b)).match(/BEGIN CERTIFICATE/g)).toHaveLength(1);
    await b.service.ctx.keys.ring!.refresh();
    const keys = await ring(b);
    expect(tsaKeys(keys).find((k) => k.state === "active")!.key_id).toBe(active.key_id);
    const bundle = await caBundle(b);
    expect(bundle.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    const after = await stamp(a, dir, "after, on A\n");
    const reply = await token(b, after.id);
    const activeCert = active.public_key.match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/,
    )![0];
    const der = Buffer.from(activeCert.replace(/-----[^-]+-----|\s/g, ""), "base64");
    expect(await certificateOf(reply, after, keys)).toBe(createHash("sha256").update(der).digest("hex"));
    expect(opensslVerify(dir, after.document, reply, bundle)).toContain("Verification: OK");
    expect(opensslVerify(dir, before.document, await token(b, before.id), bundle)).toContain(
      "Verification: OK",
    );
  });

  it("fails the tokens a revoked TSA key signed from its revocation on, with the reason, and issues no new ones", async () => {
    const dir = folder();
    const env = { DATA_DIR: folder() };
    const svc = await instance(env);
    const early = await stamp(svc, dir, "before the compromise\n");
    const late = await stamp(svc, dir, "after the compromise\n");
    expect(early.createdAt < late.createdAt).toBe(true);
    const [earlyReply, lateReply] = [await token(svc, early.id), await token(svc, late.id)];
    const [old] = tsaKeys(await ring(svc));
    await stampd(
      env,
      "keys",
      "revoke",
      old!.key_id,
      "--kind",
      "tsa",
      "--reason",
      "key leaked",
      "--at",
      late.createdAt,
    );
    await svc.service.ctx.keys.ring!.refresh();
    const keys = await ring(svc);
    expect(tsaKeys(keys).map((k) => k.state)).toEqual(["revoked", "active"]);

    const caPem = ringTsaCaPem(keys);
    await expect(
      verifyTimestampToken(earlyReply, "sha3-256", early.hash, caPem, { keyRing: keys }),
    ).resolves.toMatchObject({ genTime: new Date(early.createdAt) });
    const failure = verifyTimestampToken(lateReply, "sha3-256", late.hash, caPem, { keyRing: keys });
    await expect(failure).rejects.toThrow(TimestampTokenError);
    await expect(failure).rejects.toThrow(
      `tsa key ${old!.key_id} was revoked at ${late.createdAt} (key leaked): what it signed from then on is not trusted (signed at ${late.createdAt})`,
    );
    // The service gives no new token for a time only the revoked key covered.
    const res = await fetch(`${svc.baseUrl}/stamps/${late.id}/timestamp.tsr`);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      code: "timestamp_key_revoked",
      detail: expect.stringContaining(
        `TSA key ${old!.key_id}, whose period holds it, was revoked at ${late.createdAt}`,
      ),
    });
    // The earlier stamp's token is still issued, by the revoked key, as it was valid then.
    expect(opensslVerify(dir, early.document, await token(svc, early.id), await caBundle(svc))).toContain(
      "Verification: OK",
    );
  });
});

/** A CA of the operator's own (openssl req), key and certificate in `dir`. */
function operatorCa(dir: string): { cert: string; key: string } {
  const [cert, key] = [join(dir, "ca.crt"), join(dir, "ca.key")];
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "30",
      "-subj",
      "/CN=operator CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign",
    ],
    { stdio: "ignore" },
  );
  return { cert, key };
}

/** A P-256 certificate the operator's CA issues with extendedKeyUsage `usage`; the file holds it then the CA. */
function operatorCert(dir: string, ca: { cert: string; key: string }, name: string, usage: string) {
  const [key, csr, cert, ext] = ["key", "csr", "crt", "ext"].map((e) => join(dir, `${name}.${e}`));
  writeFileSync(ext!, `extendedKeyUsage=${usage}\nkeyUsage=critical,digitalSignature\n`);
  execFileSync(
    "openssl",
    [
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      key!,
      "-out",
      csr!,
      "-subj",
      "/CN=operator TSA",
    ],
    { stdio: "ignore" },
  );
  execFileSync(
    "openssl",
    [
      "x509",
      "-req",
      "-in",
      csr!,
      "-CA",
      ca.cert,
      "-CAkey",
      ca.key,
      "-CAcreateserial",
      "-days",
      "30",
      "-extfile",
      ext!,
      "-out",
      cert!,
    ],
    { stdio: "ignore" },
  );
  const chain = join(dir, `${name}.chain.pem`);
  writeFileSync(chain, `${readText(cert!)}${readText(ca.cert)}`);
  return { cert: chain, key: key! };
}

const readText = (path: string) => readFileSync(path, "utf8");
