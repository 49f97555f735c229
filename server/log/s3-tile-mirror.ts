import { createHash } from "node:crypto";
import { AwsClient } from "aws4fetch";
import { tileHeaders } from "./log-tiles.js";
import type { TileMirror } from "./tile-mirror.js";

export interface S3Bucket {
  /** The service's base URL, e.g. `https://s3.eu-west-1.amazonaws.com` or `http://minio:9000`. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Put before every object key (`stampd/log/` → `stampd/log/checkpoint`); empty for none. */
  prefix: string;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint host>/<key>` (MinIO, s3rver, …). */
  pathStyle: boolean;
}

/** Per request, retries included: a bucket that hangs fails the pass instead of holding the log. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The tiled log in an S3-compatible bucket, laid out as served, each object with the Content-Type
 * and Cache-Control the API gives it, so the bucket (or a CDN in front of it) serves the log as
 * stampd does. A PUT is atomic (a reader sees the old object or the new one, and the body's
 * SHA-256 is signed, so a truncated upload is refused), which is all a crash mid-write needs.
 * Requests are signed with SigV4 (aws4fetch), which retries 5xx and 429 answers with jittered
 * backoff; anything else fails the pass, which TileMirrorSync retries later.
 */
export class S3TileMirror implements TileMirror {
  private readonly client: AwsClient;
  /** The bucket's URL, ending in `/`: objects are `<bucketUrl><prefix><path>`. */
  private readonly bucketUrl: string;

  constructor(private readonly target: S3Bucket) {
    const { accessKeyId, secretAccessKey, region } = target;
    this.client = new AwsClient({
      accessKeyId,
      secretAccessKey,
      region,
      service: "s3",
      retries: 3,
      initRetryMs: 200,
    });
    const endpoint = new URL(target.endpoint);
    this.bucketUrl = target.pathStyle
      ? `${endpoint.origin}/${target.bucket}/`
      : `${endpoint.protocol}//${target.bucket}.${endpoint.host}/`;
  }

  get name(): string {
    return `s3://${this.target.bucket}/${this.target.prefix}`;
  }

  // Nothing to clear: an interrupted PUT leaves no object.
  async recover(): Promise<void> {}

  /** One listing (1 000 keys a request) rather than a HEAD per tile: cheap at every start. */
  async missing(paths: readonly string[]): Promise<string[]> {
    const held = new Set(await this.list("tile/"));
    return paths.filter((path) => !held.has(path));
  }

  async write(path: string, data: Uint8Array): Promise<void> {
    const { contentType, cacheControl } = tileHeaders(path);
    await this.request("PUT", this.objectUrl(path), [200], {
      body: new Uint8Array(data), // fetch takes a body over an ArrayBuffer (not a SharedArrayBuffer)
      headers: {
        "Content-Type": contentType,
        "Cache-Control": cacheControl,
        "X-Amz-Content-Sha256": createHash("sha256").update(data).digest("hex"),
      },
    });
  }

  // Another instance mirroring into the same bucket may have written a larger tree's already.
  async writeCheckpoint(note: string, treeSize: number): Promise<void> {
    const current = await this.request("GET", this.objectUrl("checkpoint"), [200, 404]);
    const text = current.status === 200 ? await current.text() : "";
    if (Number(text.split("\n")[1] ?? -1) > treeSize) return;
    await this.write("checkpoint", new TextEncoder().encode(note));
  }

  async removePartials(fullTilePath: string): Promise<void> {
    for (const path of await this.list(`${fullTilePath}.p/`))
      await this.request("DELETE", this.objectUrl(path), [200, 204, 404]);
  }

  /** The paths (below the prefix) of every object under `under`, by ListObjectsV2 pages. */
  private async list(under: string): Promise<string[]> {
    const paths: string[] = [];
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ "list-type": "2", prefix: `${this.target.prefix}${under}` });
      if (token) query.set("continuation-token", token);
      const page = await (await this.request("GET", `${this.bucketUrl}?${query}`, [200])).text();
      for (const key of xmlValues(page, "Key")) paths.push(key.slice(this.target.prefix.length));
      token =
        xmlValues(page, "IsTruncated")[0] === "true"
          ? xmlValues(page, "NextContinuationToken")[0]
          : undefined;
    } while (token);
    return paths;
  }

  private objectUrl(path: string): string {
    // Tile paths are [a-z0-9./] only; the operator's prefix is encoded segment by segment.
    const key = `${this.target.prefix}${path}`.split("/").map(encodeURIComponent).join("/");
    return `${this.bucketUrl}${key}`;
  }

  /** A signed request; an answer outside `expected` throws with the bucket's error code (no credential). */
  private async request(
    method: string,
    url: string,
    expected: readonly number[],
    init: { body?: Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const res = await this.client.fetch(url, {
      method,
      ...init,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (expected.includes(res.status)) return res;
    const code = xmlValues(await res.text().catch(() => ""), "Code")[0] ?? "no error code";
    throw new Error(`S3 ${method} ${new URL(url).pathname}: ${res.status} ${code}`);
  }
}

/** The text of each `<name>…</name>` in an S3 XML answer (flat, known elements: no parser needed). */
function xmlValues(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => unescapeXml(m[1]!));
}

function unescapeXml(text: string): string {
  const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, entity: string) => entities[entity]!);
}
