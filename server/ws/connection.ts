import WebSocket from "ws";
import type { SubscriptionChannel } from "../../gen/asyncapi/index.js";
import type { Principal } from "../auth/principal.js";
import type { AnyDomainEvent } from "../events/bus.js";
import type { Logger } from "../logger.js";
import { channelDelivers } from "./channels.js";
import type { Subscriber } from "./subscription-index.js";

export interface ConnectionSettings {
  maxBufferedBytes: number;
  logger: Logger;
  /** Shared by all connections: GET /ws/stats. */
  traffic: { messagesIn: number; messagesOut: number };
  /** Every frame sent (`stampd_websocket_messages_sent_total`). */
  onSent: (frame: Frame) => void;
}

/** A connection's subscription: the logical channel and where it sits in the fan-out index. */
export interface Subscription {
  channel: SubscriptionChannel;
  indexKey: string;
}

/** A reply, and for `stamp` the id of the stamp whose `stamp_created` event the reply stands for. */
export interface Reply {
  frame: string;
  echoOf?: string;
}

type Frame = string | Buffer;

// A client that pipelines faster than it is answered stops being read (TCP pushes back on it)
// instead of queueing requests without bound.
const MAX_QUEUED_REQUESTS = 32;
// How long a connection closed as a slow consumer may take to flush its close frame before it is cut.
const CLOSE_GRACE_MS = 5_000;
// Bounds the ids of own stamps whose event has not come back yet (it may be lost with a Redis bus).
const MAX_AWAITED_ECHOES = 64;

/** One WebSocket client: its principal, subscriptions, request pipeline and outgoing flow control. */
export class WsConnection implements Subscriber {
  lastFanout = 0;
  /** Whether the peer answered the last keep-alive ping. */
  alive = true;
  /** By subscription key (`channel` or `channel:id`). */
  readonly subscriptions = new Map<string, Subscription>();
  // Events that arrive while a request is handled wait for its reply (see release).
  private held: { event: AnyDomainEvent; frame: Frame }[] | null = null;
  private heldBytes = 0;
  private readonly awaitedEchoes = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(
    readonly socket: WebSocket,
    readonly principal: Principal,
    private readonly settings: ConnectionSettings,
  ) {
    socket.on("pong", () => {
      this.alive = true;
    });
  }

  /** Sends a frame, closing the connection with 1013 when the peer lets unsent data pile up. */
  send(frame: Frame): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(frame, { binary: false });
    this.settings.traffic.messagesOut++;
    this.settings.onSent(frame);
    if (this.socket.bufferedAmount > this.settings.maxBufferedBytes) this.closeAsSlow();
  }

  /** Delivers one event of a fan-out, at most once, and never the echo of a stamp this connection made. */
  deliver(event: AnyDomainEvent, frame: Frame): void {
    if (this.held) {
      this.held.push({ event, frame });
      this.heldBytes += frame.length;
      if (this.heldBytes > this.settings.maxBufferedBytes) this.closeAsSlow();
      return;
    }
    if (event.type === "stamp_created" && this.awaitedEchoes.delete(event.data.id)) return;
    this.send(frame);
  }

  /** Handles requests one at a time, so replies leave in the order the requests came. */
  enqueue(handle: () => Promise<Reply>): void {
    this.queued++;
    if (this.queued > MAX_QUEUED_REQUESTS && !this.socket.isPaused) this.socket.pause();
    this.queue = this.queue.then(() => this.run(handle));
  }

  /** Terminates a peer that did not answer the previous ping; otherwise pings it again. */
  checkAlive(): void {
    if (!this.alive) {
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  private async run(handle: () => Promise<Reply>): Promise<void> {
    this.held = [];
    try {
      this.release(await handle());
    } finally {
      this.held = null;
      this.heldBytes = 0;
      this.queued--;
      if (this.socket.isPaused && this.queued <= MAX_QUEUED_REQUESTS / 2) this.socket.resume();
    }
  }

  /**
   * Sends the reply and the events held while it was prepared, in publication order. The reply to
   * `stamp` takes the place of that stamp's `stamp_created` event: the requester gets it once, with
   * its request id. When the event has not arrived yet, it is skipped when it does.
   */
  private release({ frame, echoOf }: Reply): void {
    const held = this.held ?? [];
    this.held = null;
    let replied = false;
    for (const item of held) {
      if (!replied && item.event.type === "stamp_created" && item.event.data.id === echoOf) {
        this.send(frame);
        replied = true;
      } else {
        this.send(item.frame);
      }
    }
    if (replied) return;
    this.send(frame);
    if (echoOf !== undefined && this.receivesStampCreated()) this.awaitEcho(echoOf);
  }

  private receivesStampCreated(): boolean {
    for (const { channel } of this.subscriptions.values()) {
      if (channelDelivers(channel, "stamp_created")) return true;
    }
    return false;
  }

  private awaitEcho(stampId: string): void {
    this.awaitedEchoes.add(stampId);
    if (this.awaitedEchoes.size > MAX_AWAITED_ECHOES) {
      this.awaitedEchoes.delete(this.awaitedEchoes.values().next().value!);
    }
  }

  private closeAsSlow(): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.held = null;
    this.settings.logger.warn(
      { bufferedAmount: this.socket.bufferedAmount, accountId: this.principal.accountId },
      "closing slow WebSocket consumer",
    );
    this.socket.close(1013, "slow consumer");
    // close() waits for the unsent data ahead of the close frame; a peer that never reads must not hold it.
    setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
  }
}
