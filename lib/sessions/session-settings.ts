/** The `sessions` section of the module options, resolved (`MCP_SESSION_SETTINGS`). */
import type { McpSessionOptions } from '../interfaces/mcp-session-options.interface';
import { integer, section } from '../shared/option-checks';

/** Legacy-era sessions' limits, with every default applied. */
export interface SessionSettings {
  idleTimeoutMs: number;
  maxSessions: number;
  maxPerPrincipal: number;
  maxSubscriptions: number;
  sweepIntervalMs: number;
}

/** Validates `sessions` and applies its defaults. */
export function resolveSessionSettings(options: McpSessionOptions | undefined): SessionSettings {
  const sessions = section(options, 'sessions');
  return {
    idleTimeoutMs: integer(sessions.idleTimeoutMs, 'sessions.idleTimeoutMs', 30 * 60_000, 1_000),
    maxSessions: integer(sessions.maxSessions, 'sessions.maxSessions', 10_000, 1),
    maxPerPrincipal: integer(sessions.maxPerPrincipal, 'sessions.maxPerPrincipal', 100, 1),
    maxSubscriptions: integer(sessions.maxSubscriptions, 'sessions.maxSubscriptions', 1_000, 1),
    sweepIntervalMs: integer(sessions.sweepIntervalMs, 'sessions.sweepIntervalMs', 60_000, 100),
  };
}
