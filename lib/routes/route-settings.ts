/**
 * The `routes` section of the module options, validated and with its defaults, once, at startup.
 */
import type { Type } from '@nestjs/common';
import type { McpRoutesOptions } from '../interfaces/mcp-route-options.interface';
import { fail, integer, section, stringList } from '../shared/option-checks';
import { pathPatternFault } from './path-glob';

/** Which routes the server's options select (`routes.expose`). */
export interface RouteExposure {
  readonly controllers: readonly Type[];
  readonly tags: readonly string[];
  readonly paths: readonly string[];
}

/** The route-tool settings, resolved from the module options (`routes`). */
export interface RouteSettings {
  /** Lower-case header names forwarded from the MCP request, `authorization` first. */
  readonly forwardHeaders: readonly string[];
  readonly maxResponseBytes: number;
  /** The largest file kept inline in a result; a larger one is a link, or fails the call. */
  readonly maxInlineBytes: number;
  /** Whether every destructive route asks the person before it runs. */
  readonly confirmDestructive: boolean;
  /** Absent: only the decorators choose routes. */
  readonly expose?: RouteExposure;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

function confirmDestructiveOf(value: unknown): boolean {
  if (value !== undefined && typeof value !== 'boolean') {
    fail('routes.confirmDestructive', 'must be a boolean');
  }
  return value ?? false;
}

function resolveExposure(options: McpRoutesOptions['expose']): RouteExposure | undefined {
  if (options === undefined) {
    return undefined;
  }
  const expose = section(options, 'routes.expose');
  const controllers: unknown = expose.controllers ?? [];
  if (!Array.isArray(controllers) || controllers.some((controller) => typeof controller !== 'function')) {
    fail('routes.expose.controllers', 'must be an array of controller classes');
  }
  const paths = stringList(expose.paths, 'routes.expose.paths') ?? [];
  for (const pattern of paths) {
    const fault = pathPatternFault(pattern);
    if (fault !== undefined) {
      fail('routes.expose.paths', fault);
    }
  }
  return Object.freeze({
    controllers: Object.freeze([...(controllers as Type[])]),
    tags: Object.freeze([...(stringList(expose.tags, 'routes.expose.tags') ?? [])]),
    paths: Object.freeze([...paths]),
  });
}

/**
 * Validates the `routes` section.
 * @throws McpConfigurationError naming the first bad option
 */
export function resolveRouteSettings(options: McpRoutesOptions | undefined): RouteSettings {
  const routes = section(options, 'routes');
  const names = (stringList(routes.forwardHeaders, 'routes.forwardHeaders') ?? []).map((name) => name.toLowerCase());
  for (const name of names) {
    if (!HEADER_NAME.test(name)) {
      fail('routes.forwardHeaders', `"${name}" is not a header name`);
    }
  }
  const expose = resolveExposure(routes.expose);
  return {
    forwardHeaders: Object.freeze([...new Set(['authorization', ...names])]),
    maxResponseBytes: integer(routes.maxResponseBytes, 'routes.maxResponseBytes', 1024 * 1024, 1),
    maxInlineBytes: integer(routes.maxInlineBytes, 'routes.maxInlineBytes', 256 * 1024, 0),
    confirmDestructive: confirmDestructiveOf(routes.confirmDestructive),
    ...(expose === undefined ? {} : { expose }),
  };
}
