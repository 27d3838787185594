/**
 * The path of a server's Streamable HTTP endpoint in an application, as the test client finds
 * it: among the application's controllers, those `isMcpEndpoint()` tells apart, the Streamable
 * HTTP one of the server asked for (the first server's without a name), under the global prefix.
 */
import type { ExecutionContext, INestApplication } from '@nestjs/common';
import { ApplicationConfig, ModulesContainer } from '@nestjs/core';
import { isMcpEndpoint } from '../index';

/** The mark of the module's endpoint controllers (kind and server): read, never written, here. */
const ENDPOINT_METADATA = 'nest-mcp:endpoint';
/** Where `@Controller(path)` keeps its path. */
const PATH_METADATA = 'path';
const DEFAULT_PATH = '/mcp';

interface EndpointMark {
  readonly kind: string;
  readonly server: string;
}

/** The endpoint path of `server` (the first server's when not given); '/mcp' when none is found. */
export function endpointPathOf(app: INestApplication, server?: string): string {
  const found: Array<{ path: string; server: string }> = [];
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (typeof controller !== 'function' || !isMcpEndpoint(httpContextOf(controller))) {
        continue;
      }
      const mark = Reflect.getMetadata(ENDPOINT_METADATA, controller) as EndpointMark | undefined;
      const path = Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined;
      if (mark?.kind === 'streamable' && typeof path === 'string') {
        found.push({ path, server: mark.server });
      }
    }
  }
  const match = server === undefined ? found[0] : found.find((endpoint) => endpoint.server === server);
  if (server !== undefined && match === undefined) {
    throw new Error(
      `No MCP server named '${server}' in the application (servers: ${found.map((e) => e.server).join(', ') || 'none'})`,
    );
  }
  return join(globalPrefixOf(app), match?.path ?? DEFAULT_PATH);
}

function httpContextOf(controller: unknown): ExecutionContext {
  return { getType: () => 'http', getClass: () => controller } as unknown as ExecutionContext;
}

function globalPrefixOf(app: INestApplication): string {
  try {
    return app.get(ApplicationConfig, { strict: false }).getGlobalPrefix();
  } catch {
    return '';
  }
}

function join(...parts: string[]): string {
  const path = parts
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter((part) => part !== '')
    .join('/');
  return `/${path}`;
}
