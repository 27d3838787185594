/**
 * Where MCP handlers may live and what they receive: request-scoped providers (REQUEST is the
 * HTTP request), controllers, custom parameter decorators, aliases, factory and value
 * providers. Over a real socket with the MCP SDK client.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpModule } from '../lib';
import {
  CATALOG_ALIAS,
  CatalogTools,
  constructions,
  handlerRuns,
  SCOPE_PROVIDERS,
  WidgetsController,
} from './fixtures/pipeline-scope';
import { firstText, modernRequest, startApp, type RunningApp } from './fixtures/pipeline-app';

/** A guard's refusal (it returned false): the access-denied error, as the SDK client reports it. */
const FORBIDDEN = { code: -32004, data: { status: 403 }, message: expect.stringContaining('Forbidden resource') };

/** The code, data and message of the JSON-RPC error a client request ends with. */
async function accessDenial(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    (value) => {
      throw new Error(`Expected a JSON-RPC error, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  const { code, data, message } = error as { code: unknown; data: unknown; message: unknown };
  return { code, data, message };
}

const USER_AGENT = 'pipeline-e2e-agent/1.0';

function toolJson(result: object): any {
  return JSON.parse(firstText(result));
}

describe('MCP handlers across provider kinds and scopes', () => {
  let running: RunningApp;
  let acme: Client;
  let globex: Client;

  beforeAll(async () => {
    running = await startApp({
      imports: [McpModule.forRoot({ name: 'scopes', version: '1.0.0' })],
      controllers: [WidgetsController],
      providers: SCOPE_PROVIDERS,
    });
    acme = await running.connect({ headers: { 'x-tenant': 'acme', 'user-agent': USER_AGENT } });
    globex = await running.connect({ headers: { 'x-tenant': 'globex', 'user-agent': USER_AGENT } });
  });

  afterAll(async () => {
    await running?.close();
  });

  describe('request-scoped providers', () => {
    it('get a fresh instance per call', async () => {
      const first = toolJson(await acme.callTool({ name: 'tenant', arguments: {} }));
      const second = toolJson(await acme.callTool({ name: 'tenant', arguments: {} }));
      expect(first.instance).not.toBe(second.instance);
      expect(second.instance).toBeGreaterThan(first.instance);
    });

    it('receive the HTTP request of the call as REQUEST (custom headers, method), the same object as @McpRequest()', async () => {
      const fromAcme = toolJson(await acme.callTool({ name: 'tenant', arguments: {} }));
      expect(fromAcme).toMatchObject({ tenant: 'acme', method: 'POST', sameAsMcpRequest: true, tool: 'tenant' });
      const fromGlobex = toolJson(await globex.callTool({ name: 'tenant', arguments: {} }));
      expect(fromGlobex).toMatchObject({ tenant: 'globex', method: 'POST', sameAsMcpRequest: true });
    });

    it('keep concurrent calls apart', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, index) => (index % 2 === 0 ? acme : globex).callTool({ name: 'tenant' })),
      );
      const seen = results.map(toolJson);
      expect(seen.map((entry) => entry.tenant)).toEqual(['acme', 'globex', 'acme', 'globex', 'acme', 'globex']);
      expect(new Set(seen.map((entry) => entry.instance)).size).toBe(6);
    });

    it('still run their guards: denied for one caller, admitted for another', async () => {
      expect(await accessDenial(globex.callTool({ name: 'acme_secrets', arguments: {} }))).toEqual(FORBIDDEN);
      expect(handlerRuns.acme_secrets).toBeUndefined();

      const allowed = await acme.callTool({ name: 'acme_secrets', arguments: {} });
      expect(allowed.isError).toBeFalsy();
      expect(firstText(allowed)).toMatch(/^secrets of instance \d+$/);
      expect(handlerRuns.acme_secrets).toBe(1);
    });

    it('make a provider that depends on them request-scoped as well', async () => {
      const first = JSON.parse(firstText(await acme.callTool({ name: 'audit', arguments: {} })));
      const second = JSON.parse(firstText(await globex.callTool({ name: 'audit', arguments: {} })));
      expect(first.tenant).toBe('acme');
      expect(second.tenant).toBe('globex');
      expect(first.tools).not.toBe(second.tools);
      expect(first.caller).not.toBe(second.caller);
    });

    it('work the same in the modern era (stateless requests, no session)', async () => {
      const call = () =>
        modernRequest(running.url(), 'tools/call', { name: 'tenant', arguments: {} }, { 'x-tenant': 'initech' });
      const [first, second] = await Promise.all([call(), call()]);
      const seen = [first, second].map((reply) => JSON.parse(reply.body.result.content[0].text));
      expect(seen[0]).toMatchObject({ tenant: 'initech', method: 'POST', sameAsMcpRequest: true });
      expect(seen[1]).toMatchObject({ tenant: 'initech' });
      expect(seen[0].instance).not.toBe(seen[1].instance);
    });

    it('are listed once, whatever the number of instances created', async () => {
      const before = constructions.TenantTools;
      const { tools } = await acme.listTools();
      expect(tools.filter((tool) => tool.name === 'tenant')).toHaveLength(1);
      expect(constructions.TenantTools).toBe(before);
    });
  });

  describe('custom parameter decorators (createParamDecorator)', () => {
    it('read the HTTP request through switchToHttp() and mix with @McpArgs()', async () => {
      const result = await acme.callTool({ name: 'whoami', arguments: { greeting: 'hi' } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe(`hi ${USER_AGENT} of acme (mcp)`);
    });
  });

  describe('tools on a @Controller class', () => {
    it('are listed and callable, and the ordinary HTTP route still works', async () => {
      const { tools } = await acme.listTools();
      expect(tools.find((tool) => tool.name === 'widget_count')?.description).toBe('Counts widgets');
      expect(firstText(await acme.callTool({ name: 'widget_count', arguments: {} }))).toBe('widgets: 2');

      const http = await fetch(running.url('/widgets'));
      expect(http.status).toBe(200);
      expect(await http.json()).toEqual(['sprocket', 'gear']);
    });

    it('get their parameters, custom decorators included', async () => {
      const result = await acme.callTool({ name: 'widget_by_index', arguments: { index: 1 } });
      expect(firstText(result)).toBe(`gear for ${USER_AGENT}`);
    });

    it('run the @UseInterceptors interceptor bound to them', async () => {
      expect(firstText(await acme.callTool({ name: 'widget_summary', arguments: {} }))).toBe(
        'two widgets (intercepted)',
      );
    });

    it('run the @UseGuards guard bound to them (denied)', async () => {
      expect(await accessDenial(acme.callTool({ name: 'widget_delete_all', arguments: {} }))).toEqual(FORBIDDEN);
      expect(handlerRuns.widget_delete_all).toBeUndefined();
    });
  });

  describe('aliases, factory and value providers', () => {
    it('an alias (useExisting) does not register the tools twice', async () => {
      expect(running.app.get(CATALOG_ALIAS)).toBe(running.app.get(CatalogTools));
      const { tools } = await acme.listTools();
      expect(tools.filter((tool) => tool.name === 'catalog_lookup')).toHaveLength(1);
      expect(firstText(await acme.callTool({ name: 'catalog_lookup', arguments: { sku: 'A1' } }))).toBe(
        'sku A1: in catalog',
      );
    });

    it('tools of a useFactory provider are discovered and run on that instance', async () => {
      expect(firstText(await acme.callTool({ name: 'factory_label', arguments: {} }))).toBe('label: made by a factory');
    });

    it('tools of a useValue provider are discovered', async () => {
      expect(firstText(await acme.callTool({ name: 'value_ping', arguments: {} }))).toBe('pong from a value provider');
    });

    it('a @UseGuards guard on a tool of a useFactory provider still denies', async () => {
      const denial = await accessDenial(acme.callTool({ name: 'factory_guarded', arguments: {} }));
      expect(handlerRuns.factory_guarded).toBeUndefined();
      expect(denial).toEqual(FORBIDDEN);
    });
  });
});

describe('the pipeline on the Fastify adapter', () => {
  let running: RunningApp | undefined;
  let client: Client;

  beforeAll(async () => {
    running = await startApp(
      {
        imports: [McpModule.forRoot({ name: 'scopes-fastify', version: '1.0.0' })],
        providers: SCOPE_PROVIDERS,
      },
      { adapter: 'fastify' },
    );
    client = await running.connect({ headers: { 'x-tenant': 'acme', 'user-agent': USER_AGENT } });
  });

  afterAll(async () => {
    await running?.close();
  });

  it('starts and serves tools/list', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['tenant', 'whoami', 'catalog_lookup']));
  });

  it('a request-scoped tool gets a fresh instance and the Fastify request as REQUEST', async () => {
    const first = toolJson(await client.callTool({ name: 'tenant', arguments: {} }));
    const second = toolJson(await client.callTool({ name: 'tenant', arguments: {} }));
    expect(first).toMatchObject({ tenant: 'acme', method: 'POST', sameAsMcpRequest: true });
    expect(first.instance).not.toBe(second.instance);
  });

  it('custom parameter decorators read the Fastify request', async () => {
    expect(firstText(await client.callTool({ name: 'whoami', arguments: {} }))).toBe(
      `hello ${USER_AGENT} of acme (mcp)`,
    );
  });
});
