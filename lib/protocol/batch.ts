/**
 * JSON-RPC batches, as the revisions that have them (2024-11-05, 2025-03-26) define them: a
 * batch is refused where the revision lacks batching; an empty batch or one that mixes requests
 * with responses is invalid; a batch of responses needs no answer; otherwise every element is
 * served on its own and invalid elements get their own error.
 */
import { eraOf, hasFeature } from './messages/revisions';
import {
  classifyMessage,
  McpErrorCode,
  failure,
  type ClassifiedMessage,
  type JSONRPCErrorResponse,
  type JSONRPCResponse,
} from './messages/json-rpc';
import type { McpEngine, RequestFacts } from './engine';

export type BatchPlan =
  | { readonly type: 'reject'; readonly error: JSONRPCErrorResponse }
  /** Only responses: answers to this server's requests, to deliver; nothing to send back. */
  | { readonly type: 'responses'; readonly responses: readonly JSONRPCResponse[] }
  | { readonly type: 'run'; readonly items: readonly ClassifiedMessage[] };

const NOT_SUPPORTED = failure(null, McpErrorCode.InvalidRequest, 'Batch requests are not supported');

/**
 * The refusal of a batch whose `MCP-Protocol-Version` header names a modern revision: that era
 * has no batches, so it is refused before any session is looked up.
 */
export function batchRefusedByHeader(headerVersion: string | undefined): JSONRPCErrorResponse | undefined {
  return eraOf(headerVersion) === 'modern' ? NOT_SUPPORTED : undefined;
}

/** Decides what to do with a batch arriving for `revision`. */
export function planBatch(elements: readonly unknown[], revision: string | undefined): BatchPlan {
  if (!hasFeature(revision, 'batch')) {
    return { type: 'reject', error: NOT_SUPPORTED };
  }
  if (elements.length === 0) {
    return { type: 'reject', error: failure(null, McpErrorCode.InvalidRequest, 'Invalid Request: empty batch') };
  }
  const items = elements.map((element): ClassifiedMessage => {
    const item = classifyMessage(element);
    if (item.kind === 'request' && item.message.method === 'initialize') {
      return {
        kind: 'invalid',
        id: item.message.id,
        reason: 'Invalid Request: initialize cannot be batched',
        isNotification: false,
      };
    }
    return item;
  });
  const responses = items.flatMap((item) => (item.kind === 'response' ? [item.message] : []));
  if (responses.length === items.length) {
    return { type: 'responses', responses };
  }
  if (responses.length > 0) {
    return {
      type: 'reject',
      error: failure(null, McpErrorCode.InvalidRequest, 'Invalid Request: a batch mixes requests and responses'),
    };
  }
  return { type: 'run', items };
}

/**
 * Serves the elements of a batch plan side by side with the same facts; returns the answers of
 * its requests (invalid elements included), in order. Notifications get none.
 */
export async function runBatch(
  engine: McpEngine,
  facts: RequestFacts,
  items: readonly ClassifiedMessage[],
): Promise<JSONRPCResponse[]> {
  const answers = await Promise.all(
    items.map(async (item): Promise<JSONRPCResponse | undefined> => {
      if (item.kind === 'invalid') {
        return item.isNotification ? undefined : failure(item.id, McpErrorCode.InvalidRequest, item.reason);
      }
      if (item.kind === 'response') {
        return undefined;
      }
      const outcome = await engine.handle(facts, item.message);
      return outcome.type === 'response' ? outcome.response : undefined;
    }),
  );
  return answers.filter((answer): answer is JSONRPCResponse => answer !== undefined);
}
