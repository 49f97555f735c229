import { createFingerprinter } from "./fingerprinter.js";
import type { DecompositionMethod, FingerprintDocument } from "./types.js";

/** Fingerprints a whole stream as it is read; the stream's error rejects. */
export async function fingerprintStream(
  stream: AsyncIterable<Uint8Array>,
  method: DecompositionMethod,
): Promise<FingerprintDocument> {
  const fingerprinter = createFingerprinter(method);
  for await (const chunk of stream) fingerprinter.update(chunk);
  return fingerprinter.finish();
}
