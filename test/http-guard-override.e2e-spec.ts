/**
 * The module's checks of its endpoints are one guard, `McpHttpGuard`, that a test can replace
 * like any other: here a stand-in admits every request as alice, so a module with bearer
 * authentication is called without a token.
 */
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { McpCtx, type McpCallContext, McpHttpGuard, McpModule, McpTool } from 'nest-mcp';
import { firstText, rawPost, startApp, type Adapter, type RunningApp } from './fixtures/pipeline-app';

@Injectable()
class WhoAmI {
  @McpTool({ description: 'The caller' })
  whoami(@McpCtx() ctx: McpCallContext): string {
    return ctx.principal.id;
  }
}

/** Every request passes, as alice. */
class AliceGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    context.switchToHttp().getRequest<Record<string, unknown>>().mcpPrincipal = { id: 'alice', scopes: [] };
    return true;
  }
}

describe.each<Adapter>(['express', 'fastify'])('overrideGuard(McpHttpGuard) (%s)', (adapter) => {
  let server: RunningApp | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const metadata = {
    imports: [
      McpModule.forRoot({
        name: 'override',
        version: '0.0.1',
        auth: { bearer: { tokens: { secret: { id: 'bob' } } } },
      }),
    ],
    providers: [WhoAmI],
  };

  it('is what refuses a request without credentials', async () => {
    server = await startApp(metadata, { adapter });
    const reply = await rawPost(server.url(), { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(reply.status).toBe(401);
  });

  it('can be replaced by a test, which then decides who calls', async () => {
    server = await startApp(metadata, {
      adapter,
      prepare: (builder) => builder.overrideGuard(McpHttpGuard).useValue(new AliceGuard()),
    });
    const client = await server.connect();
    expect(firstText(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('alice');
  });
});
