/**
 * A JSON text written as UTF-8 bytes into one growing buffer: a large answer (a page of records with their vectors,
 * 1.6 MB) built without the intermediate strings of each part, their concatenation and its encoding.
 */
export class JsonBytes {
  private buffer: Buffer;
  private at = 0;

  constructor(capacity = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** Room for `n` more bytes; the buffer to write them into at `length`. */
  reserve(n: number): Buffer {
    if (this.at + n > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + n));
      this.buffer.copy(grown, 0, 0, this.at);
      this.buffer = grown;
    }
    return this.buffer;
  }

  get length(): number {
    return this.at;
  }

  /** After writing `n` bytes into reserve()'s buffer at `length`. */
  advance(n: number): void {
    this.at += n;
  }

  /** Text as it is (already JSON), UTF-8 encoded. */
  text(text: string): void {
    this.reserve(text.length * 3);
    this.at += this.buffer.write(text, this.at, "utf8");
  }

  /** The bytes written so far (a view of the buffer, not a copy). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}
