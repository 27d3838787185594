/**
 * Who owns the tasks of a request. A task is only ever found by its owner: another caller's
 * task is answered as an unknown one.
 */
import type { ResolvedRequest } from '../resolved-request';

/** The owner of a request's tasks: its legacy session, else its principal. */
export function taskOwner(request: ResolvedRequest): string {
  const session = request.facts.session;
  return request.era === 'legacy' && session !== undefined
    ? `session:${session.id}`
    : `principal:${request.principal.id}`;
}
