/**
 * The shape every list method shares: the catalog's rendered entries (cached per catalog version
 * and revision), narrowed to what the caller may see, then one page of them; `private` to the
 * caller when it differs by caller.
 */
import type { JSONObject } from '../messages/json-rpc';
import { paginate } from '../messages/pagination';
import { visibleEntries, type EntryAccess } from '../calls/access';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';

export async function listResult(
  context: HandlerContext,
  request: ResolvedRequest,
  field: string,
  entries: ReadonlyArray<{ readonly access?: EntryAccess }>,
  rendered: readonly JSONObject[],
  keyOf: (entry: JSONObject) => string,
  /** Whether the list differs by what the client declared (the tools of a server with app-only tools). */
  variesByClient = false,
): Promise<JSONObject> {
  const visible = await visibleToCaller(context, request, entries, rendered);
  const page = paginate(visible ?? rendered, keyOf, request.params.cursor, context.options.pageSize);
  const result: JSONObject = { [field]: page.items };
  if (page.nextCursor !== undefined) {
    result.nextCursor = page.nextCursor;
  }
  if ((visible !== undefined || variesByClient) && request.era === 'modern') {
    // The list depends on who asks: no cache may hand it to anyone else. No scope narrower
    // than `private` exists for what a client declared; its answers are its own.
    result.cacheScope = 'private';
  }
  return result;
}

/**
 * What the caller of `request` may see of `entries`: `items[i]` stands for `entries[i]` (its
 * rendering, or its position). `undefined` when no entry has access rules: everyone sees all.
 * The one place lists and `search_tools` narrow entries to a caller.
 */
export function visibleToCaller<R>(
  context: HandlerContext,
  request: ResolvedRequest,
  entries: ReadonlyArray<{ readonly access?: EntryAccess }>,
  items: readonly R[],
): Promise<R[] | undefined> {
  return visibleEntries(
    entries,
    items,
    () => context.createCallContext(request, undefined),
    (error) => context.logFailure(request, error),
    request.facts.native,
  );
}
