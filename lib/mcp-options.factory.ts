/**
 * Validates the module options and fills in the defaults, once, at startup. A bad option stops
 * the application with a message that names it. Each section is resolved beside its feature;
 * this file only assembles them.
 */
import { McpConfigurationError } from './errors/mcp-configuration.error';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { section } from './shared/option-checks';
import { resolveServerSettings, type McpServerSettings } from './shared/server-settings';
import { resolveAuthOptions, type ResolvedAuthOptions } from './auth/auth-options';
import { resolveHttpSettings, type HttpSettings } from './transports/http/http-settings';
import { resolveStdioSettings, type StdioSettings } from './transports/stdio/stdio-settings';
import { resolveSessionSettings, type SessionSettings } from './sessions/session-settings';
import { resolveRedisSettings, type ResolvedRedisOptions } from './stores/redis/redis-settings';
import { resolveStoreSettings, type ResolvedStoreOptions } from './stores/store-settings';
import { resolveTaskOptions, type TaskSettings } from './tasks/task-settings';
import { resolveAppsSettings, type AppsSettings } from './registry/app-views';
import { resolveTelemetrySettings, type TelemetrySettings } from './telemetry/telemetry-settings';
import { resolveSkillSettings, type SkillSettings } from './skills/skill-settings';
import { resolveRouteSettings, type RouteSettings } from './routes/route-settings';
import { resolveToolSearchSettings, type ToolSearchSettings } from './registry/tool-search-settings';

export type { ResolvedRedisOptions } from './stores/redis/redis-settings';

/**
 * The options with every default applied: the server's own settings and one property per
 * section. Services inject their section's token (`MCP_HTTP_SETTINGS`...), not this object.
 */
export interface ResolvedMcpOptions extends McpServerSettings {
  sessions: SessionSettings;
  http: HttpSettings;
  stdio: StdioSettings;
  auth: ResolvedAuthOptions;
  tasks: TaskSettings;
  /** The views of `apps.views`, read. */
  apps: AppsSettings;
  /** Absent: memory stores, one instance. */
  redis?: ResolvedRedisOptions;
  /** The application's own stores; absent when none is given. */
  stores?: ResolvedStoreOptions;
  telemetry: TelemetrySettings;
  /** Absent: the server serves no skills. */
  skills?: SkillSettings;
  /** How route tools (`@McpRoute`) reach their routes. */
  routes: RouteSettings;
  /** Search mode; absent when off. */
  toolSearch?: ToolSearchSettings;
}

/** What the options of one server default to that depends on the other servers of the application. */
export interface ServerDefaults {
  /** The Redis key prefix without `redis.keyPrefix`. */
  readonly keyPrefix: string;
}

/** Validates `options` and applies the defaults. */
export function resolveMcpOptions(
  options: McpModuleOptions | undefined,
  defaults: ServerDefaults = { keyPrefix: 'mcp:' },
): ResolvedMcpOptions {
  if (typeof options !== 'object' || options === null) {
    throw new McpConfigurationError('McpModule needs options: at least { name, version }.');
  }
  const server = resolveServerSettings(options);
  const sessions = resolveSessionSettings(options.sessions);
  const http = resolveHttpSettings(options.http, server.callTimeoutMs);
  const stdio = resolveStdioSettings(options.stdio);
  const auth = resolveAuthOptions(options.auth);
  const tasks = resolveTaskOptions(section(options.tasks, 'tasks'));
  const apps = resolveAppsSettings(options.apps);
  const redis = resolveRedisSettings(options.redis, defaults.keyPrefix);
  const stores = resolveStoreSettings(options.stores, redis !== undefined);
  const telemetry = resolveTelemetrySettings(options.telemetry);
  const skills = resolveSkillSettings(options.skills);
  const routes = resolveRouteSettings(options.routes);
  const toolSearch = resolveToolSearchSettings(options.toolSearch);
  return { ...server, sessions, http, stdio, auth, tasks, apps, redis, stores, telemetry, skills, routes, toolSearch };
}

/** The server's own settings out of the resolved options (`MCP_SERVER_SETTINGS`). */
export function serverSettingsOf(options: ResolvedMcpOptions): McpServerSettings {
  const {
    sessions: _s,
    http: _h,
    stdio: _io,
    auth: _a,
    tasks: _t,
    apps: _ap,
    redis: _r,
    stores: _st,
    skills: _sk,
    routes: _ro,
    toolSearch: _ts,
    ...server
  } = options;
  return server;
}
