import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MCP_AUTH_SETTINGS } from '../mcp.constants';
import type { ResolvedAuthOptions } from './auth-options';

/**
 * Publishes the OAuth 2.0 Protected Resource Metadata (RFC 9728) at
 * `/.well-known/oauth-protected-resource` and at its path-suffixed form
 * (`/.well-known/oauth-protected-resource/mcp` for the resource `https://host/mcp`).
 *
 * The routes go on the HTTP platform itself, outside Nest's router: well-known URLs live at the
 * origin's root, whatever global prefix or versioning the application uses. The document is
 * public (no authentication, any origin may read it): it is what a client reads to learn how to
 * authenticate.
 */
@Injectable()
export class ProtectedResourceRoutes implements OnModuleInit {
  constructor(
    @Inject(MCP_AUTH_SETTINGS) private readonly auth: ResolvedAuthOptions,
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
    const serve = (_request: unknown, response: unknown) => {
      adapter.setHeader(response, 'content-type', 'application/json');
      adapter.setHeader(response, 'cache-control', 'public, max-age=300');
      adapter.setHeader(response, 'access-control-allow-origin', '*');
      adapter.reply(response, body, 200);
    };
    for (const path of metadata.paths) {
      adapter.get(path, serve);
    }
  }
}
