import type { Readable } from "node:stream";
import { type ContentHash, formatContentHash } from "../../core/content-hash.js";
import type { VerifyResult } from "../../core/types.js";
import type { Clock } from "../clock.js";
import { notFound, ServiceError, unavailable } from "../errors.js";
import type { EventBus } from "../events/bus.js";
import { hashStreamMany } from "../hashing/hash-stream.js";
import type { IdentityService } from "../identities/identity-service.js";
import type { Signer } from "../keys/ed25519.js";
import type { DeploymentKeyRing } from "../keys/key-ring.js";
import { pinnedSigner } from "../keys/rotating-signer.js";
import { type Annotations, normalizeAnnotations } from "./annotations.js";
import { BatchProgress } from "./batch-progress.js";
import { type StampFingerprinter, tee } from "./fingerprinter.js";
import {
  type BatchDraft,
  draftBatch,
  type IssuedDocument,
  issueDocument,
  type StampFacts,
  type StampFingerprint,
  signDrafts,
} from "./stamp-document.js";
import { type EvidenceSource, initialEvidence, type StampEvidence } from "./stamp-evidence.js";
import { newStampId } from "./stamp-id.js";
import type { StampRepository, StoredStamp } from "./stamp-repository.js";
import { resolveSettings, type StampChoices, type StampSettings } from "./stamp-settings.js";
import { type StampView, viewOf } from "./stamp-view.js";
import { type ServiceKeyTrust, verifyDocument, verifyStored } from "./verification.js";

/** Who asks for a stamp and with which identity (REST, gRPC and WebSocket alike). */
export interface StampCaller {
  /** The caller's account; null for an anonymous caller (who cannot sign with an identity). */
  accountId: string | null;
  /** Sign with this identity of the caller's account. */
  identityId?: string;
}

export type UploadStampRequest = StampCaller & StampChoices & Annotations;

/** What reading an upload depends on: the resolved `generate_fp` (`uploadReadSettings`). */
export interface UploadReadSettings {
  generateFp: boolean;
}

/** The settings an upload is read with for these choices (explicit > preset > default). */
export const uploadReadSettings = (choices: StampChoices): UploadReadSettings => ({
  generateFp: resolveSettings(choices).generateFp,
});

/** An uploaded document as stamping needs it: read, not yet stamped. */
export interface UploadDigest {
  /** SHA3-256, lowercase hex: the stamp's document hash. */
  sha3: string;
  /** SHA-256, lowercase hex, from the same read: what its Sigstore bundle carries (docs/sigstore.md). */
  sha256: string;
  size: number;
  fingerprint: { summary: StampFingerprint; document: unknown } | null;
}

/**
 * A stamp of a hash the client computed (gRPC CreateStamp, BatchStamp and StreamStamps, WebSocket
 * stamp), parsed once by the transport that received it as its contract writes it.
 */
export type HashStampRequest = StampCaller &
  Omit<StampChoices, "preset" | "generateFp"> &
  Annotations & { contentHash: ContentHash };

export interface BatchOptions {
  /** Make nothing after the first refused request (StreamStamps, whose first refusal ends the call). */
  stopAtRefusal?: boolean;
  /** Reports the items processed as the batch is made; its caller sends the last event once stored. */
  progress?: BatchProgress;
}

export interface VerifyOptions {
  /** The hash of the original document, to compare with the stamp's. */
  contentHash?: ContentHash;
}

export interface StampServiceDeps {
  stamps: StampRepository;
  identities: IdentityService;
  /** The service's own signing key. */
  signing: Signer;
  /**
   * The deployment's key ring, whose keys verification trusts and which vouches for the signing
   * key before a stamp is answered; absent: `signing`'s key only.
   */
  ring?: Pick<DeploymentKeyRing, "entries" | "knowing" | "vouches">;
  clock: Clock;
  events: EventBus;
  /** The fingerprint engine; without it `generate_fp` answers 501. */
  fingerprinter?: StampFingerprinter;
  /** Live anchor states and batch proofs (server/proofs); without it every anchor reads pending. */
  evidence?: EvidenceSource;
}

interface IssueInput {
  request: StampCaller;
  createdAt: Date;
  settings: StampSettings;
  annotations: Annotations;
  author: Signer | null;
  hash: ContentHash;
  sizeBytes: number | null;
  fingerprint: { summary: StampFingerprint; document: unknown } | null;
  /** An upload's SHA-256 (stored beside the stamp, not signed in it); null for a stamp of a hash. */
  contentSha256: string | null;
}

/**
 * What an upload is hashed with, in one read on the hashing thread: SHA3-256, the stamp's
 * algorithm, and SHA-256, which every Sigstore client accepts for the stamp's bundle
 * (bench/README.md "SHA-256 beside an upload's SHA3-256" has the cost).
 */
