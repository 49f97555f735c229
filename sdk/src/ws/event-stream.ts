import { WsEventOverflowError } from "./errors.js";

interface Waiter<T> {
  resolve: (result: IteratorResult<T>) => void;
  reject: (err: Error) => void;
}

/**
 * One `events()` iterator: a bounded queue between the socket, which pushes, and a `for await`
 * loop, which pulls. A consumer that falls `limit` messages behind gets WsEventOverflowError
 * (after the messages it did keep) instead of unbounded memory or silently missing events.
 */
export class EventStream<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiter: Waiter<T> | undefined;
  private failure: Error | undefined;
  private done = false;

  constructor(
    private readonly limit: number,
    private readonly onEnd: () => void,
  ) {}

  push(value: T): void {
    if (this.done) return;
    if (this.waiter) {
      this.take().resolve({ value, done: false });
    } else if (this.queue.length < this.limit) {
      this.queue.push(value);
    } else {
      this.end(new WsEventOverflowError(`more than ${this.limit} events waiting to be read`));
    }
  }

  /** Ends the iteration once the queued values are read, with `failure` thrown after them if given. */
  end(failure?: Error): void {
    if (this.done) return;
    this.done = true;
    this.failure = failure;
    this.onEnd();
    if (!this.waiter) return;
    if (failure) this.take().reject(failure);
    else this.take().resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.failure) return Promise.reject(this.failure);
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** `break` out of a `for await` loop lands here. */
  return(): Promise<IteratorResult<T>> {
    this.queue.length = 0;
    this.failure = undefined;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private take(): Waiter<T> {
    const waiter = this.waiter!;
    this.waiter = undefined;
    return waiter;
  }
}
