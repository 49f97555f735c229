import type { HashAlgorithm } from "../core/types.js";
import { addCopyButtons } from "./copy-buttons.js";
import { acceptDrops } from "./drop-zone.js";
import { fileDigest } from "./file-digest.js";

// The verification page's file check: a file chosen or dropped is hashed here, in the browser, and
// compared with the hash the stamp records. Nothing is uploaded.

const names: Record<HashAlgorithm, string> = { "sha3-256": "SHA3-256", sha256: "SHA-256", blake3: "BLAKE3" };

type Say = (kind: "working" | "match" | "mismatch" | "error", text: string) => void;

addCopyButtons();
const section = document.getElementById("file-check");
if (section) setUp(section);
const bundleItem = document.getElementById("proof-bundle");
if (bundleItem) offerBundle(bundleItem);

/** The proof bundle button: its code (the SDK's bundle gathering) is loaded on the first click. */
function offerBundle(item: HTMLElement): void {
  const { base = "", stampId = "", script = "" } = item.dataset;
  const button = document.getElementById("proof-bundle-button") as HTMLButtonElement;
  const status = document.getElementById("proof-bundle-status")!;
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "Gathering the proof…";
    try {
      const { downloadProofBundle } = (await import(script)) as typeof import("./proof-bundle.js");
      await downloadProofBundle(base, stampId);
      status.textContent = `Saved ${stampId}.stampd.json.`;
    } catch (err) {
      status.textContent = `Could not gather the proof bundle: ${(err as Error).message}`;
    } finally {
      button.disabled = false;
    }
  });
}

function setUp(section: HTMLElement): void {
  const algorithm = section.dataset.algorithm as HashAlgorithm;
  const expected = section.dataset.hash ?? "";
  const result = document.getElementById("file-result")!;
  // Only the latest file's answer is shown, however the hashing of earlier ones ends.
  let latest = 0;
  const check = (file: File) => {
    const run = ++latest;
    void compare(file, algorithm, expected, (kind, text) => {
      if (run !== latest) return;
      result.className = `file-result ${kind}`;
      result.textContent = text;
    });
  };
  const input = document.getElementById("file-input") as HTMLInputElement;
  input.addEventListener("change", () => {
    if (input.files?.[0]) check(input.files[0]);
  });
  acceptDrops(document.getElementById("dropzone")!, check);
}

async function compare(file: File, algorithm: HashAlgorithm, expected: string, say: Say): Promise<void> {
  const name = names[algorithm];
  say("working", `Hashing ${file.name} with ${name}…`);
  try {
    const digest = await fileDigest(file, algorithm, progress(file, say));
    if (digest === expected) say("match", `✓ ${file.name} matches this stamp (${name} ${digest}).`);
    else
      say(
        "mismatch",
        `✗ ${file.name} does not match this stamp: its ${name} is ${digest}, the stamp records ${expected}.`,
      );
  } catch (err) {
    say("error", `Could not read ${file.name}: ${(err as Error).message}`);
  }
}

/** Progress in steps of 10 %, so a screen reader is not flooded with announcements. */
function progress(file: File, say: Say): (fraction: number) => void {
  let shown = 0;
  return (fraction) => {
    const step = Math.floor(fraction * 10) * 10;
    if (step <= shown || step >= 100) return;
    shown = step;
    say("working", `Hashing ${file.name}: ${step} %…`);
  };
}
