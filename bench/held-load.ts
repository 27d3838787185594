/**
 * Load over connections that stay open from one slice to the next: the overload scenarios.
 *
 * Why not autocannon there: autocannon opens its connections anew for every run, so every slice
 * begins with `connections` clients connecting at once. A busy Node server (Node 20, libuv 1.46)
 * takes one waiting connection off its listen queue per turn of its event loop (strace: one
 * `accept4` a turn, `ss`: the rest waiting in the queue), and at c=128 a turn serves the
 * connections already accepted, about 10 to 20 ms of work. So the last connections of a slice
 * wait hundreds of milliseconds for their first answer, some for the whole slice, and whether
 * that happens in a given slice is chance. A plain `node:http` server shows the same staircase.
 * The p99 of a 0.5 s slice then measured the luck of that ramp, on the server and on the floor
 * alike, not the latency of a saturated server. Here the connections are opened and warmed once,
 * and each slice drives the same ones, as 128 long-lived clients would.
 *
 * The client is minimal on purpose (one prebuilt request, `content-length` answers, no
 * pipelining), so that it costs the load generator's core about what autocannon does.
 */
import { connect, type Socket } from 'node:net';
import { LatencyLog, REQUEST_TIMEOUT_S, type RequestSpec, type Slice } from './load';
const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

/** What one slice counts while it runs. */
interface Tally {
  latencies: LatencyLog;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
}

/** One held connection: at most one request in flight. */
class Line {
  socket: Socket | undefined;
  /** When the request in flight was written (performance.now()), or -1 when idle. */
  sentAt = -1;
  /** Whether the request in flight is the first since the connection sat idle (see `lost`). */
  firstAfterIdle = false;
  /** The bytes of the answer read so far, or undefined before its first. */
  private buffered: Buffer | undefined;
  private bodyStart = -1;
  private bodyLength = -1;
  private status = 0;

  constructor(private readonly pool: HeldConnections) {}

  /** Opens the socket; resolves once connected. */
  open(): Promise<void> {
    return new Promise((done, fail) => {
      const socket = connect({ host: this.pool.host, port: this.pool.port });
      socket.setNoDelay(true);
      const refused = (error: Error): void => {
        socket.destroy();
        fail(error);
      };
      socket.once('error', refused);
      socket.once('connect', () => {
        // Watched only once connected: a refused connection fails the opening, nothing more.
        socket.off('error', refused);
        this.socket = socket;
        socket.on('error', () => this.lost(socket));
        socket.on('close', () => this.lost(socket));
        socket.on('data', (chunk: Buffer) => this.read(chunk));
        done();
      });
    });
  }

  send(firstAfterIdle: boolean): void {
    this.reset();
    this.firstAfterIdle = firstAfterIdle;
    this.sentAt = performance.now();
    this.socket!.write(this.pool.request);
  }

  private reset(): void {
    this.buffered = undefined;
    this.bodyStart = -1;
    this.bodyLength = -1;
    this.status = 0;
  }

  private read(chunk: Buffer): void {
    if (this.sentAt < 0) {
      // Bytes nobody asked for: the answers are no longer in step with the requests.
      this.pool.failLine(this, 'bytes arrived with no request in flight');
      return;
    }
    const data = this.buffered === undefined ? chunk : Buffer.concat([this.buffered, chunk]);
    this.buffered = data;
    if (this.bodyStart < 0) {
      const end = data.indexOf(HEAD_END);
      if (end < 0) {
        return;
      }
      const head = data.toString('latin1', 0, end);
      this.status = Number(head.slice(9, 12));
      const length = CONTENT_LENGTH.exec(head);
      if (length === null) {
        this.pool.failLine(this, `an answer without content-length: ${head.split('\r\n')[0]}`);
        return;
      }
      this.bodyStart = end + HEAD_END.length;
      this.bodyLength = Number(length[1]);
    }
    const end = this.bodyStart + this.bodyLength;
    if (data.length < end) {
      return;
    }
    if (data.length > end) {
      this.pool.failLine(this, 'more bytes than one answer (the server answered twice?)');
      return;
    }
    const latency = performance.now() - this.sentAt;
    const body = this.pool.expectBody === undefined ? undefined : data.toString('utf8', this.bodyStart, end);
    const status = this.status;
    this.sentAt = -1;
    this.reset();
    this.pool.answered(this, status, latency, body);
  }

  /** The socket closed or failed. */
  private lost(socket: Socket): void {
    if (this.socket !== socket) {
      return;
    }
    this.socket = undefined;
    socket.destroy();
    if (this.sentAt < 0) {
      this.pool.reopen(this, 'idle');
      return;
    }
    this.sentAt = -1;
    // A server may close a keep-alive connection just as the next request goes out. With no
    // byte of the answer read, that request is sent again on a new connection, as HTTP clients
    // do; any other loss is an error.
    if (this.firstAfterIdle && this.buffered === undefined) {
      this.pool.reopen(this, 'retry');
    } else {
      this.pool.countError();
      this.pool.reopen(this, 'resume');
    }
  }

  destroy(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
  }

  /** Destroys the socket and forgets the request in flight; returns whether there was one. */
  drop(): boolean {
    const inFlight = this.sentAt >= 0;
    this.destroy();
    this.sentAt = -1;
    return inFlight;
  }
}

/** `connections` keep-alive connections to one URL, driven slice after slice. */
export class HeldConnections {
  readonly host: string;
  readonly port: number;
  readonly request: Buffer;
  expectBody: string | undefined;
  /** Whether a line failed already: the first reason is printed, the rest only counted. */
  private reported = false;
  private readonly lines: Line[] = [];
  private tally: Tally | undefined;
  private deadline = 0;
  private busy = 0;
  private finish: (() => void) | undefined;
  private closed = false;
  /** A reopening in progress per line, so that a slice can wait for them. */
  private readonly reopening = new Set<Promise<void>>();

