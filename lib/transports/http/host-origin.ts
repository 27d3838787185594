/**
 * DNS-rebinding protection: the Host and Origin checks every MCP HTTP request passes first.
 */
import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import type { McpHeaderBag } from '../../protocol/messages/request-headers';
import { firstHeader } from './http-exchange';
import { McpErrorCode, failure, type JSONRPCErrorResponse } from '../../protocol/messages/json-rpc';
import { FORBIDDEN_HOST, FORBIDDEN_ORIGIN } from '../../shared/mcp.messages';

export interface HostOriginPolicy {
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Whether a host name (as {@link hostName} gives it) is an IP literal: IPv4 dotted, or IPv6 in
 * brackets. No DNS answer stands behind one, so a rebinding page cannot be reached through it.
 */
function isIpLiteral(name: string): boolean {
  return name.startsWith('[') ? name.endsWith(']') && isIPv6(name.slice(1, -1)) : isIPv4(name);
}

/** Whether a local socket address is a loopback address. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) {
    return false;
  }
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || plain.startsWith('127.');
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]:port`), lower-cased. */
function hostName(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    return end === -1 ? lower : lower.slice(0, end + 1);
  }
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

function normalizeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? undefined : url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Which check a request failed: its Host header, or its Origin. */
export type HostOriginRefusal = 'host' | 'origin';

/** The answer to a request whose Host or Origin is not allowed (HTTP 403), naming the option that admits it. */
export const FORBIDDEN: Readonly<Record<HostOriginRefusal, JSONRPCErrorResponse>> = Object.freeze({
  host: failure(null, McpErrorCode.InvalidRequest, FORBIDDEN_HOST),
  origin: failure(null, McpErrorCode.InvalidRequest, FORBIDDEN_ORIGIN),
});

/** Whether a request passes the Host and Origin checks (see {@link hostOriginRefusal}). */
export function passesHostAndOrigin(
  headers: McpHeaderBag,
  localAddress: string | undefined,
  policy: HostOriginPolicy,
): boolean {
  return hostOriginRefusal(headers, localAddress, policy) === undefined;
}

/**
 * Which of the Host and Origin checks a request fails, or `undefined` when it passes both.
 *
 * Host: checked against `allowedHosts` when set (a name matches any port; `name:port` only that
 * port). Otherwise, whatever address the connection arrived on, a name that a DNS answer could
 * point anywhere is refused (DNS rebinding): a loopback connection must name a loopback host
 * (`localhost`, `127.0.0.1`, `[::1]`), any other (a container's published port, a LAN address,
 * an unknown one) a loopback host or an IP literal (`10.0.0.5`, `[fd00::5]`, with or without a
 * port). A server reached by name lists it in `allowedHosts`; names under `.localhost` too.
 * Origin: a request without one passes. Otherwise it must be in `allowedOrigins` when set;
 * without the option, loopback connections accept loopback origins, others their own origin.
 */
export function hostOriginRefusal(
  headers: McpHeaderBag,
  localAddress: string | undefined,
  policy: HostOriginPolicy,
): HostOriginRefusal | undefined {
  const host = firstHeader(headers, 'host');
  const loopback = isLoopbackAddress(localAddress);
  if (policy.allowedHosts !== undefined) {
    if (!policy.allowedHosts.includes('*')) {
      if (host === undefined) {
        return 'host';
      }
      const lower = host.toLowerCase();
      const name = hostName(lower);
      if (!policy.allowedHosts.some((allowed) => allowed.toLowerCase() === lower || allowed.toLowerCase() === name)) {
        return 'host';
      }
    }
  } else if (host === undefined) {
    return 'host';
  } else {
    const name = hostName(host);
    if (!LOOPBACK_NAMES.has(name) && (loopback || !isIpLiteral(name))) {
      return 'host';
    }
  }

  const origin = firstHeader(headers, 'origin');
  if (origin === undefined) {
    return undefined;
  }
  return originAllowed(origin, host, loopback, policy) ? undefined : 'origin';
}

function originAllowed(origin: string, host: string | undefined, loopback: boolean, policy: HostOriginPolicy): boolean {
  if (policy.allowedOrigins !== undefined) {
    if (policy.allowedOrigins.includes('*')) {
      return true;
    }
    if (origin === 'null') {
      return policy.allowedOrigins.includes('null');
    }
    const normalized = normalizeOrigin(origin);
    return normalized !== undefined && policy.allowedOrigins.some((allowed) => normalizeOrigin(allowed) === normalized);
  }
  const normalized = normalizeOrigin(origin);
  if (normalized === undefined) {
    return false;
  }
  const originHost = new URL(normalized).host;
  if (loopback) {
    return LOOPBACK_NAMES.has(hostName(originHost));
  }
  return host !== undefined && originHost === host.toLowerCase();
}

/**
 * The Host/Origin verdicts of one policy, remembered per (local address, Host, Origin): clients
 * repeat the same values on every request. Bounded, as the values come from clients.
 */
export class HostOriginVerdicts {
  private readonly verdicts = new Map<string, HostOriginRefusal | 'admitted'>();
  /**
   * The last verdict on each connection, with the Host and Origin it was for: a client sends the
   * same on every request of a connection, and comparing two short strings costs less than
   * building and hashing the key of `verdicts` (about 1 µs a request in `npm run bench`).
   */
  private readonly lastOnSocket = new WeakMap<object, SocketVerdict>();

  constructor(private readonly policy: HostOriginPolicy) {}

  /** Which check the request fails, or `undefined` when it passes both. */
  of(req: IncomingMessage): HostOriginRefusal | undefined {
    const { headers, socket } = req;
    const { host, origin } = headers;
    const last = socket === undefined || socket === null ? undefined : this.lastOnSocket.get(socket);
    if (last !== undefined && last.host === host && last.origin === origin) {
      return last.verdict;
    }
    const localAddress = socket?.localAddress;
    const key = `${localAddress}\n${String(host)}\n${String(origin)}`;
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      verdict = hostOriginRefusal(headers, localAddress, this.policy) ?? 'admitted';
      if (this.verdicts.size >= 256) {
        this.verdicts.clear();
      }
      this.verdicts.set(key, verdict);
    }
    const refusal = verdict === 'admitted' ? undefined : verdict;
    if (socket !== undefined && socket !== null) {
      this.lastOnSocket.set(socket, { host, origin, verdict: refusal });
    }
    return refusal;
  }
}

/** A connection's last Host and Origin, and the verdict on them. */
interface SocketVerdict {
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly verdict: HostOriginRefusal | undefined;
}
