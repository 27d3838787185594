/**
 * The one place `RequestFacts` are built, and the rules that settle a legacy message's
 * revision from its version header and its session.
 */
import type { RequestFacts } from './engine';
import type { FactsInput, OpenedChannel } from './inbound-types';
import {
  DEFAULT_LEGACY_HEADER_REVISION,
  legacyHeaderRevision,
  type McpEra,
  type McpRevision,
} from './messages/revisions';
import type { SessionHandle } from './messages/session-handle';

/** The legacy part of a message's facts. */
export interface LegacyFacts {
  readonly session?: SessionHandle;
  readonly revision?: McpRevision;
}

/**
 * The facts of one message: what the transport knows (`input`), the message's channel, and in
 * the legacy era its session and revision. A legacy message is cancelled within its session,
 * or else the transport's scope.
 */
export function inboundFacts(
  input: FactsInput,
  era: McpEra,
  opened: OpenedChannel,
  legacy?: LegacyFacts,
): RequestFacts {
  const modern = era === 'modern';
  return {
    era,
    transport: input.transport,
    principal: input.principal,
    revision: modern ? undefined : legacy?.revision,
    session: modern ? undefined : legacy?.session,
    headers: modern || input.headersInLegacy === true ? input.headers : undefined,
    cancellation: opened.cancellation ?? input.cancellation,
    channel: opened.channel,
    cancelScope: modern ? input.cancelScope : (legacy?.session?.id ?? input.cancelScope),
    timeoutMs: input.timeoutMs,
    native: input.native,
  };
}

/**
 * The revision of a legacy message sent within a session named by a header (Streamable HTTP):
 * the version header when there is one (but on `initialize`, which negotiates it), else the
 * session's; a session that has none yet is taken as the default header revision.
 */
export function sessionRevision(
  versionHeader: string | undefined,
  method: string | undefined,
  session: { readonly protocolVersion?: McpRevision } | undefined,
  hasSession: boolean,
  supported: readonly McpRevision[],
): { readonly revision: McpRevision | undefined } | { readonly error: string } {
  let revision = session?.protocolVersion;
  if (versionHeader !== undefined && method !== 'initialize') {
    const read = legacyHeaderRevision(versionHeader, supported);
    if ('error' in read) {
      return read;
    }
    revision = read.revision;
  }
  if (revision === undefined && hasSession && method !== 'initialize') {
    revision = DEFAULT_LEGACY_HEADER_REVISION;
  }
  return { revision };
}