  private constructor(
    url: string,
    spec: RequestSpec,
    private readonly timeoutS: number,
  ) {
    const target = new URL(url);
    this.host = target.hostname;
    this.port = Number(target.port);
    const body = Buffer.from(spec.body);
    const headers = { ...spec.headers, host: target.host, 'content-length': String(body.length) };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    this.request = Buffer.concat([Buffer.from(`POST ${target.pathname} HTTP/1.1\r\n${head}\r\n`, 'latin1'), body]);
  }

  /**
   * Opens `connections` connections to `url`. Warm them up with a first `run` before measuring.
   * A request unanswered after `timeoutS` seconds counts as timed out and its connection is replaced.
   */
  static async open(
    url: string,
    spec: RequestSpec,
    connections: number,
    timeoutS = REQUEST_TIMEOUT_S,
  ): Promise<HeldConnections> {
    const pool = new HeldConnections(url, spec, timeoutS);
    for (let i = 0; i < connections; i++) {
      pool.lines.push(new Line(pool));
    }
    try {
      await Promise.all(pool.lines.map((line) => line.open()));
    } catch (error) {
      pool.close();
      throw error;
    }
    return pool;
  }

  /**
   * Keeps every connection busy for about `durationS` seconds; returns once each has its last
   * answer. With `expectBody`, an answer whose body differs counts as a mismatch.
   */
  async run(durationS: number, expectBody?: string): Promise<Slice> {
    if (this.tally !== undefined) {
      throw new Error('a slice is already running on these connections');
    }
    await Promise.all(this.reopening);
    this.expectBody = expectBody;
    const tally: Tally = {
      latencies: new LatencyLog(),
      ok2xx: 0,
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      mismatches: 0,
    };
    this.tally = tally;
    const clientStart = process.cpuUsage();
    const start = performance.now();
    this.deadline = start + durationS * 1000;
    const ended = new Promise<void>((done) => (this.finish = done));
    const watchdog = setInterval(() => this.expire(), 100);
    for (const line of this.lines) {
      if (line.socket !== undefined) {
        this.busy++;
        line.send(true);
      } else {
        tally.errors++;
      }
    }
    if (this.busy === 0) {
      this.finish!();
    }
    await ended;
    clearInterval(watchdog);
    const elapsedS = (performance.now() - start) / 1000;
    const client = process.cpuUsage(clientStart);
    this.tally = undefined;
    return {
      requests: tally.latencies.length,
      durationS: elapsedS,
      ok2xx: tally.ok2xx,
      non2xx: tally.non2xx,
      errors: tally.errors,
      timeouts: tally.timeouts,
      mismatches: tally.mismatches,
      latencies: tally.latencies.toArray(),
      clientCpuUs: client.user + client.system,
    };
  }

  /** Closes every connection. */
  close(): void {
    this.closed = true;
    for (const line of this.lines) {
      line.destroy();
    }
  }

  /** @internal A complete answer on `line`. */
  answered(line: Line, status: number, latencyMs: number, body: string | undefined): void {
    const tally = this.tally;
    if (tally === undefined) {
      return;
    }
    tally.latencies.add(latencyMs);
    if (status >= 200 && status < 300) {
      tally.ok2xx++;
    } else {
      tally.non2xx++;
    }
    if (body !== undefined && body !== this.expectBody) {
      tally.mismatches++;
    }
    this.next(line);
  }

  /** @internal The answers on `line` cannot be read: counted as an error, the line reconnected. */
  failLine(line: Line, reason: string): void {
    if (!this.reported) {
      this.reported = true;
      console.error(`held connection to ${this.host}:${this.port}: ${reason} (counted as an error)`);
    }
    this.countError();
    this.reopen(line, line.drop() ? 'resume' : 'idle');
  }

  /** @internal */
  countError(): void {
    if (this.tally !== undefined) {
      this.tally.errors++;
    }
  }

  /**
   * @internal `line` lost its socket and connects again. Then: `idle`, nothing was in flight;
   * `resume`, its request was lost (counted by the caller) and it goes on with the slice;
   * `retry`, its request is sent again.
   */
  reopen(line: Line, then: 'idle' | 'resume' | 'retry'): void {
    if (this.closed) {
      return;
    }
    const reopened = line.open().then(
      () => {
        this.reopening.delete(reopened);
        if (then === 'retry' && this.tally !== undefined) {
          line.send(false);
        } else if (then !== 'idle') {
          this.next(line);
        }
      },
      () => {
        this.reopening.delete(reopened);
        this.countError();
        if (then !== 'idle') {
          this.idle();
        }
      },
    );
    this.reopening.add(reopened);
  }

  /** Sends the next request on `line`, or lets it rest when the slice is over. */
  private next(line: Line): void {
    if (this.tally !== undefined && performance.now() < this.deadline && line.socket !== undefined) {
      line.send(false);
    } else {
      this.idle();
    }
  }

  private idle(): void {
    this.busy--;
    if (this.busy === 0) {
      this.finish?.();
      this.finish = undefined;
    }
  }

  /** Requests in flight for longer than the timeout: counted, and their connection replaced. */
  private expire(): void {
    const limit = performance.now() - this.timeoutS * 1000;
    for (const line of this.lines) {
      if (line.sentAt >= 0 && line.sentAt < limit) {
        this.tally!.timeouts++;
        line.drop();
        this.reopen(line, 'idle');
        // Its place in the slice ends with the timeout.
        this.idle();
      }
    }
  }
}
