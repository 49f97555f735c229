import type { Progress } from "./progress.js";

/**
 * Upload progress over several files. `fetch` is the one the SDK client is given: it passes each
 * request body through a counting TransformStream, so the bar moves as bytes leave for the
 * server (not as the file is read: the SDK sends a path as a file-backed Blob, read while sent).
 * A retried request starts its file again.
 */
export class UploadProgress {
  private finished = 0;
  private sent = 0;
  private size = 0;

  constructor(private readonly bar: Progress) {}

  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (!request.body) return globalThis.fetch(request);
    this.sent = 0;
    const counted = request.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.count(chunk.byteLength);
          controller.enqueue(chunk);
        },
      }),
    );
    // A stream body needs `duplex: "half"` (Node's fetch), which RequestInit does not type yet.
    // `window: null` keeps fetch from copying (teeing) the body into memory, as the SDK's own
    // request does (sdk/src/internal/multipart.ts): fetch makes its Request anew from the one given.
    const sent = new Request(request, { body: counted, duplex: "half" } as RequestInit);
    return globalThis.fetch(sent);
  };

  /** The next upload is `label`, of `size` bytes. */
  begin(label: string, size: number): void {
    this.size = size;
    this.sent = 0;
    this.bar.update(this.finished, label);
  }

  end(): void {
    this.finished += this.size;
    this.sent = 0;
    this.bar.update(this.finished);
  }

  /** The multipart body is the file plus a few hundred bytes of fields: count up to the file's size. */
  private count(bytes: number): void {
    this.sent = Math.min(this.sent + bytes, this.size);
    this.bar.update(this.finished + this.sent);
  }
}
