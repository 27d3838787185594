/**
 * Notification streams through the testing kit, in both eras on Express and Fastify:
 * `subscriptions/listen` (modern) and the session's GET stream with `resources/subscribe`
 * (legacy), read as an async iterator; list changes and resource updates; unsubscribe; and the
 * stream closed with the client.
 */
import type { INestApplication } from '@nestjs/common';
import { McpNotifier } from 'nest-mcp';
import { createMcpTestClient, type McpTestNotification } from 'nest-mcp/testing';
import { KIT_TOKENS } from './kit-fixture';
import { kitApp, PLATFORMS, REVISIONS } from './kit-app';

const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };

/** The notification without the `_meta` a listen stream tags it with. */
const bare = ({ method, params }: McpTestNotification): unknown => {
  const { _meta: _ignored, ...rest } = params;
  return { method, params: rest };
};

describe.each(PLATFORMS)('notification streams (%s)', (platform) => {
  let app: INestApplication;
  let notifier: McpNotifier;

  beforeAll(async () => {
    app = await kitApp(platform);
    notifier = app.get(McpNotifier);
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(REVISIONS)('speaking %s', (revision) => {
    it('carries list changes and the updates of a subscribed resource', async () => {
      const client = await createMcpTestClient(app, { revision, headers: ADMIN });
      try {
        const stream = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['kit://greeting'] });
        if (revision === '2026-07-28') {
          expect(stream.acknowledged).toMatchObject({
            notifications: { toolsListChanged: true, resourceSubscriptions: ['kit://greeting'] },
          });
        }
        await notifier.toolsChanged();
        expect(bare(await stream.next())).toEqual({ method: 'notifications/tools/list_changed', params: {} });
        await notifier.resourceUpdated('kit://greeting');
        expect(bare(await stream.next())).toEqual({
          method: 'notifications/resources/updated',
          params: { uri: 'kit://greeting' },
        });
        expect(stream.received).toHaveLength(2);
      } finally {
        await client.close();
      }
    });

    it('reads the stream as an async iterator, which ends when the client closes', async () => {
      const client = await createMcpTestClient(app, { revision, headers: ADMIN });
      const stream = await client.listen({ toolsListChanged: true });
      await notifier.toolsChanged();
      const seen: string[] = [];
      for await (const notification of stream) {
        seen.push(notification.method);
        await client.close();
      }
      expect(seen).toEqual(['notifications/tools/list_changed']);
    });
  });

  it('unsubscribes a resource on the legacy stream', async () => {
    const client = await createMcpTestClient(app, { revision: '2025-11-25', headers: ADMIN });
    try {
      const stream = await client.listen({ resourceSubscriptions: ['kit://greeting'] });
      await client.unsubscribeResource('kit://greeting');
      await notifier.resourceUpdated('kit://greeting');
      await notifier.toolsChanged();
      // Had the update been sent, it would come first.
      expect(bare(await stream.next())).toEqual({ method: 'notifications/tools/list_changed', params: {} });
    } finally {
      await client.close();
    }
  });
});
