/**
 * The consumer app's own Jest spec, as a team would write it: its AppModule in a Nest testing
 * module, driven in-process by `nest-mcp/testing` from the packed library (no port). It sits in
 * the app's src/ of the consumers that run (nest11, nest12), so their compilers check it with
 * `skipLibCheck: false`; Jest runs it from the TypeScript (@swc/jest), where the README's
 * configuration maps `./x.js` to `./x.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { createMcpTestClient, McpHttpError, McpTestError, type McpTestClient } from 'nest-mcp/testing';
import { ADMIN_KEY } from './admin.tools.js';
import { AppModule } from './app.module.js';

describe('the consumer app, through nest-mcp/testing', () => {
  let moduleRef: TestingModule;
  let client: McpTestClient;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    client = await createMcpTestClient(moduleRef);
  });

  afterAll(() => client.close());

  it('loads nest-mcp/testing from the installed package', () => {
    expect(require.resolve('nest-mcp/testing')).toMatch(/[\\/]node_modules[\\/]nest-mcp[\\/]dist[\\/]/);
  });

  it('calls add in the 2026-07-28 era, and refuses an unknown tool with -32602', async () => {
    const result = await client.callTool('add', { a: 2, b: 40 });
    expect(result.structuredContent).toEqual({ sum: 42 });
    const unknown = await client.callTool('nope', {}).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(McpTestError);
    expect((unknown as McpTestError).code).toBe(-32602);
  });

  it('reaches the admin server with its API key in a legacy session, and is refused without it', async () => {
    const admin = await createMcpTestClient(moduleRef, {
      server: 'admin',
      revision: '2025-11-25',
      headers: { 'x-api-key': ADMIN_KEY },
    });
    try {
      const whoami = await admin.callTool('admin_whoami', {});
      expect(whoami.structuredContent).toEqual({ id: 'ops' });
    } finally {
      await admin.close();
    }
    // Without the key: the HTTP refusal, as a typed error.
    const anonymous = await createMcpTestClient(moduleRef, { server: 'admin' });
    try {
      const refused = await anonymous.listTools().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpHttpError);
      expect((refused as McpHttpError).status).toBe(401);
    } finally {
      await anonymous.close();
    }
  });
});
