/** A growable FIFO of bytes: appended at the end, consumed from the front, read as one view. */
export class ByteWindow {
  private buffer = new Uint8Array(64 * 1024);
  private head = 0;
  private tail = 0;

  get length(): number {
    return this.tail - this.head;
  }

  append(data: Uint8Array): void {
    if (this.tail + data.length > this.buffer.length) this.makeRoom(data.length);
    this.buffer.set(data, this.tail);
    this.tail += data.length;
  }

  /** The held bytes; valid until the next append or consume. */
  view(): Uint8Array {
    return this.buffer.subarray(this.head, this.tail);
  }

  consume(n: number): void {
    this.head += n;
    if (this.head === this.tail) this.head = this.tail = 0;
  }

  private makeRoom(extra: number): void {
    const needed = this.length + extra;
    const target =
      needed > this.buffer.length ? new Uint8Array(Math.max(needed, 2 * this.buffer.length)) : this.buffer;
    target.set(this.buffer.subarray(this.head, this.tail));
    this.buffer = target;
    this.tail -= this.head;
    this.head = 0;
  }
}
