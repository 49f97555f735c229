// The hashing thread (hashing-thread.ts starts it): hashes the slots of each job's shared ring as
// the main thread fills them, so an upload's hashing runs beside its receiving. It imports only
// node:crypto (hash-wasm on a job's first BLAKE3), to keep the isolate small. Built as an entry
// point of its own (scripts/build-server.mjs).
import { parentPort } from "node:worker_threads";
import type { HashAlgorithm } from "../../core/types.js";
import { createHasher, type Hasher } from "./hasher.js";
import type { ThreadReply, ThreadRequest } from "./hashing-thread.js";

const port = parentPort!;
/** Per job: its ring, and its hashers once made (BLAKE3's are made asynchronously), in order. */
const jobs = new Map<number, { ring: SharedArrayBuffer; hashers: Promise<Hasher[]> }>();

port.on("message", (request: ThreadRequest) => {
  const { id } = request;
  if (request.type === "start") {
    jobs.set(id, { ring: request.ring, hashers: makeHashers(request.algorithms) });
    return;
  }
  const job = jobs.get(id);
  if (!job) return;
  if (request.type === "abort") jobs.delete(id);
  else if (request.type === "slot") {
    const { offset, length } = request;
    job.hashers = job.hashers.then((hashers) => {
      const bytes = new Uint8Array(job.ring, offset, length);
      for (const hasher of hashers) hasher.update(bytes);
      reply({ type: "free", id, offset });
      return hashers;
    });
  } else {
    jobs.delete(id);
    job.hashers.then(
      (hashers) => reply({ type: "digests", id, hashes: hashers.map((h) => h.digest()) }),
      (err: Error) => reply({ type: "error", id, message: err.message }),
    );
  }
});

function makeHashers(algorithms: readonly HashAlgorithm[]): Promise<Hasher[]> {
  return Promise.all(algorithms.map(createHasher));
}

function reply(message: ThreadReply): void {
  port.postMessage(message);
}
