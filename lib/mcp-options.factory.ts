/**
 * Validates the module options and fills in the defaults, once, at startup. A bad option stops
 * the application with a message that names it.
 */
import { McpConfigurationError } from './errors/mcp-configuration.error';
import { INVALID_OPTION } from './mcp.messages';
import type { McpModuleOptions, McpRedisClient, McpRedisOptions } from './interfaces/mcp-module-options.interface';
import { isRevision, newestFirst, REVISIONS, type Revision } from './protocol/revisions';
import { isLogLevel, type LogLevel } from './protocol/log-levels';
import type { CacheScope, Implementation } from './protocol/mcp-types';
import { resolveAuthOptions, type ResolvedAuthOptions } from './auth/auth-options';
import { resolveTaskOptions, type TaskSettings } from './tasks/task-settings';
import type { McpValidatorOptions } from './interfaces/mcp-schema.interface';

/** The Redis settings, resolved from the module options (`redis`). */
export interface ResolvedRedisOptions {
  /** `redis://` or `rediss://` URL of the server; absent when `client` is given. */
  readonly url?: string;
  /** The application's own ioredis client; absent when `url` is given. */
  readonly client?: McpRedisClient;
  /** Prefix of every key and channel. */
  readonly keyPrefix: string;
  /** How long connecting or a command may take (clients made from `url` only). */
  readonly commandTimeoutMs: number;
}

/** The options with every default applied. */
export interface ResolvedMcpOptions {
  serverInfo: Implementation;
  instructions?: string;
  revisions: Revision[];
  pageSize: number;
  cacheHints: { ttlMs: number; scope: CacheScope };
  discoverCacheHints: { ttlMs: number; scope: CacheScope };
  callTimeoutMs: number;
  shutdownGraceMs: number;
  defaultLogLevel: LogLevel;
  clientRequestTimeoutMs: number;
  requestState: { secret?: string | Buffer; ttlMs: number };
  sessions: { idleTimeoutMs: number; maxSessions: number; sweepIntervalMs: number };
  http: {
    maxBodyBytes: number;
    maxJsonDepth: number;
    allowedHosts?: string[];
    allowedOrigins?: string[];
    keepAliveMs: number;
    replayBufferSize: number;
    retryMs: number;
    simpleCallTimeoutMs: number;
    cors: boolean;
  };
  stdio: {
    maxFrameBytes: number;
    maxWorkers: number;
    maxQueue: number;
    maxSubscriptions: number;
    maxPendingNotifications: number;
  };
  auth: ResolvedAuthOptions;
  tasks: TaskSettings;
  /** Absent: memory stores, one instance. */
  redis?: ResolvedRedisOptions;
  /** class-validator options of DTO schemas; absent when not set. */
  validatorOptions?: McpValidatorOptions;
}

function fail(option: string, reason: string): never {
  throw new McpConfigurationError(INVALID_OPTION(option, reason));
}

function text(value: unknown, option: string, required: boolean): string | undefined {
  if (value === undefined && !required) {
    return undefined;
  }
  if (typeof value !== 'string' || value.trim().length === 0) {
    fail(option, required ? 'is required and must be a non-empty string' : 'must be a non-empty string');
  }
  return value;
}

function integer(value: unknown, option: string, fallback: number, minimum: number, maximum?: number): number {
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

function scope(value: unknown, option: string, fallback: CacheScope): CacheScope {
  if (value === undefined) {
    return fallback;
  }
  if (value !== 'public' && value !== 'private') {
    fail(option, `must be "public" or "private" (got ${JSON.stringify(value)})`);
  }
  return value;
}

function section<T extends object>(value: T | undefined, option: string): Partial<T> {
  if (value === undefined) {
    return {};
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(option, 'must be an object');
  }
  return value;
}

function checkIcons(icons: unknown, option: string): void {
  const valid =
    Array.isArray(icons) &&
    icons.every(
      (icon: Record<string, unknown>) =>
        typeof icon === 'object' &&
        icon !== null &&
        typeof icon.src === 'string' &&
        icon.src.length > 0 &&
        (icon.mimeType === undefined || typeof icon.mimeType === 'string') &&
        (icon.sizes === undefined ||
          (Array.isArray(icon.sizes) && icon.sizes.every((size) => typeof size === 'string'))) &&
        (icon.theme === undefined || icon.theme === 'light' || icon.theme === 'dark'),
    );
  if (!valid) {
    fail(option, 'must be an array of { src: string, mimeType?: string, sizes?: string[], theme?: "light" | "dark" }');
  }
}

function stringList(value: unknown, option: string): string[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.length === 0)) {
    fail(option, 'must be an array of non-empty strings');
  }
  return value;
}

