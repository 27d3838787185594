/**
 * The sample's MCP_AUTH / MCP_AUTH_SECRET switch: each provider guards the sample's endpoint
 * with the secret from the environment, and a bad setting stops the application at startup.
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient } from 'nest-mcp/testing';
import { AppModule } from '../sample/app.module';
import { sampleAuth } from '../sample/common/sample-auth';
import { mcpApp } from './support/mcp-app';

const SECRET = 'sample-secret-value';

const CASES = [
  { mode: 'bearer', secret: SECRET, good: { authorization: `Bearer ${SECRET}` }, challenge: 'Bearer realm="mcp"' },
  { mode: 'apikey', secret: SECRET, good: { 'x-api-key': SECRET }, challenge: 'ApiKey header="x-api-key"' },
  {
    mode: 'basic',
    secret: `ann:${SECRET}`,
    good: { authorization: `Basic ${Buffer.from(`ann:${SECRET}`).toString('base64')}` },
    challenge: 'Basic realm="mcp", charset="UTF-8"',
  },
] as const;

describe('sample: MCP_AUTH', () => {
  const saved = { mode: process.env.MCP_AUTH, secret: process.env.MCP_AUTH_SECRET };
  afterAll(() => {
    for (const [name, value] of [
      ['MCP_AUTH', saved.mode],
      ['MCP_AUTH_SECRET', saved.secret],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  describe.each(CASES)('MCP_AUTH=$mode', ({ mode, secret, good, challenge }) => {
    let app: INestApplication;
    beforeAll(async () => {
      process.env.MCP_AUTH = mode;
      process.env.MCP_AUTH_SECRET = secret;
      app = await mcpApp(AppModule);
    });
    afterAll(() => app.close());

    it('refuses a request without the secret, with the provider challenge', async () => {
      const client = await createMcpTestClient(app);
      await expect(client.listTools()).rejects.toMatchObject({ name: 'McpHttpError', status: 401, challenge });
    });

    it('serves the caller holding the secret', async () => {
      const tools = await (await createMcpTestClient(app, { headers: good })).listTools();
      expect(tools.map((t) => t.name)).toContain('create_note');
    });
  });

  it('serves everyone anonymously without MCP_AUTH, and refuses bad settings', async () => {
    await expect(sampleAuth(undefined, undefined)).resolves.toBeUndefined();
    await expect(sampleAuth('none', 'x')).resolves.toBeUndefined();
    await expect(sampleAuth('bearer', undefined)).rejects.toThrow('MCP_AUTH=bearer needs MCP_AUTH_SECRET');
    await expect(sampleAuth('basic', 'no-colon')).rejects.toThrow('user:password');
    await expect(sampleAuth('oauth', 'x')).rejects.toThrow('MCP_AUTH must be none, bearer, apikey or basic');
  });
});
