/**
 * The methods extensions add (SEP-2133), turned into entries of the engine's method table: their
 * startup checks (a well-formed name, no built-in method or notification, no other extension's
 * method, eras the extension is advertised in), and the handler that serves one: the client's
 * support when the method requires it (-32021), the scopes (as a tool's), then the extension's
 * handler, whose value must be a JSON object.
 */
import { McpErrorCode, isJsonObject, type JSONObject } from './messages/json-rpc';
import { McpError } from './messages/mcp-error';
import type { McpEra } from './messages/revisions';
import { isThenable } from './messages/thenables';
import { requireScopes, type EntryAccess } from './calls/access';
import type { ExtensionMethod } from './calls/extension-method';
import type { ResolvedRequest } from './calls/resolved-request';
import { clientSupports, extensionRequired, type ExtensionProblem, type McpExtension } from './extensions/extensions';
import { BUILT_IN_METHODS, SPEC_NOTIFICATIONS, type MethodEntry, type MethodHandler } from './methods';

// Slash-separated segments, like the specification's own methods (`resources/templates/list`):
// each starts with a letter; letters, digits, `_` and `-` follow. At least two segments, so an
// extension's methods live under a family of their own (`notes-audit/entries`).
const SEGMENT = '[A-Za-z][A-Za-z0-9_-]*';
const METHOD_NAME = new RegExp(`^${SEGMENT}(?:/${SEGMENT})+$`);
const MAX_METHOD_LENGTH = 128;
const ERAS: readonly McpEra[] = ['legacy', 'modern'];

/** Whether `method` is a well-formed extension method name (`notes-audit/entries`). */
export function isExtensionMethodName(method: unknown): method is string {
  return typeof method === 'string' && method.length <= MAX_METHOD_LENGTH && METHOD_NAME.test(method);
}

/** The eras of `extension` (both when it names none). */
function erasOf(extension: McpExtension): readonly McpEra[] {
  return extension.eras ?? ERAS;
}

function methodProblem(method: ExtensionMethod, extension: McpExtension | undefined): string | undefined {
  if (!isExtensionMethodName(method.method)) {
    return `must be a method name of slash-separated segments that start with a letter, such as "notes-audit/entries" (got ${JSON.stringify(method.method)})`;
  }
  if (method.method.startsWith('notifications/')) {
    return `"${method.method}" is a notification name: a request method may not start with "notifications/"`;
  }
  if (BUILT_IN_METHODS.has(method.method) || SPEC_NOTIFICATIONS.has(method.method)) {
    return `"${method.method}" is a method of the specification`;
  }
  if (extension === undefined) {
    return `belongs to the extension "${method.extension}", which the server does not declare`;
  }
  const { eras } = method;
  if (eras !== undefined && (eras.length === 0 || eras.some((era) => !erasOf(extension).includes(era)))) {
    return `eras must be a non-empty list of the eras its extension is advertised in (${erasOf(extension).join(', ')})`;
  }
  if (method.nameParam !== undefined && (typeof method.nameParam !== 'string' || method.nameParam.length === 0)) {
    return 'nameParam must be a non-empty string';
  }
  if (typeof method.handler !== 'function') {
    return 'must have a handler function';
  }
  return undefined;
}

/**
 * What is wrong with the methods extensions add, checked once at startup; `at` is the method's
 * index in `methods`. `extensions` are the server's declarations, already checked.
 */
export function extensionMethodProblem(
  extensions: readonly McpExtension[],
  methods: readonly ExtensionMethod[],
): ExtensionProblem | undefined {
  const declared = new Map(extensions.map((extension) => [extension.id, extension]));
  const owners = new Map<string, string>();
  for (const [index, method] of methods.entries()) {
    const reason = methodProblem(method, declared.get(method.extension));
    if (reason !== undefined) {
      return { at: `[${index}]`, reason };
    }
    const owner = owners.get(method.method);
    if (owner !== undefined) {
      return {
        at: `[${index}]`,
        reason: `"${method.method}" is added twice (by ${owner} and by ${method.extension})`,
      };
    }
    owners.set(method.method, method.extension);
  }
  return undefined;
}

/**
 * The method table's entries of the extensions' methods, by name. `methods` must have passed
 * `extensionMethodProblem`; the table refuses any that names a built-in method.
 */
export function extensionMethodEntries(
  extensions: readonly McpExtension[],
  methods: readonly ExtensionMethod[],
): ReadonlyMap<string, MethodEntry> {
  const eraOf = new Map(extensions.map((extension) => [extension.id, erasOf(extension)]));
  const entries = new Map<string, MethodEntry>();
  for (const method of methods) {
    const eras = method.eras ?? eraOf.get(method.extension) ?? ERAS;
    const era = eras.length === 1 ? eras[0] : 'both';
    entries.set(method.method, {
      handler: extensionHandler(method),
      era,
      ...(method.cacheable === true ? { cacheable: 'catalog' as const } : {}),
      ...(method.nameParam !== undefined && era !== 'legacy' ? { nameParam: method.nameParam } : {}),
    });
  }
  return entries;
}

/** How the engine serves one extension method. */
function extensionHandler(declared: ExtensionMethod): MethodHandler {
  const { method, extension, nameParam, handler } = declared;
  const access: EntryAccess | undefined =
    declared.scopes !== undefined && declared.scopes.length > 0 ? { scopes: [...declared.scopes] } : undefined;
  const requiresSupport = declared.requiresClientSupport === true;
  return (context, request) => {
    if (requiresSupport && !clientSupports(request.clientCapabilities, extension)) {
      throw extensionRequired(
        extension,
        `Missing required client capability: method ${method} needs the ${extension} extension`,
      );
    }
    requireScopes(access, request.principal, `method ${method}`);
    const { _meta: _ignored, ...params } = request.params;
    const name = nameParam === undefined ? undefined : params[nameParam];
    if (nameParam !== undefined && typeof name !== 'string') {
      throw new McpError(McpErrorCode.InvalidParams, `Invalid params: ${nameParam} must be a string`);
    }
    const call = context.createCallContext(request, name as string | undefined);
    const value = handler(params, call, request.facts.native);
    return isThenable(value) ? resultLater(request, value) : resultOf(request, value);
  };
}

/** `resultOf` once the handler settles (a continuation of its own: see `Awaitable`). */
function resultLater(request: ResolvedRequest, pending: PromiseLike<unknown>): Promise<JSONObject> {
  return Promise.resolve(pending).then((value) => resultOf(request, value));
}

/**
 * The handler's value as the result: a copy of the object (the engine completes results in
 * place: the handler's own object stays as it was). Anything else is the server's fault: the
 * engine logs it and answers -32603.
 */
function resultOf(request: ResolvedRequest, value: unknown): JSONObject {
  if (!isJsonObject(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new Error(`The handler of ${request.method} returned ${got}: a result must be a JSON object`);
  }
  return { ...value };
}
