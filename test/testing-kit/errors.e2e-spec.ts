/**
 * The testing kit's errors as values, in both eras on Express and Fastify: a JSON-RPC error
 * thrown as an McpTestError with its code and data, a guard's and a scope's refusal (-32004),
 * and an HTTP refusal before any JSON-RPC (401 with its challenge) as an McpHttpError.
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient, McpHttpError, McpTestError } from 'nest-mcp/testing';
import { KIT_TOKENS } from './kit-fixture';
import { kitApp, PLATFORMS, REVISIONS } from './kit-app';

const READER = { authorization: `Bearer ${KIT_TOKENS.reader}` };
const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };

describe.each(PLATFORMS)('the test client’s errors (%s)', (platform) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await kitApp(platform);
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(REVISIONS)('speaking %s', (revision) => {
    it('throws a JSON-RPC error as an McpTestError with its code, data and status', async () => {
      const client = await createMcpTestClient(app, { revision, headers: ADMIN });
      try {
        const error = await client.callTool('no_such_tool').catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(McpTestError);
        expect(error).toMatchObject({ code: -32602, method: 'tools/call' });
        expect((error as McpTestError).status).toBe(revision === '2026-07-28' ? 400 : 200);
      } finally {
        await client.close();
      }
    });

    it('serves each principal its own answers: a guard refuses the reader (-32004), a scope with a 403', async () => {
      const reader = await createMcpTestClient(app, { revision, headers: READER });
      const admin = await createMcpTestClient(app, { revision, headers: ADMIN });
      try {
        await expect(reader.callTool('guarded')).rejects.toMatchObject({ name: 'McpTestError', code: -32004 });
        const refusal = (await reader.callTool('scoped').catch((caught: unknown) => caught)) as McpHttpError;
        expect(refusal).toBeInstanceOf(McpHttpError);
        expect(refusal.status).toBe(403);
        expect(refusal.challenge).toContain('error="insufficient_scope", scope="admin"');
        expect(refusal.rpcError).toMatchObject({ code: -32003, data: { requiredScopes: ['admin'] } });
        expect((await admin.callTool('guarded')).content).toEqual([{ type: 'text', text: 'guarded ok' }]);
        expect((await admin.callTool('scoped')).content).toEqual([{ type: 'text', text: 'scoped ok' }]);
      } finally {
        await reader.close();
        await admin.close();
      }
    });

    it('throws an HTTP refusal as an McpHttpError with the status and the challenge', async () => {
      const anonymous = await createMcpTestClient(app, { revision });
      const wrong = await createMcpTestClient(app, { revision, headers: { authorization: 'Bearer nope' } });
      try {
        const cases = [
          [anonymous, 'invalid_request', 'Bearer realm="mcp"'],
          [wrong, 'invalid_token', 'Bearer realm="mcp", error="invalid_token"'],
        ] as const;
        for (const [client, oauthError, challenge] of cases) {
          const error = await client.listTools().catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(McpHttpError);
          expect((error as McpHttpError).status).toBe(401);
          expect((error as McpHttpError).challenge).toContain(challenge);
          expect((error as McpHttpError).json).toMatchObject({ error: oauthError });
        }
      } finally {
        await anonymous.close();
        await wrong.close();
      }
    });
  });
});
