import type { ServerMessage } from "../gen/asyncapi/index.js";

/** The public events the dashboard lists, with how each is named. */
export const listedEvents = {
  stamp_created: "Stamp created",
  stamp_confirmed: "Stamp confirmed",
  stamp_anchored: "Stamp anchored",
  vault_created: "Vault created",
  vault_heartbeat: "Vault heartbeat",
  vault_released: "Vault released",
  vault_expired: "Vault expired",
  vault_burned: "Vault burned",
  vault_deadline_warning: "Vault deadline warning",
} as const;

export type ListedEvent = Extract<ServerMessage, { type: keyof typeof listedEvents }>;

const MAX_SHOWN = 50;

/**
 * Puts an event at the top of the list, keeping the newest MAX_SHOWN. Text goes in through
 * textContent only: whatever an event carries is shown as text, never parsed as markup.
 */
export function showEvent(list: HTMLElement, event: ListedEvent, verifyBase: string): void {
  const item = document.createElement("li");
  const time = document.createElement("time");
  const at = event.timestamp ?? new Date().toISOString();
  time.dateTime = at;
  time.textContent = at.slice(11, 19);
  const type = document.createElement("span");
  type.className = "event-type";
  type.textContent = listedEvents[event.type];
  item.append(time, type, subject(event, verifyBase));
  list.prepend(item);
  while (list.children.length > MAX_SHOWN) list.lastElementChild?.remove();
}

function subject(event: ListedEvent, verifyBase: string): HTMLElement {
  const stampId = stampIdOf(event);
  if (stampId === undefined) {
    const span = document.createElement("code");
    span.textContent = "vaultId" in event.data ? event.data.vaultId : "";
    return span;
  }
  const link = document.createElement("a");
  link.href = `${verifyBase}/${encodeURIComponent(stampId)}`;
  link.textContent = stampId;
  return link;
}

function stampIdOf(event: ListedEvent): string | undefined {
  if (event.type === "stamp_created") return event.data.id;
  if (event.type === "stamp_confirmed" || event.type === "stamp_anchored") return event.data.stampId;
  return undefined;
}
