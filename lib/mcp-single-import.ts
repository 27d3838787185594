/**
 * One MCP server per application, until several are supported: a second `McpModule` import
 * would serve every tool of the application on both endpoints, so it stops startup instead,
 * naming each import: the module that declares it and the line of the `forRoot` call.
 */
import type { Type } from '@nestjs/common';
import type { ModulesContainer } from '@nestjs/core';
import { dirname } from 'node:path';
import { McpConfigurationError } from './errors/mcp-configuration.error';

/** Where one `McpModule.forRoot()` / `forRootAsync()` was called, kept in its module (`MCP_IMPORT_SITE`). */
export interface McpImportSite {
  /** The Streamable HTTP path of that import. */
  readonly path: string;
  /** `file:line:column` of the call, when the stack shows it. */
  readonly site?: string;
}

const OWN_DIRECTORY = dirname(__filename);

/** The first stack frame outside this package and Nest: the application's `forRoot` call. */
export function callSite(): string | undefined {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  for (const frame of frames) {
    const location = /\(?((?:[A-Za-z]:)?[^()\s]+):(\d+):(\d+)\)?$/.exec(frame.trim());
    if (location === null) {
      continue;
    }
    const file = location[1];
    if (file.startsWith(OWN_DIRECTORY) || file.includes('node_modules') || file.startsWith('node:')) {
      continue;
    }
    return `${file}:${location[2]}:${location[3]}`;
  }
  return undefined;
}

/** Throws when the application holds more than one `McpModule`, naming every import. */
export function assertSingleImport(modules: ModulesContainer, mcpModule: Type, siteToken: symbol): void {
  const all = [...modules.values()];
  const servers = all.filter((module) => module.metatype === mcpModule);
  if (servers.length <= 1) {
    return;
  }
  const describe = (site: McpImportSite | undefined): string => {
    // The module whose @Module() declares this very import (global modules are linked into
    // every module, so the linked imports say nothing).
    const importer = all.find((module) =>
      ((Reflect.getMetadata('imports', module.metatype) as unknown[] | undefined) ?? []).some(
        (declared) =>
          typeof declared === 'object' &&
          declared !== null &&
          ((declared as { providers?: unknown[] }).providers ?? []).some(
            (provider) => (provider as { useValue?: unknown }).useValue === site,
          ),
      ),
    );
    const parts = [`McpModule at path "${site?.path ?? '?'}"`];
    if (importer !== undefined) {
      parts.push(`imported by ${importer.metatype.name}`);
    }
    if (site?.site !== undefined) {
      parts.push(`(${site.site})`);
    }
    return parts.join(' ');
  };
  const sites = servers.map((server) => server.providers.get(siteToken)?.instance as McpImportSite | undefined);
  throw new McpConfigurationError(
    `McpModule is imported ${servers.length} times: ${sites.map(describe).join('; ')}. ` +
      'One application serves one MCP server: import McpModule.forRoot() (or forRootAsync()) once, ' +
      'in the root module; with isGlobal (the default) its services can be injected everywhere.',
  );
}
