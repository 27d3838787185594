/**
 * The two eras' ways in: the modern era's per-request `_meta` and `server/discover`; the legacy
 * era's `initialize` handshake (then `notifications/initialized`), which opens the session whose
 * id and revision every later request carries.
 */
import type { ClientCapabilities, Implementation, LoggingLevel } from 'nest-mcp';
import {
  MCP_TEST_MODERN_REVISION,
  type McpTestCallOptions,
  type McpTestClientOptions,
  type McpTestNotification,
  type McpTestServerInfo,
} from './mcp-test.types';

const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;

const DEFAULT_CLIENT_INFO: Implementation = { name: 'nest-mcp-test-client', version: '1.0.0' };

/** What the handshakes read of the client's wire (`McpTestWire`, wire.ts, which calls them). */
export interface EraWire {
  readonly options: McpTestClientOptions;
  readonly revision: string;
  readonly capabilities: ClientCapabilities;
  readonly logLevel: LoggingLevel | undefined;
  readonly sessionId: string | undefined;
  negotiated: string | undefined;
  request<T>(method: string, params: Record<string, unknown>, options: McpTestCallOptions): Promise<T>;
  legacyRequest<T>(
    method: string,
    params: Record<string, unknown>,
    options: McpTestCallOptions,
    signal: AbortSignal | undefined,
    collect: (notification: McpTestNotification) => void,
  ): Promise<T>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
}

/** The `_meta` of a modern request: revision, capabilities, client info and log level. */
export function modernMeta(
  wire: EraWire,
  capabilities: ClientCapabilities = wire.capabilities,
): Record<string, unknown> {
  return {
    [META.protocolVersion]: MCP_TEST_MODERN_REVISION,
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: wire.options.clientInfo ?? DEFAULT_CLIENT_INFO,
    ...(wire.logLevel === undefined ? {} : { [META.logLevel]: wire.logLevel }),
  };
}

/** The headers of a legacy request on the open session. */
export function sessionHeaders(wire: EraWire): Record<string, string> {
  const headers: Record<string, string> = {};
  if (wire.sessionId !== undefined) headers['mcp-session-id'] = wire.sessionId;
  if (wire.negotiated !== undefined) headers['mcp-protocol-version'] = wire.negotiated;
  return headers;
}

/** `server/discover` (modern era). */
export async function discover(wire: EraWire, options: McpTestCallOptions): Promise<McpTestServerInfo> {
  const raw = await wire.request<Record<string, any>>('server/discover', {}, options);
  return {
    protocolVersion: MCP_TEST_MODERN_REVISION,
    supportedVersions: raw.supportedVersions ?? [],
    capabilities: raw.capabilities ?? {},
    serverInfo: raw._meta?.['io.modelcontextprotocol/serverInfo'],
    instructions: raw.instructions,
    raw,
  };
}

/** `initialize`, `notifications/initialized`, and the log level asked for (legacy era). */
export async function handshake(wire: EraWire): Promise<McpTestServerInfo> {
  const raw = await wire.legacyRequest<Record<string, any>>(
    'initialize',
    {
      protocolVersion: wire.revision,
      capabilities: wire.capabilities,
      clientInfo: wire.options.clientInfo ?? DEFAULT_CLIENT_INFO,
    },
    {},
    undefined,
    () => undefined,
  );
  wire.negotiated = String(raw.protocolVersion);
  await wire.notify('notifications/initialized');
  if (wire.logLevel !== undefined) {
    await wire.legacyRequest('logging/setLevel', { level: wire.logLevel }, {}, undefined, () => undefined);
  }
  return {
    protocolVersion: wire.negotiated,
    supportedVersions: [wire.negotiated],
    capabilities: raw.capabilities ?? {},
    serverInfo: raw.serverInfo,
    instructions: raw.instructions,
    raw,
  };
}
