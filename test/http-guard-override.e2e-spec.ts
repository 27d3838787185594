/**
 * The module's checks of its endpoints are one guard, `McpHttpGuard`, that a test can replace
 * like any other: here a stand-in admits every request as alice, so a module with bearer
 * authentication is called without a token.
 */
import { type CanActivate, type ExecutionContext, type INestApplication, Injectable } from '@nestjs/common';
import { McpCtx, type McpCallContext, McpHttpGuard, McpModule, McpTool } from 'nest-mcp';
import { createMcpTestClient } from 'nest-mcp/testing';
import { compileApp, firstText, type Adapter } from './fixtures/pipeline-app';

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
  let app: INestApplication | undefined;

  afterEach(() => app?.close());

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
    app = await compileApp(metadata, { adapter });
    const refusal = { name: 'McpHttpError', status: 401 };
    await expect((await createMcpTestClient(app)).listTools()).rejects.toMatchObject(refusal);
  });

  it('can be replaced by a test, which then decides who calls', async () => {
    app = await compileApp(metadata, {
      adapter,
      prepare: (builder) => builder.overrideGuard(McpHttpGuard).useValue(new AliceGuard()),
    });
    const client = await createMcpTestClient(app, { revision: '2025-06-18' });
    expect(firstText(await client.callTool('whoami'))).toBe('alice');
  });
});
