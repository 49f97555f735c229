// Run by upload-memory.test.ts in a child process, so that the peak resident set it reports is
// the uploading client's alone. Uploads a file through the SDK as a path, a Node stream and a
// file-backed Blob: first a small one, so that modules, JIT, connection and garbage collector
// reach their steady state, then the large one; prints the results with the peak RSS (KiB) after
// the small uploads and after each large one.
import { createReadStream, openAsBlob } from "node:fs";
import { createClient } from "../../sdk/src/index.js";

const [baseUrl, apiKey, small, large] = process.argv.slice(2) as [string, string, string, string];
const client = createClient({ baseUrl, apiKey });
const peakKiB = () => process.resourceUsage().maxRSS;

async function uploadAll(file: string) {
  const stamp = await client.stamps.create({ file });
  const afterPathKiB = peakKiB();
  const hashed = await client.hash.create({ file: createReadStream(file) });
  const afterStreamKiB = peakKiB();
  const verified = await client.verify.stamp(stamp.stamp_id, { file: await openAsBlob(file) });
  const afterBlobKiB = peakKiB();
  return {
    afterPathKiB,
    afterStreamKiB,
    afterBlobKiB,
    stampHash: stamp.document_hash,
    streamHash: hashed.hash,
    blobHashValid: verified.content_hash_valid,
  };
}

await uploadAll(small);
const baselineKiB = peakKiB();
console.log(JSON.stringify({ baselineKiB, ...(await uploadAll(large)) }));