const UPLOAD_DIGESTS = ["sha3-256", "sha256"] as const;

/** Rounds of signing a stamp again after its key was revoked before the stamp is answered with 503. */
const MAX_SIGNING_ROUNDS = 3;

/** A refusal (bad input, unknown identity) is one item's result; anything else is the whole call's failure. */
function refusalOnly(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  throw err;
}

function refusalOr<T>(build: () => T): T | ServiceError {
  try {
    return build();
  } catch (err) {
    return refusalOnly(err);
  }
}

/** What the document states; the id's time part is the stamp's creation time. */
function factsOf(input: IssueInput): StampFacts {
  return {
    id: newStampId(input.createdAt),
    createdAt: input.createdAt,
    hash: input.hash,
    sizeBytes: input.sizeBytes,
    settings: input.settings,
    fingerprint: input.fingerprint?.summary ?? null,
    annotations: input.annotations,
  };
}

function stored(input: IssueInput, { document, json }: IssuedDocument): StoredStamp {
  return {
    id: document.stamp_id,
    accountId: input.request.accountId,
    identityId: input.author ? (input.request.identityId ?? null) : null,
    status: "pending",
    document,
    json,
    fingerprint: input.fingerprint?.document ?? null,
    contentSha256: input.contentSha256,
  };
}

/** Stamps, as every transport uses them: creation, lookup and verification. */
export class StampService {
  constructor(private readonly deps: StampServiceDeps) {}

  /**
   * Reads an uploaded document: its SHA3-256 and SHA-256 digests and, with `generateFp`, its
   * fingerprint, in one pass as it streams. No side effects (the stamp is made by `createFromUpload`), so a
   * transport may read before it knows the whole request. Without a fingerprint engine,
   * `generateFp` answers 501 before the first byte is read.
   */
  async readUpload(file: Readable, { generateFp }: UploadReadSettings): Promise<UploadDigest> {
    const fingerprinter = generateFp ? this.requireFingerprinter() : null;
    const { digest, fingerprint } = await this.read(file, fingerprinter);
    const { hashes, size } = digest;
    return { sha3: hashes["sha3-256"]!, sha256: hashes.sha256!, size, fingerprint };
  }

  /**
   * Refuses a caller who may not stamp with their identity (unknown identity, another account's,
   * no key), without making anything: lets a transport refuse before it reads an upload.
   */
  async checkCaller(caller: StampCaller): Promise<void> {
    await this.authorOf(caller);
  }

  /**
   * Stamps a document `readUpload` read with the request's own read settings (a digest without
   * the fingerprint the settings ask for is a caller's bug, not the client's).
   */
  async createFromUpload(upload: UploadDigest, request: UploadStampRequest): Promise<StampView> {
    const settings = resolveSettings(request);
    if (settings.generateFp !== (upload.fingerprint !== null)) {
      throw new Error("the upload was read with other settings than the request's");
    }
    const annotations = normalizeAnnotations(request);
    const author = await this.authorOf(request);
    const hash: ContentHash = { algorithm: "sha3-256", hex: upload.sha3 };
    return this.commit((createdAt) =>
      this.draft({
        request,
        createdAt,
        settings,
        annotations,
        author,
        hash,
        sizeBytes: upload.size,
        fingerprint: upload.fingerprint,
        contentSha256: upload.sha256,
      }),
    );
  }

  /**
   * The `batch_progress` events of a batch of `total` items (gRPC BatchStamp, or a StreamStamps
   * call given a batch id, whose total grows as its requests arrive), published by this domain on
   * its event bus: pass it to `createManyFromHash` and `finish` it once the batch's stamps are stored.
   */
  trackBatch(batch: { id: string; accountId: string | null }, total: number, step?: number): BatchProgress {
    return new BatchProgress(this.deps.events, batch, total, step);
  }

  /** Stamps a client-supplied hash; no document, so no size and no fingerprint. */
  async createFromHash(request: HashStampRequest): Promise<StampView> {
    const author = await this.authorOf(request);
    return this.commit((createdAt) => this.draft({ ...this.inputFromHash(request, createdAt), author }));
  }

