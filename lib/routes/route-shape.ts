/**
 * The pure rules of a route tool: its default name, its annotations from the HTTP verb, the
 * route's full path (global prefix, URI version, module path); route-path.ts reads and fills it.
 */
import type { ToolAnnotations } from '../protocol/messages/mcp-types';

export type RouteVerb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

function snake(word: string): string {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** `NotesController` and `findOne` → `notes_find_one`. */
export function routeToolName(className: string, methodName: string): string {
  const controller = className.endsWith('Controller') ? className.slice(0, -'Controller'.length) : className;
  return [snake(controller), snake(methodName)].filter((part) => part !== '').join('_');
}

/** The hints an HTTP verb gives, under the route's own `annotations`. */
export function routeAnnotations(verb: RouteVerb, override: ToolAnnotations | undefined): ToolAnnotations {
  const hints: ToolAnnotations = {};
  if (verb === 'GET') {
    hints.readOnlyHint = true;
  }
  if (verb === 'PUT' || verb === 'DELETE') {
    hints.idempotentHint = true;
  }
  if (verb === 'DELETE') {
    hints.destructiveHint = true;
  }
  if (verb !== 'GET') {
    hints.readOnlyHint = false;
  }
  return { ...hints, ...override };
}

/** How the application versions its routes, when by URI. */
export interface UriVersioning {
  /** `'v'` unless the application set another (or `false`: none). */
  readonly prefix: string;
  /** The route's version, else the application's default; absent: no version segment. */
  readonly version?: string;
}

function segments(path: string | undefined): string[] {
  return (path ?? '').split('/').filter((segment) => segment !== '');
}

/** The full path Nest serves a route at: `/{prefix}/{v1}/{module}/{controller}/{method}`. */
export function routePath(parts: {
  readonly globalPrefix?: string;
  readonly versioning?: UriVersioning;
  /** The module's path from `RouterModule.register()`. */
  readonly modulePath?: string;
  readonly controllerPath?: string;
  readonly methodPath?: string;
}): string {
  const version =
    parts.versioning?.version === undefined ? [] : [`${parts.versioning.prefix}${parts.versioning.version}`];
  return (
    '/' +
    [
      ...segments(parts.globalPrefix),
      ...version,
      ...segments(parts.modulePath),
      ...segments(parts.controllerPath),
      ...segments(parts.methodPath),
    ].join('/')
  );
}
