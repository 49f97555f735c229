import { createHash } from "node:crypto";
import { decompositionMethods } from "../../gen/openapi/enums.js";
import { invalid } from "../errors.js";
import { ByteWindow } from "./byte-window.js";
import { CdcChunker } from "./cdc-chunker.js";
import { ChunkList } from "./chunk-list.js";
import type { Chunker } from "./chunker.js";
import { assembleDocument } from "./document.js";
import { FINE_SHADOW_LIMIT, fineShadows } from "./fine-shadows.js";
import { FlatChunker } from "./flat-chunker.js";
import { type CutCandidates, Scanner } from "./scanner.js";
import { ShadowSketch } from "./shadow-sketch.js";
import { TextChunker } from "./text-chunker.js";
import type { DecompositionMethod, FingerprintDocument } from "./types.js";

/** How many leading bytes decide whether a document is binary (git's FIRST_FEW_BYTES). */
const SNIFF_BYTES = 8000;

/** Git's test (xdiff `buffer_is_binary`): binary when a NUL byte occurs in the first 8000 bytes. */
function looksBinary(prefix: Uint8Array): boolean {
  return prefix.subarray(0, SNIFF_BYTES).includes(0);
}

/** Computes a fingerprint while the document streams in. */
export interface Fingerprinter {
  update(chunk: Uint8Array): void;
  finish(): FingerprintDocument;
}

/** Picks the chunker; `sample` holds the first bytes for the methods that sniff (else it is empty). */
type ChunkerChoice = (list: ChunkList, sample: Uint8Array) => Chunker;

const choices: Record<DecompositionMethod, { sniff: boolean; choose: ChunkerChoice }> = {
  flat: { sniff: false, choose: (list) => new FlatChunker(list) },
  content_addressed: { sniff: false, choose: (list) => new CdcChunker(list) },
  semantic: {
    sniff: true,
    choose: (list, sample) => (looksBinary(sample) ? new CdcChunker(list) : new TextChunker(list)),
  },
  hierarchical: {
    sniff: true,
    choose: (list, sample) =>
      looksBinary(sample) ? new CdcChunker(list, true) : new TextChunker(list, true),
  },
};

/**
 * A streaming fingerprinter for `method` (docs/fingerprint.md). Memory: the chunk list, 8000 bytes
 * held back by `semantic` and `hierarchical` until they know whether the input is text, and the
 * open chunk of text input (at most 16 KiB plus one update), and, for every method, the input
 * while it is shorter than 4 KiB (for its fine shadows). Throws a 400 ServiceError for an unknown
 * method.
 */
export function createFingerprinter(method: DecompositionMethod): Fingerprinter {
  if (!decompositionMethods.includes(method)) {
    throw invalid(`unknown decomposition method "${method}"; use one of ${decompositionMethods.join(", ")}`);
  }
  return new StreamingFingerprinter(method);
}

class StreamingFingerprinter implements Fingerprinter {
  private readonly sketch = new ShadowSketch();
  private readonly scanner = new Scanner(this.sketch);
  private readonly sha3 = createHash("sha3-256");
  private readonly list = new ChunkList();
  private readonly candidates: CutCandidates = [];
  private chunker: Chunker | null = null;
  private held: ByteWindow | null = null;
  /** The whole input while it is shorter than FINE_SHADOW_LIMIT, for its fine shadows. */
  private short: Uint8Array[] | null = [];
  private size = 0;
  private finished = false;

  constructor(private readonly method: DecompositionMethod) {
    if (choices[method].sniff) this.held = new ByteWindow();
    else this.chunker = choices[method].choose(this.list, new Uint8Array(0));
  }

  update(chunk: Uint8Array): void {
    if (this.finished) throw new Error("fingerprinter already finished");
    this.size += chunk.length;
    this.keepIfShort(chunk);
    if (this.chunker) {
      this.feed(this.chunker, chunk);
      return;
    }
    this.held!.append(chunk);
    if (this.held!.length >= SNIFF_BYTES) this.release();
  }

  finish(): FingerprintDocument {
    if (this.finished) throw new Error("fingerprinter already finished");
    this.finished = true;
    const chunker = this.chunker ?? this.release();
    this.scanner.finish();
    chunker.finish();
    return assembleDocument({
      method: this.method,
      size: this.size,
      sha3Hex: this.sha3.digest("hex"),
      list: this.list,
      histogram: this.scanner.histogram,
      shadows: this.sketch.finish(),
      fineShadows: this.short ? fineShadows(Buffer.concat(this.short)) : [],
    });
  }

  /** Copies `chunk` (the caller may reuse its buffer) while the input stays short. */
  private keepIfShort(chunk: Uint8Array): void {
    if (!this.short) return;
    if (this.size >= FINE_SHADOW_LIMIT) this.short = null;
    else this.short.push(chunk.slice());
  }

  /** Chooses the chunker from the held bytes and feeds them through. */
  private release(): Chunker {
    const sample = this.held!.view();
    const chunker = choices[this.method].choose(this.list, sample);
    this.chunker = chunker;
    this.held = null;
    this.feed(chunker, sample);
    return chunker;
  }

  private feed(chunker: Chunker, data: Uint8Array): void {
    this.sha3.update(data);
    this.scanner.scan(data, this.candidates);
    chunker.push(data, this.candidates);
  }
}
