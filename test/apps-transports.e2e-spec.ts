/**
 * MCP Apps on the transports the main spec (apps.e2e-spec.ts) leaves to the shared engine: the
 * 2024-11-05 SSE pair, with the official v1 client's SSEClientTransport, and the simple POST
 * endpoint (`/rpc`), byte by byte in the modern era. On each, a client that declared MCP Apps
 * support sees the app-only tool and every tool's `_meta.ui`, and one that did not is not shown
 * the app-only tool (which needs a scope: the calls carry the writer's token); the view reads
 * the same everywhere.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from 'nest-mcp';
import { type HttpApp, type HttpPlatform } from './fixtures/http-app';
import { answerOf, META, modernHeaders, modernRequest, post } from './fixtures/raw-rpc';
import { bearer, NOTE_CARD, NOTE_CARD_HTML, startAppsApp } from './fixtures/apps-fixture';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const WITH_UI = { extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } } };
const APP_ONLY = 'save_note';

describe.each(PLATFORMS)('MCP Apps over the SSE pair and /rpc on %s', (platform) => {
  let app: HttpApp;

  beforeAll(async () => {
    app = await startAppsApp(platform, {
      overrides: { simpleHttpPath: 'rpc', ssePath: 'sse', sseMessagesPath: 'messages' },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  describe('the SSE pair (v1 client)', () => {
    async function listed(capabilities: Record<string, unknown>) {
      const client = new V1Client({ name: 'v1-apps-sse', version: '1.0.0' }, { capabilities });
      const headers = bearer('writer');
      const withToken: typeof fetch = (input, init) =>
        fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers } });
      await client.connect(
        new SSEClientTransport(new URL(`${app.baseUrl}/sse`), {
          eventSourceInit: { fetch: withToken },
          fetch: withToken,
        }),
      );
      try {
        const { tools } = await client.listTools();
        const view = await client.readResource({ uri: NOTE_CARD });
        return { tools, view, advertised: client.getServerCapabilities()?.extensions };
      } finally {
        await client.close();
      }
    }

    it('shows the app-only tool, the links and the view to a client with MCP Apps', async () => {
      const { tools, view, advertised } = await listed(WITH_UI);
      expect(advertised).toHaveProperty([MCP_APPS_EXTENSION]);
      expect(tools.find((tool) => tool.name === APP_ONLY)?._meta?.ui).toEqual({
        resourceUri: NOTE_CARD,
        visibility: ['app'],
      });
      expect(view.contents[0]).toMatchObject({ uri: NOTE_CARD, mimeType: MCP_APP_MIME_TYPE, text: NOTE_CARD_HTML });
    });

    it('leaves the app-only tool out for a client without it', async () => {
      const { tools } = await listed({});
      expect(tools.map((tool) => tool.name)).not.toContain(APP_ONLY);
      expect(tools.find((tool) => tool.name === 'show_note')?._meta?.ui).toEqual({ resourceUri: NOTE_CARD });
    });
  });

  describe('the simple POST endpoint (modern era)', () => {
    async function listedNames(capabilities: Record<string, unknown>): Promise<string[]> {
      const body = modernRequest('tools/list', {}, 1, { [META.clientCapabilities]: capabilities });
      const answer = answerOf(
        await post(`${app.baseUrl}/rpc`, body, { ...modernHeaders('tools/list'), ...bearer('writer') }),
      );
      const { tools } = answer.result as { tools: Array<{ name: string }> };
      return tools.map((tool) => tool.name);
    }

    it('lists the app-only tool to a client with MCP Apps, and not to one without', async () => {
      expect(await listedNames(WITH_UI)).toContain(APP_ONLY);
      expect(await listedNames({})).not.toContain(APP_ONLY);
    });
  });
});
