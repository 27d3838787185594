import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MCP_AUTH_SETTINGS, MCP_SERVER_IDENTITY } from '../shared/mcp.constants';
import type { McpServerIdentity } from '../identity/server-identity';
import type { ResolvedAuthOptions } from './auth-options';

/** A document one server serves at a path, with the order of its server. */
interface ServedDocument {
  readonly order: number;
  readonly body: string;
}

/**
 * The documents of every server at each well-known path, per platform instance: servers share
 * `/.well-known/oauth-protected-resource` itself, which the first of them answers (by the order
 * of their `forRoot` calls), and a route is registered once per path.
 */
const SERVED = new WeakMap<object, Map<string, ServedDocument[]>>();

/**
 * Publishes the OAuth 2.0 Protected Resource Metadata (RFC 9728) at
 * `/.well-known/oauth-protected-resource` and at its path-suffixed form
 * (`/.well-known/oauth-protected-resource/mcp` for the resource `https://host/mcp`).
 *
 * The routes go on the HTTP platform itself, outside Nest's router: well-known URLs live at the
 * origin's root, whatever global prefix or versioning the application uses. The document is
 * public (no authentication, any origin may read it): it is what a client reads to learn how to
 * authenticate. With several servers, each has its path-suffixed form; the bare one is the first
 * server's.
 */
@Injectable()
export class ProtectedResourceRoutes implements OnModuleInit {
  constructor(
    @Inject(MCP_AUTH_SETTINGS) private readonly auth: ResolvedAuthOptions,
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const metadata = this.auth.protectedResource;
    const adapter = this.adapterHost?.httpAdapter;
    // An application context (stdio) has no HTTP platform.
    if (metadata === undefined || adapter === undefined || adapter === null) {
      return;
    }
    const body = JSON.stringify(metadata.document);
    const platform = adapter.getInstance<object>();
    let served = SERVED.get(platform);
    if (served === undefined) {
      served = new Map();
      SERVED.set(platform, served);
    }
    for (const path of metadata.paths) {
      const documents = served.get(path);
      if (documents !== undefined) {
        documents.push({ order: this.identity.order, body });
        documents.sort((a, b) => a.order - b.order);
        continue;
      }
      const own: ServedDocument[] = [{ order: this.identity.order, body }];
      served.set(path, own);
      adapter.get(path, (_request: unknown, response: unknown) => {
        adapter.setHeader(response, 'content-type', 'application/json');
        adapter.setHeader(response, 'cache-control', 'public, max-age=300');
        adapter.setHeader(response, 'access-control-allow-origin', '*');
        adapter.reply(response, own[0].body, 200);
      });
    }
  }
}
