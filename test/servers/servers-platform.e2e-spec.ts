/**
 * What each of two servers asks of the platform: its startup lines (full path, own counts), its
 * own body reading (the platform's parser limit stays on the application's routes), and its own
 * 405 answers.
 */
import type { INestApplication } from '@nestjs/common';
import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { RecordingLogger } from '../fixtures/recording-logger';
import { modernHeaders, modernRequest, post, send, toolText } from '../fixtures/raw-rpc';
import { ADMIN_TOKEN, twoServersModule } from '../fixtures/servers-fixture';

describe.each(['express', 'fastify'] as const)('startup lines of two servers (%s)', (platform) => {
  let http: HttpApp;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    http = await startHttpApp(twoServersModule(), {
      platform,
      globalPrefix: 'api',
      configure: (app: INestApplication) => app.useLogger(logger),
    });
  });
  afterAll(() => http.close());

  it('names each server with its path and its own counts', () => {
    const lines = logger.lines.filter((line) => line.context === 'McpModule' && line.level === 'log');
    expect(lines.map((line) => line.message).sort()).toEqual([
      'MCP server admin 1.0.0 at /api/admin (Streamable HTTP, 2024-11-05 to 2026-07-28): 3 tools, 0 resources, 0 resource templates, 0 prompts',
      'MCP server public 1.0.0 at /api/public (Streamable HTTP, 2024-11-05 to 2026-07-28): 2 tools, 0 resources, 0 resource templates, 0 prompts',
    ]);
  });

  it("reads each server's bodies itself: 300 KiB passes on both, over the platform parser's limit", async () => {
    // Express and Fastify refuse JSON bodies over 100 KiB and 1 MiB by default; the module reads
    // its own up to http.maxBodyBytes (4 MiB).
    const text = 'x'.repeat(300 * 1024);
    const echo = await post(
      `${http.baseUrl}/api/public`,
      modernRequest('tools/call', { name: 'echo', arguments: { text } }),
      modernHeaders('tools/call', 'echo'),
    );
    expect(toolText(echo)).toBe(`public:${text}`);
    const users = await post(
      `${http.baseUrl}/api/admin`,
      modernRequest('tools/call', { name: 'admin_users', arguments: { padding: text } }),
      { ...modernHeaders('tools/call', 'admin_users'), authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    expect(toolText(users)).toBe('admin:users');
  });

  it('answers a verb no endpoint serves with 405 and the Allow of that endpoint, on both', async () => {
    for (const path of ['public', 'admin']) {
      const response = await send(`${http.baseUrl}/api/${path}`, { method: 'PUT' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
    }
  });
});