  /**
   * Stamps many client-supplied hashes made together (gRPC BatchStamp, StreamStamps), all at one
   * instant. An item the domain refuses comes back as its ServiceError, in its place, and does not
   * stop the others. The valid ones are signed by one service signature over their Merkle root
   * (`signatures.service_batch`), stored in one transaction (one durable write instead of one per
   * stamp) and announced after it commits. With `stopAtRefusal` (StreamStamps, whose first bad
   * request ends the call) nothing after the first refusal is made: the results end with it.
   * `progress` counts refused items as processed at once and valid ones as they are drafted; its
   * last event (100 %) is the caller's to send once this has resolved, the stamps stored.
   */
  async createManyFromHash(
    requests: HashStampRequest[],
    { stopAtRefusal = false, progress }: BatchOptions = {},
  ): Promise<Array<StampView | ServiceError>> {
    const { valid, results } = await this.batchInputs(requests, stopAtRefusal);
    progress?.advance(results.length - valid.length);
    // Made again, for a new time, only when the key was revoked meanwhile (progress reported once).
    let round = 0;
    const stamps = await this.storeVouched((createdAt) =>
      round++ === 0
        ? this.draftBatch(valid, progress)
        : this.draftBatch(valid.map((v) => ({ ...v, createdAt }))),
    );
    for (const stamp of stamps) this.announce(stamp);
    let next = 0;
    return results.map((r) => r ?? this.newView(stamps[next++]!));
  }

  /** The stamp with its live state; 404 `stamp_not_found`. */
  async get(id: string): Promise<StampView> {
    const stamp = await this.find(id);
    return viewOf(stamp, await this.evidenceOf(stamp));
  }

  /** Verifies a stamp this service stores, optionally against the original document's hash. */
  async verifyById(id: string, options: VerifyOptions = {}): Promise<VerifyResult> {
    return (await this.inspect(id, options)).result;
  }

  /**
   * The stamp's view and its verification from one reading of its evidence, so what a page or a
   * call shows of both (status, anchors, score) cannot disagree.
   */
  async inspect(id: string, options: VerifyOptions = {}): Promise<{ view: StampView; result: VerifyResult }> {
    const stamp = await this.find(id);
    const evidence = await this.evidenceOf(stamp);
    const result = await verifyStored(stamp, evidence, await this.trust(stamp.document), options.contentHash);
    return { view: viewOf(stamp, evidence), result };
  }

  /** Verifies a stamp document as a third party holds it (any value: a bad one is reported, not thrown). */
  async verifyDocument(stampJson: unknown, options: VerifyOptions = {}): Promise<VerifyResult> {
    return verifyDocument(
      stampJson,
      this.deps.stamps,
      (stamp) => this.evidenceOf(stamp),
      await this.trust(stampJson),
      options.contentHash,
    );
  }

  /** The keys to trust for a stamp: the ring, re-read first if another instance rotated to its key. */
  private async trust(stampJson: unknown): Promise<ServiceKeyTrust> {
    const { ring, signing } = this.deps;
    if (!ring) return { trustedServiceKeys: [signing.publicKey] };
    const key = (stampJson as { service_public_key?: unknown } | null)?.service_public_key;
    return { keyRing: typeof key === "string" ? await ring.knowing(key) : ring.entries };
  }

  private evidenceOf(stamp: StoredStamp): Promise<StampEvidence> {
    return this.deps.evidence?.of(stamp) ?? Promise.resolve(initialEvidence(stamp));
  }

  /** A stamp just made: no batch holds it yet, so its evidence is known without reading any. */
  private newView(stamp: StoredStamp): StampView {
    return viewOf(stamp, this.deps.evidence?.initial(stamp) ?? initialEvidence(stamp));
  }

  private async find(id: string): Promise<StoredStamp> {
    const stamp = await this.deps.stamps.get(id);
    if (!stamp) throw notFound(`stamp ${id} not found`, "stamp_not_found");
    return stamp;
  }

  private authorOf(caller: StampCaller): Promise<Signer | null> {
    if (caller.identityId === undefined) return Promise.resolve(null);
    return this.deps.identities.signerFor(caller.identityId, caller.accountId);
  }

  private requireFingerprinter(): StampFingerprinter {
    if (this.deps.fingerprinter) return this.deps.fingerprinter;
    throw new ServiceError(
      "not_implemented",
      "fingerprints are not available in this deployment yet; stamp with generate_fp=false",
      "not_implemented",
    );
  }

  private async read(file: Readable, fingerprinter: StampFingerprinter | null) {
    if (!fingerprinter) return { digest: await hashStreamMany(file, UPLOAD_DIGESTS), fingerprint: null };
    const [forHash, forFingerprint] = tee(file);
    const [digest, fingerprint] = await Promise.all([
      hashStreamMany(forHash, UPLOAD_DIGESTS),
      fingerprinter.fingerprint(forFingerprint),
    ]);
    return { digest, fingerprint };
  }

