/**
 * The checks every section resolver shares: each one returns the value (or its default) or
 * stops the application with a message that names the option.
 */
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_OPTION } from './mcp.messages';
import type { McpCacheScope } from '../protocol/messages/mcp-types';

/** Stops the application: `option` is invalid for `reason`. */
export function fail(option: string, reason: string): never {
  throw new McpConfigurationError(INVALID_OPTION(option, reason));
}

/** A non-empty string; `undefined` when absent and not `required`. */
export function text(value: unknown, option: string, required: boolean): string | undefined {
  if (value === undefined && !required) {
    return undefined;
  }
  if (typeof value !== 'string' || value.trim().length === 0) {
    fail(option, required ? 'is required and must be a non-empty string' : 'must be a non-empty string');
  }
  return value;
}

/** An integer within `[minimum, maximum]`, or `fallback` when absent. */
export function integer(value: unknown, option: string, fallback: number, minimum: number, maximum?: number): number {
  if (value === undefined) {
    return fallback;
  }
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < minimum ||
    (maximum !== undefined && value > maximum)
  ) {
    const range = maximum === undefined ? `of at least ${minimum}` : `from ${minimum} to ${maximum}`;
    fail(option, `must be an integer ${range} (got ${JSON.stringify(value)})`);
  }
  return value;
}

/** A cache scope, or `fallback` when absent. */
export function scope(value: unknown, option: string, fallback: McpCacheScope): McpCacheScope {
  if (value === undefined) {
    return fallback;
  }
  if (value !== 'public' && value !== 'private') {
    fail(option, `must be "public" or "private" (got ${JSON.stringify(value)})`);
  }
  return value;
}

/** A section of the options (a plain object); `{}` when absent. */
export function section<T extends object>(value: T | undefined, option: string): Partial<T> {
  if (value === undefined) {
    return {};
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(option, 'must be an object');
  }
  return value;
}

/** An array of non-empty strings, or `undefined` when absent. */
export function stringList(value: unknown, option: string): string[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.length === 0)) {
    fail(option, 'must be an array of non-empty strings');
  }
  return value;
}
