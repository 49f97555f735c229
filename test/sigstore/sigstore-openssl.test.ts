import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpensslTsa } from "../anchors/openssl-tsa.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { codeBlocks, type Run, run, saidOnce, section, sigstoreDoc } from "./doc-blocks.js";
import { type Bundle, getJson } from "./sigstore-js.js";

/**
 * docs/sigstore.md's "Without Sigstore tools" run as written: its Python script and its shell
 * lines, with Debian's openssl and python3 alone checking a bundle (no stampd code and no Sigstore
 * library on the checking path; the service only stamps and serves the files). A genuine bundle
 * passes; a one-byte change in each piece fails at the line that checks that piece.
 */
const text = section(sigstoreDoc(), "Without Sigstore tools: openssl and a few lines of Python");
const [python, ...morePython] = codeBlocks(text, "python");
const [shell, ...moreShell] = codeBlocks(text, "sh");
const scriptFile = saidOnce(shell ?? "", /^python3 (\S+\.py) /m);
const lines = (shell ?? "").trim().split("\n");
const OK = ["inclusion proof OK", "Verified OK", "Verification: OK", "Signature Verified Successfully"];

const documents = [1, 2, 3, 4, 5].map((n) => `lease number ${n}, checked with openssl\n`);
const content = documents[1]!;
let svc: RunningService;
let bundle: Bundle;
let anchors: Anchors;
const dirs: string[] = [];

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  const ids: string[] = [];
  for (const document of documents) ids.push((await createStamp(svc, document)).stamp_id);
  await svc.service.proofs.pipeline.tick();
  // Each first GET appends its stamp to the stamp log; the second stamp's bundle asked again
  // proves it in a tree of five, so its inclusion proof has hashes to fold.
  for (const id of ids) await getJson(svc.baseUrl, `/stamps/${id}/sigstore`);
  bundle = await getJson<Bundle>(svc.baseUrl, `/stamps/${ids[1]}/sigstore`);
  anchors = await anchorsOf(svc);
});
afterAll(async () => {
  await svc?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The trusted root and the keys as the service serves them, byte for byte. */
interface Anchors {
  trustedRoot: string;
  keys: string;
}
async function anchorsOf(service: RunningService): Promise<Anchors> {
  const text = async (path: string) => (await fetch(`${service.baseUrl}${path}`)).text();
  return { trustedRoot: await text("/sigstore/trusted_root.json"), keys: await text("/keys") };
}

/** A folder holding what a verifier holds: the three files, the document and the doc's script. */
function verifierFolder(b: Bundle, document = content, script = python!, from = anchors): string {
  const dir = mkdtempSync(join(tmpdir(), "stampd-sigstore-openssl-"));
  dirs.push(dir);
  writeFileSync(join(dir, "stamp.sigstore.json"), JSON.stringify(b));
  writeFileSync(join(dir, "trusted_root.json"), from.trustedRoot);
  writeFileSync(join(dir, "keys.json"), from.keys);
  writeFileSync(join(dir, "contract.pdf"), document);
  writeFileSync(join(dir, scriptFile), script);
  return dir;
}

/** The doc's shell lines run in `dir` with bash, stopping at the first that fails. */
const runLines = (dir: string, which = lines): Promise<Run> =>
  run("bash", ["-e", "-o", "pipefail"], dir, which.join("\n"));

const said = (r: Run) => `${r.out}${r.err}`;

/** The bundle with one byte changed by `edit`. */
function changed(edit: (b: Bundle) => void): Bundle {
  const copy = structuredClone(bundle);
  edit(copy);
  return copy;
}
/** `base64` with the byte at `at` (from the end when negative) flipped. */
function flip(base64: string, at: number): string {
  const bytes = Buffer.from(base64, "base64");
  bytes[(at + bytes.length) % bytes.length]! ^= 0x01;
  return bytes.toString("base64");
}
const proofOf = (b: Bundle) => b.verificationMaterial.tlogEntries[0]!.inclusionProof;
const tokenOf = (b: Bundle) => b.verificationMaterial.timestampVerificationData.rfc3161Timestamps[0]!;
/** `token` with a byte of its message imprint (the SHA-256 of `signature`'s bytes) flipped. */
function flipImprint(token: string, signature = bundle.messageSignature.signature): string {
  const der = Buffer.from(token, "base64");
  const imprint = createHash("sha256").update(Buffer.from(signature, "base64")).digest();
  const at = der.indexOf(imprint);
  expect(at).toBeGreaterThan(0);
  return flip(token, at + 5);
}

describe("docs/sigstore.md, Without Sigstore tools, run as written", () => {
  it("the bundle's proof has hashes to fold (a tree of five)", () => {
    expect(bundle.messageSignature.messageDigest.algorithm).toBe("SHA2_256");
    expect(proofOf(bundle).hashes.length).toBeGreaterThanOrEqual(2);
    expect(lines).toHaveLength(4);
    expect(morePython).toEqual([]);
    expect(moreShell).toEqual([]);
  });

  it("every line prints its OK for the genuine bundle and its document", async () => {
    const r = await runLines(verifierFolder(bundle));
    expect(r, said(r)).toMatchObject({ code: 0 });
    for (const ok of OK) expect(r.out).toContain(ok);
  });

  it("fails for the genuine bundle if the doc's script folded the proof wrong", async () => {
    const wrong = python!.replace('b"\\1" + p + h', 'b"\\1" + h + p');
    expect(wrong).not.toBe(python);
    const r = await runLines(verifierFolder(bundle, content, wrong));
    expect(r.code).not.toBe(0);
    expect(said(r)).toMatch(/not in the checkpoint's tree/);
  });

  it.each<[string, () => { b?: Bundle; document?: string }, RegExp]>([
    ["the document", () => ({ document: `${content}!` }), /not the document's SHA-256/],
    [
      "the message signature",
      () => ({ b: changed((b) => (b.messageSignature.signature = flip(b.messageSignature.signature, 20))) }),
      /the entry names another signature/,
    ],
    [
      "the log entry's body",
      () => ({
        b: changed((b) => {
          const entry = b.verificationMaterial.tlogEntries[0]!;
          const body = Buffer.from(entry.canonicalizedBody, "base64").toString().replace("0.0.2", "0.0.3");
          entry.canonicalizedBody = Buffer.from(body).toString("base64");
        }),
      }),
      /not in the checkpoint's tree/,
    ],
    [
      "a hash of the inclusion proof",
      () => ({ b: changed((b) => (proofOf(b).hashes[0] = flip(proofOf(b).hashes[0]!, 7))) }),
      /not in the checkpoint's tree/,
    ],
    [
      "the checkpoint's root hash",
      () => ({
        b: changed((b) => {
          const [origin, size, root, ...rest] = proofOf(b).checkpoint.envelope.split("\n");
          proofOf(b).checkpoint.envelope = [origin, size, flip(root!, 0), ...rest].join("\n");
        }),
      }),
      /not in the checkpoint's tree/,
    ],
    [
      "the checkpoint's signature",
      () => ({
        b: changed((b) => {
          const envelope = proofOf(b).checkpoint.envelope.trimEnd().split(" ");
          envelope.push(`${flip(envelope.pop()!, -9)}\n`);
          proofOf(b).checkpoint.envelope = envelope.join(" ");
        }),
      }),
      /Signature Verification Failure/,
    ],
    [
      "the RFC 3161 token's imprint",
      () => ({ b: changed((b) => (tokenOf(b).signedTimestamp = flipImprint(tokenOf(b).signedTimestamp))) }),
      /Verification: FAILED[\s\S]*digest failure/,
    ],
    [
      "the RFC 3161 token's signature",
      () => ({ b: changed((b) => (tokenOf(b).signedTimestamp = flip(tokenOf(b).signedTimestamp, -9))) }),
      /Verification: FAILED[\s\S]*PKCS7_signatureVerify:signature failure/,
    ],
  ])("fails for one byte changed in %s", async (_, given, failure) => {
    const { b = bundle, document = content } = given();
    const r = await runLines(verifierFolder(b, document));
    expect(r.code, said(r)).not.toBe(0);
    expect(said(r)).toMatch(failure);
  });

  // The script checks first that the log entry names the bundle's signature and the document's
  // digest, so a changed signature or document stops there; the openssl lines catch them as well.
  it.each<[string, number, string, number, RegExp]>([
    ["the document", 1, "contract.pdf", 3, /Verification failure/],
    ["the signature", 1, "sig.der", 20, /Verification failure/],
    ["the signature (the token's data)", 2, "sig.der", 20, /message imprint mismatch/],
    ["the checkpoint's text", 3, "checkpoint.txt", -5, /Signature Verification Failure/],
  ])("openssl alone fails for one byte changed in %s", async (_, line, file, at, failure) => {
    const dir = verifierFolder(bundle);
    expect((await runLines(dir)).code).toBe(0);
    const bytes = readFileSync(join(dir, file));
    bytes[(at + bytes.length) % bytes.length]! ^= 0x01;
    writeFileSync(join(dir, file), bytes);
    const r = await runLines(dir, [lines[line]!]);
    expect(r.code, said(r)).not.toBe(0);
    expect(said(r)).toMatch(failure);
  });
});

describe("a bundle with an outside TSA's token (TSA_URL, TSA_CA_FILE), as the doc says", () => {
  const document = "a deed dated by two authorities, checked with openssl\n";
  let tsa: OpensslTsa;
  let outside: RunningService;
  let two: Bundle;
  let twoAnchors: Anchors;

  beforeAll(async () => {
    tsa = await new OpensslTsa().start();
    outside = await startService({
      RATE_LIMIT_ENABLED: "false",
      TSA_URL: tsa.url,
      TSA_CA_FILE: tsa.caFile,
      // openssl starts a process per token: on a loaded machine the default 3 s can pass, and the
      // bundle would go without the token this test is about.
      TSA_BUNDLE_TIMEOUT_MS: "30000",
    });
    const { stamp_id } = await createStamp(outside, document);
    await outside.service.proofs.pipeline.tick();
    two = await getJson<Bundle>(outside.baseUrl, `/stamps/${stamp_id}/sigstore`);
    twoAnchors = await anchorsOf(outside);
  });
  afterAll(async () => {
    await outside?.close();
    await tsa?.stop();
  });

  it("tsr1.der checks the same way as tsr0.der, and fails for one byte changed in its imprint", async () => {
    expect(two.verificationMaterial.timestampVerificationData.rfc3161Timestamps).toHaveLength(2);
    const dir = verifierFolder(two, document, python!, twoAnchors);
    const all = await runLines(dir);
    expect(all, said(all)).toMatchObject({ code: 0 });
    const tsLine = lines[2]!.replace("tsr0.der", "tsr1.der");
    expect(tsLine).not.toBe(lines[2]);
    const ok = await runLines(dir, [tsLine]);
    expect(ok, said(ok)).toMatchObject({ code: 0 });
    expect(ok.out).toContain("Verification: OK");
    const token = readFileSync(join(dir, "tsr1.der")).toString("base64");
    writeFileSync(
      join(dir, "tsr1.der"),
      Buffer.from(flipImprint(token, two.messageSignature.signature), "base64"),
    );
    const changedToken = await runLines(dir, [tsLine]);
    expect(changedToken.code).not.toBe(0);
    expect(said(changedToken)).toMatch(/Verification: FAILED[\s\S]*digest failure/);
  });
});
