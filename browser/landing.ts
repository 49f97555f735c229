import type { components } from "../gen/openapi/types.js";
import { readableTime } from "../server/pages/format.js";
import { verdictOf } from "../server/pages/verdict.js";
import { addCopyButtons } from "./copy-buttons.js";
import { acceptDrops } from "./drop-zone.js";
import { fileDigest } from "./file-digest.js";

// The landing page's file stamping: a file chosen or dropped is hashed here with SHA-256 (never
// uploaded); "Stamp it" sends only the hash (POST /stamps, JSON), "Find its stamps" searches by it
// (GET /stamps?hash=) and asks for each stamp's verdict (POST /stamps/{id}/verify, no body).
// An API key typed in the page is sent as a header and kept nowhere else.

type StampResponse = components["schemas"]["StampResponse"];
type SearchPage = components["schemas"]["StampSearchPage"];
type VerifyResponse = components["schemas"]["VerifyResponse"];
type ErrorBody = Partial<components["schemas"]["Error"]> & Partial<components["schemas"]["RateLimitError"]>;

/** Stamps listed (and verified, one request each) by "Find its stamps": the newest ones. */
const FOUND_LIMIT = 10;

function setUp(section: HTMLElement): void {
  addCopyButtons(section);
  const stampsUrl = section.dataset.stampsUrl ?? "";
  const input = document.getElementById("file-input") as HTMLInputElement;
  const key = document.getElementById("api-key") as HTMLInputElement;
  const stampButton = document.getElementById("stamp-button") as HTMLButtonElement;
  const findButton = document.getElementById("find-button") as HTMLButtonElement;
  const answer = document.getElementById("file-answer")!;
  const hashing = new Hashing((hash) => {
    stampButton.disabled = findButton.disabled = hash === null;
    answer.replaceChildren();
  });
  input.addEventListener("change", () => {
    if (input.files?.[0]) hashing.start(input.files[0]);
  });
  acceptDrops(document.getElementById("dropzone")!, (file) => hashing.start(file));
  const api = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("accept", "application/json");
    if (key.value.trim()) headers.set("authorization", `Bearer ${key.value.trim()}`);
    return fetch(`${stampsUrl}${path}`, { ...init, headers });
  };
  stampButton.addEventListener("click", () => {
    if (hashing.hash) void stamp(api, hashing.hash, answer);
  });
  findButton.addEventListener("click", () => {
    if (hashing.hash) void find(api, hashing.hash, answer);
  });
}

type Api = (path: string, init?: RequestInit) => Promise<Response>;

/** The file being hashed or last hashed: its progress, its status line and its hash. */
class Hashing {
  /** `sha256:<hex>` of the last file hashed to the end; null while hashing or after a failure. */
  hash: string | null = null;
  private run: AbortController | null = null;
  private readonly progressRow = document.getElementById("hash-progress-row")!;
  private readonly progress = document.getElementById("hash-progress") as HTMLProgressElement;
  private readonly status = document.getElementById("file-status")!;
  private readonly hashRow = document.getElementById("file-hash-row")!;
  private readonly hashText = document.getElementById("file-hash")!;

  constructor(private readonly onHash: (hash: string | null) => void) {}

  /** Hashes `file`, abandoning the hashing of an earlier one. */
  async start(file: File): Promise<void> {
    this.run?.abort();
    const run = new AbortController();
    this.run = run;
    this.show(null);
    this.progress.value = 0;
    this.progressRow.hidden = false;
    this.say("working", `Hashing ${file.name} (${size(file.size)})…`);
    try {
      const hex = await fileDigest(file, "sha256", (f) => (this.progress.value = f), run.signal);
      this.say("match", `Hashed ${file.name} (${size(file.size)}) in this browser.`);
      this.show(`sha256:${hex}`);
    } catch (err) {
      if (run.signal.aborted) return;
      this.say("error", `Could not read ${file.name}: ${(err as Error).message}`);
    } finally {
      if (this.run === run) this.progressRow.hidden = true;
    }
  }

  private show(hash: string | null): void {
    this.hash = hash;
    this.hashRow.hidden = hash === null;
    this.hashText.textContent = hash ? hash.slice("sha256:".length) : "";
    this.onHash(hash);
  }

