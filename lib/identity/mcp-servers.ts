/**
 * The servers of one application, as its modules hold them: each `McpModule.forRoot()` /
 * `forRootAsync()` module carries its identity (`MCP_SERVER_IDENTITY`); they are listed in the order
 * of their `forRoot` calls. Two servers with one name or one path stop startup here, naming both.
 */
import type { ModulesContainer } from '@nestjs/core';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MCP_SERVER_IDENTITY } from '../shared/mcp.constants';
import { LIBRARY_DIRECTORY } from '../shared/library-directory';
import { endpointPathOptions, normalizePath } from './http-paths';
import { assertValidIdentity, type McpServerIdentity } from './server-identity';

/** The first stack frame outside this package and Nest: the application's `forRoot` call. */
export function callSite(): string | undefined {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  for (const frame of frames) {
    const location = /\(?((?:[A-Za-z]:)?[^()\s]+):(\d+):(\d+)\)?$/.exec(frame.trim());
    if (location === null) {
      continue;
    }
    const file = location[1];
    if (file.startsWith(LIBRARY_DIRECTORY) || file.includes('node_modules') || file.startsWith('node:')) {
      continue;
    }
    return `${file}:${location[2]}:${location[3]}`;
  }
  return undefined;
}

/** Every server of the application, in the order of their `forRoot` calls. */
export function serverIdentities(modules: ModulesContainer): McpServerIdentity[] {
  const found: McpServerIdentity[] = [];
  for (const module of modules.values()) {
    const identity = module.providers.get(MCP_SERVER_IDENTITY)?.instance as McpServerIdentity | undefined;
    if (identity !== undefined) {
      found.push(identity);
    }
  }
  // Not the order Nest scanned the modules in, which need not follow the source.
  return found.sort((a, b) => a.order - b.order);
}

/**
 * The default server, whose services are injected by class (`McpRegistry`...): the global one
 * whose `forRoot` was called first (the first in the root module's imports), else the first.
 */
export function defaultServerOf(identities: readonly McpServerIdentity[]): McpServerIdentity | undefined {
  return identities.find((identity) => identity.global) ?? identities[0];
}

/** `server "admin" (src/app.module.ts:12:5)`. */
export function describeServer(identity: McpServerIdentity): string {
  return `server "${identity.name}"${identity.site === undefined ? '' : ` (${identity.site})`}`;
}

/** Every path a server mounts, before the global prefix: its endpoints' and its console's. */
function pathsOf(identity: McpServerIdentity): string[] {
  const endpoints = endpointPathOptions(identity.paths).map(([, path]) => path);
  return identity.consolePath === undefined ? endpoints : [...endpoints, identity.consolePath];
}

/** Throws for a bad name or `include`, and when two servers share a name or a path, naming both. */
export function assertDistinctServers(identities: readonly McpServerIdentity[]): void {
  const names = new Map<string, McpServerIdentity>();
  const paths = new Map<string, McpServerIdentity>();
  for (const identity of identities) {
    assertValidIdentity(identity);
    const named = names.get(identity.name);
    if (named !== undefined) {
      throw new McpConfigurationError(
        `Two MCP servers are named "${identity.name}": ${describeServer(named)} and ${describeServer(identity)}. ` +
          'Give each McpModule.forRoot() (or forRootAsync()) its own name.',
      );
    }
    names.set(identity.name, identity);
    for (const path of pathsOf(identity)) {
      const taken = paths.get(normalizePath(path));
      if (taken !== undefined) {
        throw new McpConfigurationError(
          `Two MCP servers use the path "${path}": ${describeServer(taken)} and ${describeServer(identity)}. ` +
            'Give each server its own path (and simpleHttpPath, ssePath, sseMessagesPath, console.path).',
        );
      }
      paths.set(normalizePath(path), identity);
    }
  }
}