  /**
   * The batch's items checked, all at one instant: `results` holds each item's refusal or null
   * (made), in order; `valid` the items to make.
   */
  private async batchInputs(requests: HashStampRequest[], stopAtRefusal: boolean) {
    const createdAt = this.deps.clock.now();
    const inputs = requests.map((request) => refusalOr(() => this.inputFromHash(request, createdAt)));
    const authors = await this.batchAuthors(inputs);
    const valid: IssueInput[] = [];
    const results: Array<ServiceError | null> = [];
    for (const [i, input] of inputs.entries()) {
      const author = authors?.[i] ?? null;
      if (input instanceof ServiceError || author instanceof ServiceError) {
        results.push(input instanceof ServiceError ? input : (author as ServiceError));
        if (stopAtRefusal) break;
      } else {
        results.push(null);
        valid.push({ ...input, author });
      }
    }
    return { valid, results };
  }

  /**
   * Each input's author key, or its refusal; null when no input names an identity (bulk stamping's
   * usual case), which spares a promise per item.
   */
  private async batchAuthors(inputs: ReadonlyArray<Omit<IssueInput, "author"> | ServiceError>) {
    const named = (input: (typeof inputs)[number]) =>
      !(input instanceof ServiceError) && input.request.identityId !== undefined;
    if (!inputs.some(named)) return null;
    return Promise.all(
      inputs.map((input) =>
        named(input) ? this.authorOf((input as IssueInput).request).catch(refusalOnly) : null,
      ),
    );
  }

  /** Everything about a stamp of a hash but its author's key; throws the domain's refusal. */
  private inputFromHash(request: HashStampRequest, createdAt: Date): Omit<IssueInput, "author"> {
    return {
      request,
      createdAt,
      hash: request.contentHash,
      settings: resolveSettings(request),
      annotations: normalizeAnnotations(request),
      sizeBytes: null,
      fingerprint: null,
      contentSha256: null,
    };
  }

  /** Stores and announces the stamp `make` signs for a time (now, see storeVouched). */
  private async commit(make: (createdAt: Date) => StoredStamp): Promise<StampView> {
    const [stamp] = await this.storeVouched(async (createdAt) => [make(createdAt)]);
    this.announce(stamp!);
    return this.newView(stamp!);
  }

  /**
   * Stores the stamps `make` signs for the time it is given and returns them once the key ring
   * vouches for their key at that time (issue #35: a stamp signed with a key revoked meanwhile
   * must never be answered). A key it no longer vouches for has been swapped for the ring's active
   * one by then: the stamps are made again, for a new time. Those of the refused round stay
   * stored, never answered nor announced, and fail verification as their key was revoked.
   */
  private async storeVouched(make: (createdAt: Date) => Promise<StoredStamp[]>): Promise<StoredStamp[]> {
    for (let round = 1; ; round++) {
      const stamps = await make(this.deps.clock.now());
      await this.deps.stamps.insertMany(stamps);
      const signed = stamps[0]?.document;
      if (!signed || !this.deps.ring) return stamps;
      if (await this.deps.ring.vouches("service", signed.service_public_key, new Date(signed.created_at)))
        return stamps;
      if (round === MAX_SIGNING_ROUNDS) {
        throw unavailable("the service's signing key is being replaced; retry", "server_busy", 1);
      }
    }
  }

  /** The signed stamp, not yet stored. */
  private draft(input: IssueInput): StoredStamp {
    const facts = factsOf(input);
    return stored(input, issueDocument(facts, this.deps.signing, input.author));
  }

  /**
   * The stamps of a batch, signed together; not yet stored. With `progress`, drafted a step at a
   * time, reporting each step and yielding to the event loop between them, so the events go out
   * while the batch is being made and other calls are served meanwhile.
   */
  private async draftBatch(inputs: readonly IssueInput[], progress?: BatchProgress): Promise<StoredStamp[]> {
    const facts = inputs.map(factsOf);
    const authors = inputs.map((input) => input.author);
    // One key for the whole batch, though the ring may rotate while it is drafted.
    const signing = pinnedSigner(this.deps.signing);
    const drafts: BatchDraft[] = [];
    while (drafts.length < inputs.length) {
      const from = drafts.length;
      const to = progress ? Math.min(inputs.length, from + Math.max(1, progress.untilNext)) : inputs.length;
      drafts.push(...draftBatch(facts.slice(from, to), signing, authors.slice(from, to)));
      if (progress) {
        progress.advance(to - from);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const documents = signDrafts(drafts, signing);
    return inputs.map((input, i) => stored(input, documents[i]!));
  }

  private announce(stamp: StoredStamp): void {
    const metadata = stamp.document.metadata ?? {};
    this.deps.events.publish({
      type: "stamp_created",
      data: {
        id: stamp.id,
        contentHash: formatContentHash({
          algorithm: stamp.document.document.algorithm,
          hex: stamp.document.document.hash,
        }),
        timestamp: stamp.document.created_at,
        metadata,
      },
      scope: { accountId: stamp.accountId, stampId: stamp.id, metadata },
    });
  }
}
