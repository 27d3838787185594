/**
 * The caller an application's guard admitted (`auth.guard`), read from the user it left on the
 * request (`request.user`, Passport's): the shapes Passport strategies usually return (a JWT
 * payload, a user record) need no mapping of their own.
 */
import type { McpPrincipalInit } from '../interfaces/mcp-auth-options.interface';

/** Where a user's id is looked for, in this order. */
const ID_FIELDS = ['sub', 'id', 'userId', 'username'] as const;

/** An id as a string: strings (non-empty) and numbers only, so that an object never becomes "[object Object]". */
function idText(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value.length > 0 ? value : undefined;
  }
  return typeof value === 'number' || typeof value === 'bigint' ? String(value) : undefined;
}

/** `scopes` (a list of strings) or `scope` (space-separated, as in OAuth tokens); none otherwise. */
function scopesOf(user: Record<string, unknown>): string[] {
  const { scopes, scope } = user;
  if (Array.isArray(scopes)) {
    return scopes.filter((item): item is string => typeof item === 'string' && item.length > 0);
  }
  return typeof scope === 'string' ? scope.split(' ').filter((item) => item.length > 0) : [];
}

/**
 * The principal of `user`: `id` from `sub`, `id`, `userId` or `username` (the first present),
 * as a string; `scopes` from `scopes` or `scope`; `claims` the user itself. A user that is a
 * string or a number is its own id. `undefined` when no id can be read.
 */
export function userPrincipal(user: unknown): McpPrincipalInit | undefined {
  if (typeof user !== 'object' || user === null) {
    const id = idText(user);
    return id === undefined ? undefined : { id };
  }
  const fields = user as Record<string, unknown>;
  const field = ID_FIELDS.find((name) => fields[name] !== undefined && fields[name] !== null);
  const id = field === undefined ? undefined : idText(fields[field]);
  return id === undefined ? undefined : { id, scopes: scopesOf(fields), claims: fields };
}
