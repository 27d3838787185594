import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { modernHeaders, modernRequest, post, toolText } from '../fixtures/raw-rpc';
import { ADMIN_TOKEN, twoServersModule } from '../fixtures/servers-fixture';
import { McpRegistry, getMcpToken } from 'nest-mcp';

describe.each(['express', 'fastify'] as const)('the default server of two (%s)', (platform) => {
  let http: HttpApp;
  beforeAll(async () => {
    http = await startHttpApp(twoServersModule(), { platform, path: 'public' });
  });
  afterAll(() => http.close());

  const list = async (path: string, headers: Record<string, string> = {}) =>
    post(`${http.baseUrl}/${path}`, modernRequest('tools/list'), { ...modernHeaders('tools/list'), ...headers });

  it('each lists its own tools', async () => {
    const pub = await list('public');
    expect(pub.json.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(['echo', 'time']);
    const admin = await list('admin', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(admin.json.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
      'admin_reindex',
      'admin_reset',
      'admin_users',
    ]);
    expect((await list('admin')).status).toBe(401);
  });

  it('runs only its own', async () => {
    const call = (path: string, name: string) =>
      post(`${http.baseUrl}/${path}`, modernRequest('tools/call', { name, arguments: {} }), {
        ...modernHeaders('tools/call', name),
        authorization: `Bearer ${ADMIN_TOKEN}`,
      });
    expect(toolText(await call('admin', 'admin_reset'))).toBe('admin:reset by ops');
    const refused = await call('public', 'admin_reset');
    expect(refused.json.error?.code ?? refused.json.result?.isError).toBeTruthy();
  });

  it('McpRegistry by class is the first server', async () => {
    const byClass = http.app.get(McpRegistry);
    const registry = (token: string | object) => http.app.get<McpRegistry>(token as string);
    expect(byClass).toBeInstanceOf(McpRegistry);
    // The same registry: what one adds, the other lists.
    expect(byClass.listTools()).toEqual(registry(getMcpToken(McpRegistry, 'public')).listTools());
    expect(byClass.listTools()).not.toEqual(registry(getMcpToken(McpRegistry, 'admin')).listTools());
    expect(
      byClass
        .listTools()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(['echo', 'time']);
  });
});