  private say(kind: "working" | "match" | "error", text: string): void {
    this.status.className = `file-result ${kind}`;
    this.status.textContent = text;
  }
}

// Started once the class above is defined (a class is not hoisted as a function is).
const section = document.getElementById("file-stamp");
if (section) setUp(section);

async function stamp(api: Api, hash: string, answer: HTMLElement): Promise<void> {
  say(answer, "Stamping the hash…");
  const res = await call(answer, () =>
    api("", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hash }),
    }),
  );
  if (!res) return;
  const created = (await res.json()) as StampResponse;
  const link = anchor(created.verify_url, created.stamp_id);
  say(answer, "Stamped at ", readableTime(created.created_at), ". Its page, to keep or share: ", link);
  link.focus();
}

async function find(api: Api, hash: string, answer: HTMLElement): Promise<void> {
  say(answer, "Searching…");
  const res = await call(answer, () => api(`?hash=${hash}&limit=${FOUND_LIMIT}`));
  if (!res) return;
  const page = (await res.json()) as SearchPage;
  if (page.items.length === 0) {
    say(
      answer,
      "No stamp of this file's SHA-256 here, nor an upload of it. (A stamp of another hash of it, such as an upload made before uploads were also hashed with SHA-256, is not found by this one.)",
    );
    return;
  }
  const more = page.next_cursor ? ` (the newest ${page.items.length}; more exist)` : "";
  const list = document.createElement("ul");
  list.className = "found-stamps";
  answer.replaceChildren(paragraph(`Stamps of this file${more}:`), list);
  const items = page.items.map((item) => {
    const verdict = document.createElement("span");
    verdict.className = "found-verdict";
    verdict.textContent = "checking…";
    const li = document.createElement("li");
    li.append(anchor(item.verify_url, item.stamp_id), ` stamped ${readableTime(item.created_at)}: `, verdict);
    list.append(li);
    return { id: item.stamp_id, verdict };
  });
  // One at a time, so a rate limit stops the rest instead of refusing a burst of them.
  for (const [i, { id, verdict }] of items.entries()) {
    const res = await api(`/${encodeURIComponent(id)}/verify`, { method: "POST" }).catch(() => null);
    if (!res?.ok) {
      const why = res ? await refusal(res) : "the service could not be reached";
      for (const rest of items.slice(i)) rest.verdict.textContent = `not checked: ${why}; open its page`;
      return;
    }
    const result = verdictOf((await res.json()) as VerifyResponse);
    verdict.className = `found-verdict verdict-${result.kind}`;
    verdict.textContent = `${result.symbol} ${result.headline}`;
  }
}

/** Runs a request; on a refusal or a network failure says why in `answer` and returns null. */
async function call(answer: HTMLElement, request: () => Promise<Response>): Promise<Response | null> {
  let res: Response;
  try {
    res = await request();
  } catch (err) {
    say(answer, `Could not reach the service: ${(err as Error).message}`);
    return null;
  }
  if (res.ok) return res;
  say(answer, `${await refusal(res)}.`);
  return null;
}

/** A refusal in plain words: the wait a rate limit asks for, else the service's own detail. */
async function refusal(res: Response): Promise<string> {
  const body = (await res.json().catch(() => ({}))) as ErrorBody;
  if (res.status === 429) {
    const wait = res.headers.get("retry-after") ?? String(Math.ceil(body.retry_after ?? 1));
    const tier = res.headers.get("x-ratelimit-tier") ?? body.tier;
    const hint = tier === "anonymous" ? "; an API key raises the limit" : "";
    return `Too many requests for now (${tier ?? "this"} tier): try again in ${wait} s${hint}`;
  }
  if (res.status === 401) return `The API key was refused: ${body.detail ?? "not a valid key"}`;
  return `The service answered ${res.status}: ${body.detail ?? body.message ?? res.statusText}`;
}

function say(answer: HTMLElement, ...parts: Array<string | Node>): void {
  answer.replaceChildren(paragraph(...parts));
}

function paragraph(...parts: Array<string | Node>): HTMLParagraphElement {
  const p = document.createElement("p");
  p.append(...parts);
  return p;
}

function anchor(href: string, text: string): HTMLAnchorElement {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
