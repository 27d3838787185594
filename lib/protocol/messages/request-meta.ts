/**
 * The era of a request and, for the modern era, the per-request `_meta` envelope.
 */
import { eraOf, type McpEra } from './revisions';
import { isJsonObject, type JSONObject } from './json-rpc';
import { isLogLevel, type LoggingLevel } from './log-levels';
import type { ClientCapabilities, Implementation } from './mcp-types';

/** The reserved `_meta` keys of 2026-07-28. */
export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  relatedTask: 'io.modelcontextprotocol/related-task',
} as const;

/** The `_meta` of a request's params, or an empty object. */
export function metaOf(params: JSONObject | undefined): JSONObject {
  const meta = params?._meta;
  return isJsonObject(meta) ? meta : {};
}

/**
 * Decides the era of one request, once: modern when its `_meta` claims a protocol version or
 * the transport's version header names a modern revision; legacy otherwise.
 */
export function decideEra(params: JSONObject | undefined, headerVersion: string | undefined): McpEra {
  const meta = params?._meta;
  if (isJsonObject(meta) && META_KEYS.protocolVersion in meta) {
    return 'modern';
  }
  return eraOf(headerVersion) === 'modern' ? 'modern' : 'legacy';
}

/** The envelope of a modern request, once validated. */
export interface ModernEnvelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
}

/**
 * Reads the required envelope fields. Returns the error message of the first field that is
 * missing or has the wrong type (Invalid params, -32602).
 */
export function readModernEnvelope(params: JSONObject | undefined): ModernEnvelope | string {
  const meta = params?._meta;
  if (!isJsonObject(meta)) {
    return 'Missing required _meta field: _meta';
  }
  const version = meta[META_KEYS.protocolVersion];
  if (version === undefined) {
    return `Missing required _meta field: ${META_KEYS.protocolVersion}`;
  }
  if (typeof version !== 'string' || version.length === 0) {
    return `Invalid _meta field: ${META_KEYS.protocolVersion}`;
  }
  const capabilities = meta[META_KEYS.clientCapabilities];
  if (capabilities === undefined) {
    return `Missing required _meta field: ${META_KEYS.clientCapabilities}`;
  }
  if (!isJsonObject(capabilities)) {
    return `Invalid _meta field: ${META_KEYS.clientCapabilities}`;
  }
  const envelope: ModernEnvelope = { protocolVersion: version, clientCapabilities: capabilities };
  const info = meta[META_KEYS.clientInfo];
  if (info !== undefined) {
    if (!isJsonObject(info)) {
      return `Invalid _meta field: ${META_KEYS.clientInfo}`;
    }
    envelope.clientInfo = info as Implementation;
  }
  const level = meta[META_KEYS.logLevel];
  if (level !== undefined) {
    if (!isLogLevel(level)) {
      return `Invalid _meta field: ${META_KEYS.logLevel}`;
    }
    envelope.logLevel = level;
  }
  return envelope;
}

/** The progress token of a request, when it carries a valid one. */
export function progressTokenOf(params: JSONObject | undefined): string | number | undefined {
  const token = metaOf(params).progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token)) ? token : undefined;
}
