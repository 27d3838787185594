/**
 * What the test client can talk to: a compiled testing module (with an overridden provider; the
 * client makes the application and closes it), an application with a global prefix and a
 * path of its own (found from the server), and a real URL over the network, the same API in
 * both eras.
 */
import { type INestApplication, VersioningType } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getMcpEndpointPath, McpSessionService } from 'nest-mcp';
import { createMcpTestClient } from 'nest-mcp/testing';
import { startHttpApp } from '../fixtures/http-app';
import { ADMIN_TOKEN, twoServersModule } from '../fixtures/servers-fixture';
import { KIT_TOKENS, KitFixtureModule, KitGreeting } from './kit-fixture';
import { kitApp, REVISIONS } from './kit-app';

const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };

describe('the test client’s targets', () => {
  it('drives a testing module with an overridden provider, and closes the application it made', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [KitFixtureModule.forRoot()] })
      .overrideProvider(KitGreeting)
      .useValue({ text: () => 'overridden' })
      .compile();
    const made = jest.spyOn(moduleRef, 'createNestApplication');
    const client = await createMcpTestClient(moduleRef, { headers: ADMIN });
    const app = made.mock.results[0].value as INestApplication;
    const closing = jest.spyOn(app, 'close');
    expect((await client.readResource('kit://greeting')).contents).toEqual([
      { uri: 'kit://greeting', mimeType: 'text/plain', text: 'overridden' },
    ]);
    await client.close();
    expect(closing).toHaveBeenCalledTimes(1);
    await expect(client.listTools()).rejects.toThrow('The MCP test client is closed');
  });

  it('shares the application among the clients made from one module, closed with the last', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [twoServersModule()] }).compile();
    const made = jest.spyOn(moduleRef, 'createNestApplication');
    // One client per principal and server, in both eras, at once: one application.
    const [first, admin] = await Promise.all([
      createMcpTestClient(moduleRef),
      createMcpTestClient(moduleRef, {
        server: 'admin',
        revision: '2025-11-25',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
    ]);
    expect(made).toHaveBeenCalledTimes(1);
    const app = made.mock.results[0].value as INestApplication;
    const closing = jest.spyOn(app, 'close');
    // A server it does not have: refused, and holding nothing.
    await expect(createMcpTestClient(moduleRef, { server: 'nope' })).rejects.toThrow('no MCP server named "nope"');
    expect((await first.listTools()).map((tool) => tool.name)).toEqual(['echo', 'time']);
    expect((await admin.listTools()).map((tool) => tool.name)).toEqual(['admin_reindex', 'admin_reset', 'admin_users']);
    await first.close();
    expect(closing).not.toHaveBeenCalled();
    expect((await admin.listTools()).length).toBe(3);
    await admin.close();
    await admin.close();
    expect(closing).toHaveBeenCalledTimes(1);
  });

  it('closes the legacy session it opened (DELETE), and opens none in the modern era', async () => {
    const app = await kitApp('fastify');
    const sessions = app.get(McpSessionService);
    try {
      const legacy = await createMcpTestClient(app, { revision: '2025-06-18', headers: ADMIN });
      await legacy.listTools();
      expect(legacy.session).toEqual(expect.any(String));
      expect(await sessions.count()).toBe(1);
      await legacy.close();
      expect(await sessions.count()).toBe(0);
      const modern = await createMcpTestClient(app, { headers: ADMIN });
      await modern.listTools();
      expect(modern.session).toBeUndefined();
      expect(await sessions.count()).toBe(0);
      await modern.close();
    } finally {
      await app.close();
    }
  });

  it('finds the endpoint path of the server (its path option under the global prefix)', async () => {
    const app = await kitApp('express', {}, { path: 'tools/mcp' });
    app.setGlobalPrefix('api');
    const client = await createMcpTestClient(app, { headers: ADMIN });
    try {
      expect((await client.listTools()).length).toBeGreaterThan(0);
    } finally {
      await client.close();
      await app.close();
    }
  });

  it.each(['express', 'fastify'] as const)(
    'finds the endpoint under the global prefix and the URI version (%s)',
    async (platform) => {
      const app = await kitApp(platform, {}, { path: 'tools/mcp' });
      app.setGlobalPrefix('api');
      app.enableVersioning({ type: VersioningType.URI, defaultVersion: '2' });
      const client = await createMcpTestClient(app, { headers: ADMIN });
      try {
        expect(getMcpEndpointPath(app)).toBe('/api/v2/tools/mcp');
        expect((await client.listTools()).length).toBeGreaterThan(0);
      } finally {
        await client.close();
        await app.close();
      }
    },
  );

  it('picks the server by name among several (the first one without a name)', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [twoServersModule()] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    try {
      const first = await createMcpTestClient(app);
      const admin = await createMcpTestClient(app, {
        server: 'admin',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect((await first.listTools()).map((tool) => tool.name)).toEqual(['echo', 'time']);
      expect((await admin.listTools()).map((tool) => tool.name)).toEqual([
        'admin_reindex',
        'admin_reset',
        'admin_users',
      ]);
      await first.close();
      await admin.close();
      await expect(createMcpTestClient(app, { server: 'nope' })).rejects.toThrow(
        'The application has no MCP server named "nope" (its servers: "public", "admin").',
      );
    } finally {
      await app.close();
    }
  });

  describe.each(REVISIONS)('a real URL, speaking %s', (revision) => {
    it('calls tools, answers questions and closes its session over the network', async () => {
      const http = await startHttpApp(KitFixtureModule.forRoot());
      const client = await createMcpTestClient(http.url.toString(), {
        revision,
        headers: ADMIN,
        answers: { elicit: { action: 'accept', content: { name: 'Net' } } },
      });
      try {
        expect((await client.discover()).protocolVersion).toBe(revision);
        expect((await client.callTool('repeat', { text: 'x', times: 3 })).content).toEqual([
          { type: 'text', text: 'xxx' },
        ]);
        expect((await client.callTool('ask_name')).content).toEqual([{ type: 'text', text: 'action=accept name=Net' }]);
      } finally {
        await client.close();
        await http.close();
      }
    });
  });
});
