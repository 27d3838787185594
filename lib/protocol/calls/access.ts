/**
 * Who may call and who may see a tool, resource, template or prompt: the scopes it requires
 * (`@McpScopes`), and an optional visibility check (the handler's guards marked as deciding
 * visibility). A call without the scopes is refused before its handler runs; list requests show
 * a principal only what it may call, and say so with `cacheScope: "private"`.
 */
import { McpErrorCode, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import type { McpCallContext, McpPrincipal } from './call-context';
import type { McpNativeExchange } from '../messages/native-exchange';

/** The access rules of one entry; entries without any leave it undefined. */
export interface EntryAccess {
  /** Scopes the principal must all hold. */
  readonly scopes: readonly string[];
  /**
   * Whether the caller may see the entry in lists; run with the list request's context. A
   * failure hides the entry. `native` is the list request's transport objects.
   */
  readonly visible?: (call: McpCallContext, native: McpNativeExchange | undefined) => boolean | Promise<boolean>;
}

/** The scopes of `required` that `principal` does not hold. */
export function missingScopes(principal: McpPrincipal, required: readonly string[]): string[] {
  return required.filter((scope) => !principal.scopes.includes(scope));
}

/** Refuses a call whose principal lacks a scope the entry requires. */
export function requireScopes(access: EntryAccess | undefined, principal: McpPrincipal, what: string): void {
  if (access === undefined || access.scopes.length === 0) {
    return;
  }
  if (missingScopes(principal, access.scopes).length > 0) {
    throw new McpError(McpErrorCode.InsufficientScope, `Insufficient scope for ${what}`, {
      requiredScopes: [...access.scopes],
    });
  }
}

/**
 * The rendered entries `call.principal` may see: `rendered[i]` is the rendering of `entries[i]`.
 * Returns `undefined` when no entry has access rules (the list is the same for everyone).
 * `native` (the list request's transport objects) is handed to each visibility check.
 */
export async function visibleEntries<R = JSONObject>(
  entries: ReadonlyArray<{ readonly access?: EntryAccess }>,
  rendered: readonly R[],
  call: () => McpCallContext,
  onFailure: (error: unknown) => void,
  native: McpNativeExchange | undefined,
): Promise<R[] | undefined> {
  if (!entries.some((entry) => entry.access !== undefined)) {
    return undefined;
  }
  let context: McpCallContext | undefined;
  const verdicts = await Promise.all(
    entries.map(async (entry) => {
      const access = entry.access;
      if (access === undefined) {
        return true;
      }
      if (missingScopes((context ??= call()).principal, access.scopes).length > 0) {
        return false;
      }
      if (access.visible === undefined) {
        return true;
      }
      try {
        return (await access.visible(context, native)) === true;
      } catch (error) {
        onFailure(error);
        return false;
      }
    }),
  );
  return rendered.filter((_entry, index) => verdicts[index]);
}
