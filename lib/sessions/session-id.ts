/**
 * The ids of legacy sessions: made here, and checked here before any store is asked for one a
 * client sent.
 */
import { randomBytes } from 'node:crypto';

/** `mcp_` and 32 lowercase hex digits: the ids `newSessionId` makes. Linear: no alternation, no nesting. */
const SESSION_ID = /^mcp_[0-9a-f]{32}$/;
const SESSION_ID_LENGTH = 36;

/** A new session id: 128 random bits. */
export function newSessionId(): string {
  return `mcp_${randomBytes(16).toString('hex')}`;
}

/**
 * Whether `id` has the shape of the ids `newSessionId` makes. Anything else names no session and
 * is refused as an unknown one before a store is asked: a store's keys are built from the id, and
 * a crafted one (`<id>:subs` in Redis) would name another key.
 */
export function isSessionId(id: string): boolean {
  return id.length === SESSION_ID_LENGTH && SESSION_ID.test(id);
}
