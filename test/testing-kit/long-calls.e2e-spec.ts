/**
 * Long calls through the testing kit, in both eras on Express and Fastify: a call's
 * notifications as an async iterator while it runs, and cancellation with an AbortSignal that
 * the tool sees abort on the server (the closed stream in the modern era,
 * `notifications/cancelled` in the legacy one).
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient, type McpTestNotification } from 'nest-mcp/testing';
import { waitUntil } from '../support/waiting';
import { KIT_TOKENS, KitProbe } from './kit-fixture';
import { kitApp, PLATFORMS, REVISIONS } from './kit-app';

const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };

describe.each(PLATFORMS)('long calls (%s)', (platform) => {
  let app: INestApplication;
  let probe: KitProbe;

  beforeAll(async () => {
    app = await kitApp(platform);
    probe = app.get(KitProbe);
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(REVISIONS)('speaking %s', (revision) => {
    it('cancels a call with an AbortSignal: the call rejects and the tool sees its signal abort', async () => {
      const label = `abort-${platform}-${revision}`;
      const client = await createMcpTestClient(app, { revision, headers: ADMIN });
      try {
        const controller = new AbortController();
        const call = client.callTool(
          'block',
          { label },
          { signal: controller.signal, onProgress: () => controller.abort() },
        );
        await expect(call).rejects.toMatchObject({ name: 'AbortError' });
        await waitUntil(() => probe.aborted.includes(label), `the abort of ${label} on the server`);
        expect(probe.started).toContain(label);
      } finally {
        await client.close();
      }
    });

    it('iterates the notifications of a long call as they come, then gives its result', async () => {
      const label = `stream-${platform}-${revision}`;
      const client = await createMcpTestClient(app, { revision, headers: ADMIN });
      try {
        const call = client.streamTool('block', { label });
        const seen: McpTestNotification[] = [];
        for await (const notification of call) {
          seen.push(notification);
          // The tool is still running: the first progress came before its end.
          expect(probe.aborted).not.toContain(label);
          call.cancel();
        }
        expect(seen).toEqual([
          {
            method: 'notifications/progress',
            params: { progressToken: expect.any(String), progress: 1, message: 'started' },
          },
        ]);
        await expect(call.result).rejects.toMatchObject({ name: 'AbortError' });
        await waitUntil(() => probe.aborted.includes(label), `the abort of ${label} on the server`);
      } finally {
        await client.close();
      }
    });

    it('iterates a call to its end and gives the result with every notification (logs at the level asked)', async () => {
      const client = await createMcpTestClient(app, { revision, headers: ADMIN, logLevel: 'info' });
      try {
        const call = client.streamTool('chatty');
        const methods: string[] = [];
        for await (const notification of call) {
          methods.push(notification.method);
        }
        const result = await call.result;
        expect(methods).toEqual(['notifications/progress', 'notifications/message', 'notifications/progress']);
        expect(result.content).toEqual([{ type: 'text', text: 'chatted' }]);
        expect(result.notifications.map((notification) => notification.method)).toEqual(methods);
      } finally {
        await client.close();
      }
    });
  });
});
