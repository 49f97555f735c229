// What the live pages (dashboard, explorer) share: the connection line and a throttle for the
// fetches that events trigger.

/** The connection's state, in words (the colour only repeats it). */
export function setConnection(text: string, live: boolean): void {
  const el = document.getElementById("connection")!;
  el.textContent = text;
  el.classList.toggle("live", live);
}

/** `fn` at most once per `ms`, `ms` after the first call of a burst. */
export function throttled(fn: () => unknown, ms: number): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      fn();
    }, ms);
  };
}

/** A JSON body, or undefined when it cannot be had now (a 429, an outage): the page keeps what it shows. */
export async function fetchJson<T>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, { headers: { accept: "application/json" } });
    return res.ok ? ((await res.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}