/** Validates `options` and applies the defaults. */
export function resolveMcpOptions(options: McpModuleOptions | undefined): ResolvedMcpOptions {
  if (typeof options !== 'object' || options === null) {
    throw new McpConfigurationError('McpModule needs options: at least { name, version }.');
  }
  const serverInfo: Implementation = {
    name: text(options.name, 'name', true)!,
    version: text(options.version, 'version', true)!,
  };
  const title = text(options.title, 'title', false);
  const description = text(options.description, 'description', false);
  const websiteUrl = text(options.websiteUrl, 'websiteUrl', false);
  if (title !== undefined) serverInfo.title = title;
  if (description !== undefined) serverInfo.description = description;
  if (websiteUrl !== undefined) {
    try {
      new URL(websiteUrl);
    } catch {
      fail('websiteUrl', 'must be an absolute URL');
    }
    serverInfo.websiteUrl = websiteUrl;
  }
  if (options.icons !== undefined) {
    checkIcons(options.icons, 'icons');
    serverInfo.icons = options.icons;
  }

  let revisions: Revision[] = [...REVISIONS];
  if (options.revisions !== undefined) {
    if (!Array.isArray(options.revisions) || options.revisions.length === 0) {
      fail('revisions', `must be a non-empty array of ${REVISIONS.join(', ')}`);
    }
    const unknown = options.revisions.filter((revision) => !isRevision(revision));
    if (unknown.length > 0) {
      fail('revisions', `unknown revision(s) ${unknown.join(', ')}; known: ${REVISIONS.join(', ')}`);
    }
    revisions = options.revisions;
  }

  const defaultLogLevel = options.defaultLogLevel ?? 'info';
  if (!isLogLevel(defaultLogLevel)) {
    fail('defaultLogLevel', 'must be one of debug, info, notice, warning, error, critical, alert, emergency');
  }
  const cache = section(options.cacheHints, 'cacheHints');
  const sessions = section(options.sessions, 'sessions');
  const http = section(options.http, 'http');
  const requestState = section(options.requestState, 'requestState');
  const stdio = section(options.stdio, 'stdio');
  if (http.cors !== undefined && typeof http.cors !== 'boolean') {
    fail('http.cors', 'must be a boolean');
  }
  const callTimeoutMs = integer(options.callTimeoutMs, 'callTimeoutMs', 60_000, 0);
  const secret = requestState.secret;
  if (
    secret !== undefined &&
    !((typeof secret === 'string' || Buffer.isBuffer(secret)) && Buffer.byteLength(secret) >= 32)
  ) {
    fail('requestState.secret', 'must be a string or Buffer of at least 32 bytes');
  }

  return {
    serverInfo,
    instructions: text(options.instructions, 'instructions', false),
    revisions: newestFirst(revisions),
    pageSize: integer(options.pageSize, 'pageSize', 0, 0),
    cacheHints: {
      ttlMs: integer(cache.ttlMs, 'cacheHints.ttlMs', 60_000, 0),
      scope: scope(cache.scope, 'cacheHints.scope', 'private'),
    },
    discoverCacheHints: {
      ttlMs: integer(cache.discoverTtlMs, 'cacheHints.discoverTtlMs', 60_000, 0),
      scope: scope(cache.discoverScope, 'cacheHints.discoverScope', 'public'),
    },
    callTimeoutMs,
    shutdownGraceMs: integer(options.shutdownGraceMs, 'shutdownGraceMs', 10_000, 0),
    defaultLogLevel,
    clientRequestTimeoutMs: integer(options.clientRequestTimeoutMs, 'clientRequestTimeoutMs', 60_000, 0),
    requestState: {
      secret: secret,
      ttlMs: integer(requestState.ttlMs, 'requestState.ttlMs', 300_000, 1_000),
    },
    sessions: {
      idleTimeoutMs: integer(sessions.idleTimeoutMs, 'sessions.idleTimeoutMs', 30 * 60_000, 1_000),
      maxSessions: integer(sessions.maxSessions, 'sessions.maxSessions', 10_000, 1),
      sweepIntervalMs: integer(sessions.sweepIntervalMs, 'sessions.sweepIntervalMs', 60_000, 100),
    },
    http: {
      maxBodyBytes: integer(http.maxBodyBytes, 'http.maxBodyBytes', 4 * 1024 * 1024, 1024),
      // The depth check recurses once per level: a bound keeps it far from the stack's limit.
      maxJsonDepth: integer(http.maxJsonDepth, 'http.maxJsonDepth', 64, 2, 1_000),
      allowedHosts: stringList(http.allowedHosts, 'http.allowedHosts'),
      allowedOrigins: stringList(http.allowedOrigins, 'http.allowedOrigins'),
      keepAliveMs: integer(http.keepAliveMs, 'http.keepAliveMs', 15_000, 1_000),
      replayBufferSize: integer(http.replayBufferSize, 'http.replayBufferSize', 256, 1, 100_000),
      retryMs: integer(http.retryMs, 'http.retryMs', 1_000, 0, 3_600_000),
      simpleCallTimeoutMs: integer(http.simpleCallTimeoutMs, 'http.simpleCallTimeoutMs', callTimeoutMs, 0),
      cors: http.cors ?? true,
    },
    stdio: {
      maxFrameBytes: integer(stdio.maxFrameBytes, 'stdio.maxFrameBytes', 16 * 1024 * 1024, 1024),
      maxWorkers: integer(stdio.maxWorkers, 'stdio.maxWorkers', 8, 1, 1_000),
      maxQueue: integer(stdio.maxQueue, 'stdio.maxQueue', 64, 0, 100_000),
      maxSubscriptions: integer(stdio.maxSubscriptions, 'stdio.maxSubscriptions', 32, 0, 10_000),
      maxPendingNotifications: integer(stdio.maxPendingNotifications, 'stdio.maxPendingNotifications', 256, 0, 100_000),
    },
    auth: resolveAuthOptions(options.auth),
    tasks: resolveTaskOptions(section(options.tasks, 'tasks')),
    redis: options.redis === undefined ? undefined : resolveRedisOptions(section(options.redis, 'redis')),
    validatorOptions:
      options.validatorOptions === undefined ? undefined : section(options.validatorOptions, 'validatorOptions'),
  };
}

function resolveRedisOptions(redis: Partial<McpRedisOptions>): ResolvedRedisOptions {
  const { url, client } = redis;
  if ((url === undefined) === (client === undefined)) {
    fail('redis', 'needs exactly one of url and client');
  }
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) {
    fail('redis.url', 'must be a redis:// or rediss:// URL');
  }
  if (
    client !== undefined &&
    (typeof client !== 'object' || client === null || typeof client.duplicate !== 'function')
  ) {
    fail('redis.client', 'must be an ioredis client');
  }
  const keyPrefix = redis.keyPrefix ?? 'mcp:';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0 || keyPrefix.length > 100) {
    fail('redis.keyPrefix', 'must be a non-empty string of at most 100 characters');
  }
  return {
    url,
    client,
    keyPrefix,
    commandTimeoutMs: integer(redis.commandTimeoutMs, 'redis.commandTimeoutMs', 5_000, 100, 600_000),
  };
}
