/**
 * Extensions (SEP-2133, part of 2026-07-28): the one place that knows what the server declares,
 * how it is advertised in `capabilities.extensions` (`initialize`, `server/discover`), whether the
 * requesting client declared support for one, and the -32021 that asks for it. The tasks
 * extension is declared here like any other (`tasks/task-mode.ts`).
 */
import { McpErrorCode, isJsonObject, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import type { McpEra } from '../messages/revisions';
import type { ClientCapabilities } from '../messages/mcp-types';

/**
 * An extension the server supports, advertised to clients in `capabilities.extensions` of the
 * `initialize` result (legacy era) and of `server/discover`.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ name, version, extensions: [{ id: 'com.example/notes-audit', settings: { level: 'full' } }] });
 * ```
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
 * @publicApi
 */
export interface McpExtension {
  /**
   * The extension identifier, `{vendor-prefix}/{extension-name}`: a reversed domain name the
   * author controls (dot-separated labels that start with a letter and end with a letter or
   * digit), a slash, and a name that starts and ends with a letter or digit (`-`, `_` and `.`
   * in between). For example `com.example/notes-audit`.
   */
  readonly id: string;
  /** The extension's settings, sent to clients as they are; `{}` when absent. */
  readonly settings?: JSONObject;
  /** The eras the extension is advertised in; both when absent. */
  readonly eras?: readonly McpEra[];
}

/** Where a declaration list is wrong (`[1].id`, `''` for the list itself) and why. */
export interface ExtensionProblem {
  readonly at: string;
  readonly reason: string;
}

// The `_meta` key rules of 2026-07-28 (basic/index, "Key name format"), with the prefix made
// mandatory and the name non-empty, as SEP-2133 requires of extension identifiers. Dots
// separate the labels, so the repetition cannot backtrack across them.
const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const NAME = '[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?';
const EXTENSION_ID = new RegExp(`^${LABEL}(?:\\.${LABEL})*/${NAME}$`);
const ERAS: readonly McpEra[] = ['legacy', 'modern'];
const SHAPE = '{ id, settings?, eras? }';

/** Whether `id` is a well-formed extension identifier (`com.example/notes-audit`). */
export function isExtensionId(id: unknown): id is string {
  return typeof id === 'string' && EXTENSION_ID.test(id);
}

function entryProblem(entry: unknown, at: string): ExtensionProblem | undefined {
  if (!isJsonObject(entry)) {
    return { at, reason: `must be an object ${SHAPE}` };
  }
  if (!isExtensionId(entry.id)) {
    const reason = `must be an extension identifier {vendor-prefix}/{name}, such as "com.example/notes-audit" (got ${JSON.stringify(entry.id)})`;
    return { at: `${at}.id`, reason };
  }
  if (entry.settings !== undefined && !isJsonObject(entry.settings)) {
    return { at: `${at}.settings`, reason: 'must be an object' };
  }
  const { eras } = entry;
  if (
    eras !== undefined &&
    !(Array.isArray(eras) && eras.length > 0 && eras.every((era) => ERAS.includes(era as McpEra)))
  ) {
    return { at: `${at}.eras`, reason: `must be a non-empty array of ${ERAS.join(', ')}` };
  }
  return undefined;
}

/**
 * What is wrong with a list of declarations, checked once at startup: an entry's shape, a
 * malformed id, an id declared twice, or one of `own` (the ids the module declares itself).
 */
export function extensionProblem(value: unknown, own: readonly string[] = []): ExtensionProblem | undefined {
  if (!Array.isArray(value)) {
    return { at: '', reason: `must be an array of ${SHAPE}` };
  }
  const seen = new Set<string>();
  for (const [index, entry] of value.entries()) {
    const at = `[${index}]`;
    const problem = entryProblem(entry, at);
    if (problem !== undefined) {
      return problem;
    }
    const { id } = entry as McpExtension;
    if (own.includes(id)) {
      return { at: `${at}.id`, reason: `"${id}" is declared by the module itself, through its own option` };
    }
    if (seen.has(id)) {
      return { at: `${at}.id`, reason: `"${id}" is declared twice` };
    }
    seen.add(id);
  }
  return undefined;
}

/** `value`, frozen through and through: every response shares it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** A declaration with its settings copied and frozen through and through: every response shares them. */
function ownCopy({ id, settings, eras }: McpExtension): McpExtension {
  return { id, settings: deepFreeze(structuredClone(settings ?? {})), eras };
}

/**
 * An extension the server declares only while something holds (MCP Apps: while it has a view,
 * which the application may register at runtime). `when` is asked on each `initialize` and
 * `server/discover`, so it must be cheap.
 */
export interface ConditionalExtension {
  readonly extension: McpExtension;
  when(): boolean;
}

/**
 * The server's extensions, rendered once per era (and per set of conditional extensions that
 * hold) and kept: answering `initialize` or `server/discover` reads a map, and the settings
 * cannot change under the server after startup.
 */
export class ExtensionTable {
  private readonly rendered = new Map<string, JSONObject | undefined>();
  private readonly extensions: readonly McpExtension[];
  private readonly conditional: readonly ConditionalExtension[];

  /** `extensions` must have passed `extensionProblem`, and so must the conditional ones. */
  constructor(extensions: readonly McpExtension[], conditional: readonly ConditionalExtension[] = []) {
    // Copied now: what the application changes in its declarations later does not reach clients.
    this.extensions = extensions.map(ownCopy);
    this.conditional = conditional.map((entry) => ({ extension: ownCopy(entry.extension), when: () => entry.when() }));
  }

  /** `capabilities.extensions` for a request of `era`; `undefined` when none applies. */
  advertised(era: McpEra): JSONObject | undefined {
    let key: string = era;
    for (const entry of this.conditional) {
      key += entry.when() ? '1' : '0';
    }
    if (this.rendered.has(key)) {
      return this.rendered.get(key);
    }
    const holding = this.conditional.filter((_entry, index) => key[era.length + index] === '1');
    const applying = [...this.extensions, ...holding.map(({ extension }) => extension)].filter(
      (extension) => extension.eras?.includes(era) ?? true,
    );
    const extensions =
      applying.length === 0
        ? undefined
        : Object.freeze(Object.fromEntries(applying.map(({ id, settings }) => [id, settings])));
    this.rendered.set(key, extensions);
    return extensions;
  }
}

/**
 * Whether the client declared support for extension `id` in its capabilities: those of its
 * `initialize` (legacy era) or of the request's `_meta` (modern era), which the request
 * resolver has already put in the request. Only an object counts: settings are objects.
 */
export function clientSupports(capabilities: ClientCapabilities, id: string): boolean {
  const extensions = (capabilities as JSONObject).extensions;
  return isJsonObject(extensions) && Object.hasOwn(extensions, id) && isJsonObject(extensions[id]);
}

/**
 * The -32021 refusal of a request that needs extension `id`, which the client did not declare:
 * `data.requiredCapabilities.extensions` names it, so that a client can tell what to declare.
 */
export function extensionRequired(
  id: string,
  message = `Missing required client capability: this request needs the ${id} extension`,
): McpError {
  return new McpError(McpErrorCode.MissingRequiredClientCapability, message, {
    requiredCapabilities: { extensions: { [id]: {} } },
  });
}
