import type { INestApplication } from '@nestjs/common';
import { McpRegistry, getMcpToken } from 'nest-mcp';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { ADMIN_TOKEN, twoServersModule } from '../fixtures/servers-fixture';
import { mcpApp } from '../support/mcp-app';

describe.each(['express', 'fastify'] as const)('the default server of two (%s)', (platform) => {
  let app: INestApplication;
  let pub: McpTestClient;
  let admin: McpTestClient;
  beforeAll(async () => {
    app = await mcpApp(twoServersModule(), { platform });
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    pub = await createMcpTestClient(app, { server: 'public', headers });
    admin = await createMcpTestClient(app, { server: 'admin', headers });
  });
  afterAll(() => app.close());

  const names = (tools: ReadonlyArray<{ name: string }>) => tools.map((tool) => tool.name).sort();

  it('each lists its own tools', async () => {
    expect(names(await pub.listTools())).toEqual(['echo', 'time']);
    expect(names(await admin.listTools())).toEqual(['admin_reindex', 'admin_reset', 'admin_users']);
    const anonymous = await createMcpTestClient(app, { server: 'admin' });
    await expect(anonymous.listTools()).rejects.toMatchObject({ name: 'McpHttpError', status: 401 });
  });

  it('runs only its own', async () => {
    expect((await admin.callTool('admin_reset')).content).toEqual([{ type: 'text', text: 'admin:reset by ops' }]);
    const refused = await pub.callTool('admin_reset').then(
      (result) => result.isError,
      (error: { code?: number }) => error.code,
    );
    expect(refused).toBeTruthy();
  });

  it('McpRegistry by class is the first server', async () => {
    const byClass = app.get(McpRegistry);
    const registry = (token: string | object) => app.get<McpRegistry>(token as string);
    expect(byClass).toBeInstanceOf(McpRegistry);
    // The same registry: what one adds, the other lists.
    expect(byClass.listTools()).toEqual(registry(getMcpToken(McpRegistry, 'public')).listTools());
    expect(byClass.listTools()).not.toEqual(registry(getMcpToken(McpRegistry, 'admin')).listTools());
    expect(names(byClass.listTools())).toEqual(['echo', 'time']);
  });
});
