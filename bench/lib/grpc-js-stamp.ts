// A gRPC baseline, in a process of its own: CreateStamp implemented "the obvious way" on
// @grpc/grpc-js, from specs/proto directly: check the content hash, sign a small JSON record of it
// with node:crypto's Ed25519, insert one row per call into SQLite (better-sqlite3, WAL,
// synchronous=FULL: the durability of server/store/sqlite/sqlite-store.ts), reply. No auth, no
// limits, no batching. Usage: grpc-js-stamp.ts <database file>. Prints `ready {"grpc":<port>}`.
import { generateKeyPairSync, sign } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import Database from "better-sqlite3";
import { monotonicFactory } from "ulid";
import { announceReady, root } from "./processes.js";

interface CreateStampRequest {
  content_hash: string;
}

const algorithms: Record<string, number> = { "sha3-256": 1, sha256: 2, blake3: 0 };
const contentHash = /^(sha3-256|sha256|blake3):([0-9a-f]{64})$/;

const db = new Database(process.argv[2]!);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec(`CREATE TABLE IF NOT EXISTS stamps (
  id TEXT PRIMARY KEY, created_at TEXT NOT NULL, hash_algorithm TEXT NOT NULL,
  document_hash TEXT NOT NULL, record TEXT NOT NULL, signature TEXT NOT NULL)`);
const insert = db.prepare("INSERT INTO stamps VALUES (?, ?, ?, ?, ?, ?)");
const { privateKey } = generateKeyPairSync("ed25519");
const ulid = monotonicFactory();

function createStamp(
  call: grpc.ServerUnaryCall<CreateStampRequest, unknown>,
  callback: grpc.sendUnaryData<unknown>,
): void {
  const match = contentHash.exec(call.request.content_hash);
  if (!match) {
    callback({ code: grpc.status.INVALID_ARGUMENT, details: "bad content_hash" });
    return;
  }
  const now = Date.now();
  const id = `stp_${ulid(now)}`;
  const createdAt = new Date(now).toISOString();
  const record = JSON.stringify({ id, content_hash: call.request.content_hash, created_at: createdAt });
  const signature = sign(null, Buffer.from(record), privateKey).toString("base64");
  insert.run(id, createdAt, match[1], match[2], record, signature);
  callback(null, {
    stamp: {
      id,
      content_hash: call.request.content_hash,
      algorithm: algorithms[match[1]!],
      timestamp: { seconds: Math.floor(now / 1000), nanos: (now % 1000) * 1e6 },
      status: 1,
    },
  });
}

const definition = protoLoader.loadSync("svc/v1/stamp.proto", {
  includeDirs: [`${root}/specs/proto`],
  keepCase: true,
  longs: Number,
  enums: Number,
  defaults: true,
});
const svc = (grpc.loadPackageDefinition(definition).svc as grpc.GrpcObject).v1 as grpc.GrpcObject;
const server = new grpc.Server();
server.addService((svc.StampService as grpc.ServiceClientConstructor).service, { createStamp });
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  announceReady({ grpc: port });
});
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
