/**
 * Who owns the tasks of a request. A task is only ever found by its owner: another caller's
 * task is answered as an unknown one.
 */
import { quotaKeyOf } from '../bounds/principal';
import type { ResolvedRequest } from './resolved-request';

/** The owner of a request's tasks: its legacy session, else its principal. */
export function taskOwner(request: ResolvedRequest): string {
  const session = request.facts.session;
  return request.era === 'legacy' && session !== undefined
    ? `session:${session.id}`
    : `principal:${request.principal.id}`;
}

/**
 * Whom the bounds on live and kept tasks count a request's task under: its principal's quota key
 * in both eras, so that anonymous callers at different addresses do not share one quota while
 * they share the anonymous owner, and a caller's sessions do not each bring a quota of their own.
 */
export function taskQuotaKeyOf(request: ResolvedRequest): string {
  return `principal:${quotaKeyOf(request.principal)}`;
}
