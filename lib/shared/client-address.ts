/**
 * The address of the client that sent a platform request (Express or Fastify), for what counts
 * callers by where they come from: the anonymous principal's quota, the basic-auth failure limit.
 */
import type { IncomingMessage } from 'node:http';

/**
 * The client's address as the platform reports it: Express's `req.ip` and Fastify's
 * `request.ip` follow the application's trust-proxy setting; else the socket's peer.
 */
export function clientAddress(request: unknown): string | undefined {
  const platform = request as { ip?: unknown; socket?: { remoteAddress?: string }; raw?: IncomingMessage } | null;
  if (platform === null || typeof platform !== 'object') {
    return undefined;
  }
  const ip = platform.ip;
  if (typeof ip === 'string' && ip !== '') {
    return ip;
  }
  return (platform.socket ?? platform.raw?.socket)?.remoteAddress;
}
