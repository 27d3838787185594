/**
 * Newline-delimited framing of the stdio transport: one JSON-RPC message per line. Lines are
 * cut on `\n` (a `\r` before it is dropped, for clients that write `\r\n`); blank lines are
 * ignored. A line longer than the frame cap is reported once and skipped up to its newline
 * without being held in memory, so that a client cannot make the server buffer unbounded input.
 */

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** What the reader hands over, in input order. */
export interface FrameSink {
  /** One complete, non-blank line, decoded as UTF-8, without its line ending. */
  frame(line: string): void;
  /** A line went over the cap; it is being skipped. Called once per such line, as soon as it is known. */
  oversize(): void;
}

/**
 * Cuts a byte stream into lines of at most `maxFrameBytes` bytes. Works on bytes rather than
 * strings so that a UTF-8 character split across two chunks is decoded whole, and so that the
 * cap counts what the client actually sent.
 */
export class StdioFrameReader {
  /** The pieces of the line being read (never the newline). */
  private pieces: Buffer[] = [];
  private pending = 0;
  /** Inside an oversize line: bytes are dropped until its newline. */
  private skipping = false;

  constructor(
    private readonly maxFrameBytes: number,
    private readonly sink: FrameSink,
  ) {}

  /** Feeds one chunk of input. */
  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      this.take(bytes, start, end);
      if (newline === -1) {
        return;
      }
      this.endLine();
      start = newline + 1;
    }
  }

  /** The input ended: a last line without a newline is still a message. */
  end(): void {
    this.endLine();
  }

  private take(bytes: Buffer, start: number, end: number): void {
    if (this.skipping || end === start) {
      return;
    }
    this.pending += end - start;
    // One byte of slack for the `\r` of a `\r\n` line ending, which is not part of the frame.
    if (this.pending > this.maxFrameBytes + 1) {
      this.startSkipping();
      return;
    }
    // A view, not a copy: the chunk stays referenced only until its line is complete.
    this.pieces.push(bytes.subarray(start, end));
  }

  private startSkipping(): void {
    this.pieces = [];
    this.pending = 0;
    this.skipping = true;
    this.sink.oversize();
  }

  private endLine(): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    const pieces = this.pieces;
    let length = this.pending;
    this.pieces = [];
    this.pending = 0;
    if (length === 0) {
      return;
    }
    const line = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, length);
    if (line[length - 1] === CARRIAGE_RETURN) {
      length -= 1;
    }
    if (length > this.maxFrameBytes) {
      this.sink.oversize();
      return;
    }
    const text = line.toString('utf8', 0, length);
    if (text.trim() === '') {
      return;
    }
    this.sink.frame(text);
  }
}
