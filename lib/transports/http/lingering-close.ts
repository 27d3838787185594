/**
 * Closing a connection whose request body is still arriving, without losing the answer.
 *
 * An answer that leaves part of the body unread closes the connection (`Connection: close`),
 * and Node closes the socket as soon as the answer is flushed. Closing a socket with unread
 * bytes makes the kernel send a reset, and a client still writing its body gets EPIPE or
 * ECONNRESET before it reads the answer already in its buffer: Node's own client does so on
 * Linux 6.x for every chunked body over the limit. So the close lingers, as web servers do:
 * the answer goes out with a FIN, what the client still sends is read and dropped, and the
 * socket closes once the client stops (its body ends or it closes), or after a bound of bytes
 * and time, so that a client cannot keep the server reading.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** The longest a closing connection is read on after its answer. */
export const LINGER_MS = 2_000;

/** The most a closing connection reads and drops after its answer. */
export const LINGER_BYTES = 16 * 1024 * 1024;

/** The bounds of one lingering close (the defaults above; tests pass shorter ones). */
export interface LingerBounds {
  readonly ms: number;
  readonly bytes: number;
}

const DEFAULT_BOUNDS: LingerBounds = { ms: LINGER_MS, bytes: LINGER_BYTES };

/**
 * Makes the close that follows the answer to `req` a lingering one. Call it before sending an
 * answer with `Connection: close`: Node's HTTP server ends such a connection with
 * `socket.destroySoon()` once the answer is flushed, and this socket's call then half-closes
 * and drains instead. A socket that never gets that call (the client left first) is untouched.
 */
export function lingerOnClose(req: IncomingMessage, bounds: LingerBounds = DEFAULT_BOUNDS): void {
  const socket = req.socket as (Socket & { destroySoon?: (this: Socket) => void }) | null;
  const own = socket === null ? undefined : Object.getOwnPropertyDescriptor(socket, 'destroySoon');
  if (socket === null || typeof socket.destroySoon !== 'function' || socket.destroyed) {
    return;
  }
  socket.destroySoon = function lingeringDestroySoon(this: Socket): void {
    // The socket's method as it was, for this close when nothing is left to drain, and later ones.
    if (own === undefined) {
      delete (socket as { destroySoon?: unknown }).destroySoon;
    } else {
      Object.defineProperty(socket, 'destroySoon', own);
    }
    if (req.readableEnded || req.destroyed) {
      socket.destroySoon?.();
      return;
    }
    drain(req, socket, bounds);
  };
}

/** The header that closes a connection after its answer. */
const CLOSE = Object.freeze({ connection: 'close' });

/**
 * The headers of an answer that leaves part of the request's body unread: the connection closes
 * after the answer, and the close lingers (see {@link lingerOnClose}). Every such answer takes
 * its headers from here, so that none closes without lingering.
 */
export function closeUnread(req: IncomingMessage): Readonly<Record<'connection', string>> {
  lingerOnClose(req);
  return CLOSE;
}

/** Sends the FIN after the answer, then drops what arrives until the client stops or a bound. */
function drain(req: IncomingMessage, socket: Socket, bounds: LingerBounds): void {
  let dropped = 0;
  const finish = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    socket.off('close', finish);
    socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > bounds.bytes) {
      finish();
    }
  };
  const timer = setTimeout(finish, bounds.ms);
  timer.unref();
  req.on('data', onData);
  req.on('end', finish);
  socket.on('close', finish);
  socket.end();
  req.resume();
}
