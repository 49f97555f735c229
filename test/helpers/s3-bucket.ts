import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

/** The part of s3rver (an S3-compatible server in Node; it ships no types) these tests use. */
interface S3rver {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
  on(event: "event", listener: (event: { Records: S3EventRecord[] }) => void): void;
}
interface S3EventRecord {
  eventName: string;
  s3: { object: { key: string } };
}
type S3rverClass = new (options: Record<string, unknown>) => S3rver;

const S3rverServer = createRequire(import.meta.url)("s3rver") as S3rverClass;

/** s3rver accepts this key (it checks a SigV4 request's key id, not its signature). */
export const S3RVER_ACCESS_KEY_ID = "S3RVER";

/**
 * A real S3-compatible server on 127.0.0.1 keeping its objects in `dir`, with one bucket. Objects
 * are read back without credentials (s3rver answers unsigned requests), path-style:
 * `<endpoint>/<bucket>/<key>`. It can be stopped (the bucket unreachable) and started again on
 * the same port and folder, objects intact.
 */
export class S3Bucket {
  /** Keys written (PUT) since the bucket started or `puts.length = 0`. */
  readonly puts: string[] = [];
  private server: S3rver | undefined;
  private port = 0;

  constructor(
    private readonly dir: string,
    readonly bucket: string,
  ) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new S3rverServer({
      address: "127.0.0.1",
      port: this.port,
      directory: this.dir,
      silent: true,
      configureBuckets: [{ name: this.bucket }],
    });
    server.on("event", ({ Records }) => {
      for (const record of Records)
        if (record.eventName.startsWith("ObjectCreated")) this.puts.push(record.s3.object.key);
    });
    this.port = (await server.run()).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    // Pooled keep-alive connections would hold close() open; a stopped bucket refuses them all.
    server?.httpServer?.closeAllConnections();
    await server?.close();
  }

  /** The settings of a service mirroring its tiled logs into this bucket, path-style, under `prefix`. */
  mirrorEnv(prefix: string, secretFile: string): Record<string, string> {
    return {
      LOG_TILES_S3_ENDPOINT: this.endpoint,
      LOG_TILES_S3_BUCKET: this.bucket,
      LOG_TILES_S3_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID,
      LOG_TILES_S3_SECRET_ACCESS_KEY_FILE: secretFile,
      LOG_TILES_S3_PREFIX: prefix,
      LOG_TILES_S3_PATH_STYLE: "true",
    };
  }

  /** An object's URL, for plain unauthenticated HTTP. */
  url(key: string): string {
    return `${this.endpoint}/${this.bucket}/${key}`;
  }
}
