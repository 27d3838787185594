/**
 * Which era serves which method, on which transport. One table, so that the answer to
 * "is this method here?" is given in one place (-32601 otherwise; HTTP 404 in the modern era).
 */
import { hasFeature, type Era, type RevisionFeature } from './revisions';
import type { TransportKind } from './call-context';

type Availability = 'legacy' | 'modern' | 'both';

const METHODS: Readonly<Record<string, Availability>> = {
  initialize: 'legacy',
  ping: 'legacy',
  'logging/setLevel': 'legacy',
  'resources/subscribe': 'legacy',
  'resources/unsubscribe': 'legacy',
  'server/discover': 'both',
  'tools/list': 'both',
  'tools/call': 'both',
  'resources/list': 'both',
  'resources/read': 'both',
  'resources/templates/list': 'both',
  'prompts/list': 'both',
  'prompts/get': 'both',
  'completion/complete': 'both',
  'subscriptions/listen': 'modern',
  'tasks/get': 'both',
  'tasks/cancel': 'both',
  'tasks/result': 'legacy',
  'tasks/list': 'legacy',
  'tasks/update': 'modern',
};

/** Legacy methods that only some revisions define: the feature the revision must have. */
const LEGACY_FEATURE: Readonly<Record<string, RevisionFeature>> = {
  'tasks/get': 'coreTasks',
  'tasks/cancel': 'coreTasks',
  'tasks/result': 'coreTasks',
  'tasks/list': 'coreTasks',
};

/**
 * Requests held open until the client cancels them or the server ends them. Only transports
 * that can hold a stream serve them, and the call deadline (`callTimeoutMs`) does not apply.
 */
export const LONG_LIVED_METHODS: ReadonlySet<string> = new Set(['subscriptions/listen']);
/** Requests that wait by a limit of their own (`tasks.resultTimeoutMs`) rather than `callTimeoutMs`. */
export const SELF_TIMED_METHODS: ReadonlySet<string> = new Set(['tasks/result']);
const STREAMING_TRANSPORTS: ReadonlySet<TransportKind> = new Set(['streamable-http', 'stdio']);

/**
 * Whether `method` is served to a request of `era` arriving on `transport`; for a legacy
 * request, `revision` is the session's (methods some revisions lack are refused without it).
 */
export function servesMethod(era: Era, method: string, transport: TransportKind, revision?: string): boolean {
  // The 2024-11-05 SSE pair predates discovery: refusing it makes clients fall back to the handshake.
  if (method === 'server/discover' && transport === 'sse') {
    return false;
  }
  if (LONG_LIVED_METHODS.has(method) && !STREAMING_TRANSPORTS.has(transport)) {
    return false;
  }
  const availability = METHODS[method];
  if (availability !== 'both' && availability !== era) {
    return false;
  }
  const feature = era === 'legacy' ? LEGACY_FEATURE[method] : undefined;
  return feature === undefined || hasFeature(revision, feature);
}

/** Methods whose complete results carry `ttlMs` and `cacheScope` in the modern era. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);
