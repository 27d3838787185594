/**
 * Search mode (`toolSearch`) on a server with a hundred route tools, on Express and Fastify, with
 * both official clients: `tools/list` answers `search_tools` and the tool kept listed; the search
 * finds the right route by its name, by words of its description and by a parameter name, and
 * the tool found is called by name through its route; a scoped tool is found only by a caller with
 * the scope, a tool for views alone never; bad arguments are an `isError` result; a tool added at
 * runtime is found at once and announced with `notifications/tools/list_changed`; a second server
 * searches only its own tools.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Body,
  Controller,
  Get,
  Injectable,
  Module,
  Param,
  ParseIntPipe,
  Post,
  Query,
  type Type,
  ValidationPipe,
} from '@nestjs/common';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';
import {
  getMcpToken,
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION,
  McpConfigurationError,
  McpModule,
  McpRegistry,
  McpRoute,
  McpRoutes,
  McpScopes,
  McpTool,
} from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { type Era, type EraClient, connectEra } from './support/era-client';
import { answerOf, META, modernHeaders, modernRequest, post } from './fixtures/raw-rpc';
import { waitUntil } from './support/waiting';

/** A client of `era` with `token`'s bearer credentials, if any. */
function connect(era: Era, url: URL, token?: string): Promise<EraClient> {
  return connectEra(era, url, token === undefined ? {} : { authorization: `Bearer ${token}` });
}

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const TOKENS = { guest: 'tok-guest', billing: 'tok-billing' } as const;

/** Ten resources of a shop, each with a field of its own in its create body. */
const RESOURCES = [
  { plural: 'invoices', one: 'invoice', field: 'amountCents' },
  { plural: 'customers', one: 'customer', field: 'email' },
  { plural: 'orders', one: 'order', field: 'quantity' },
  { plural: 'products', one: 'product', field: 'sku' },
  { plural: 'shipments', one: 'shipment', field: 'trackingNumber' },
  { plural: 'refunds', one: 'refund', field: 'reason' },
  { plural: 'coupons', one: 'coupon', field: 'discountPercent' },
  { plural: 'warehouses', one: 'warehouse', field: 'city' },
  { plural: 'suppliers', one: 'supplier', field: 'vatNumber' },
  { plural: 'employees', one: 'employee', field: 'jobTitle' },
] as const;
type Resource = (typeof RESOURCES)[number];

type ParamDecoratorOf = (resource: Resource) => ParameterDecorator;

/** One action of every resource: its HTTP route, its parameters and its description. */
interface Action {
  readonly method: string;
  readonly verb: typeof Get;
  readonly path: string;
  readonly params: ReadonlyArray<{
    readonly decorate: ParamDecoratorOf;
    readonly type: (resource: Resource) => unknown;
  }>;
  readonly describe: (resource: Resource) => string;
}

class CommentDto {
  @IsString()
  @IsNotEmpty()
  text!: string;
}

const createDtos = new Map<Resource, Type>();

/** The create body of a resource: a DTO with the resource's own field, made at run time. */
function createDtoOf(resource: Resource): Type {
  let dto = createDtos.get(resource);
  if (dto === undefined) {
    class CreateDto {}
    Object.defineProperty(CreateDto, 'name', { value: `Create${resource.one}Dto` });
    IsString()(CreateDto.prototype, resource.field);
    IsNotEmpty()(CreateDto.prototype, resource.field);
    IsOptional()(CreateDto.prototype, 'label');
    IsString()(CreateDto.prototype, 'label');
    createDtos.set(resource, CreateDto);
    dto = CreateDto;
  }
  return dto;
}

const id = { decorate: () => Param('id', ParseIntPipe), type: () => Number };
const query = (name: string) => ({ decorate: () => Query(name), type: () => String });

// Static paths before `:id`: Express matches routes in the order they are declared.
const ACTIONS: Action[] = [
  {
    method: 'list',
    verb: Get,
    path: '',
    params: [query('tag')],
    describe: (r) => `Lists the ${r.plural}, one page at a time, optionally those with a tag`,
  },
  {
    method: 'search',
    verb: Get,
    path: 'search',
    params: [query('q')],
    describe: (r) => `Finds ${r.plural} whose text contains the words given`,
  },
  { method: 'count', verb: Get, path: 'count', params: [], describe: (r) => `Counts the ${r.plural}` },
  {
    method: 'export',
    verb: Get,
    path: 'export',
    params: [query('format')],
    describe: (r) => `Exports every ${r.one} as a CSV or JSON file`,
  },
  {
    method: 'stats',
    verb: Get,
    path: 'stats',
    params: [query('from'), query('to')],
    describe: (r) => `Totals and averages of the ${r.plural} between two dates`,
  },
  { method: 'get', verb: Get, path: ':id', params: [id], describe: (r) => `One ${r.one} by its id` },
  {
    method: 'create',
    verb: Post,
    path: '',
    params: [{ decorate: () => Body(), type: createDtoOf }],
    describe: (r) => `Creates a new ${r.one}`,
  },
  {
    method: 'archive',
    verb: Post,
    path: ':id/archive',
    params: [id],
    describe: (r) => `Archives a ${r.one}, so that it no longer shows in lists`,
  },
  {
    method: 'restore',
    verb: Post,
    path: ':id/restore',
    params: [id],
    describe: (r) => `Brings back an archived ${r.one}`,
  },
  {
    method: 'comment',
    verb: Post,
    path: ':id/comments',
    params: [id, { decorate: () => Body(), type: () => CommentDto }],
    describe: (r) => `Adds a comment to a ${r.one}`,
  },
];

/** A controller of one resource, built as its decorators would build it: ten routes, all tools. */
function resourceController(resource: Resource): Type {
  class ResourceController {}
  const name = `${resource.plural[0].toUpperCase()}${resource.plural.slice(1)}Controller`;
  Object.defineProperty(ResourceController, 'name', { value: name });
  const prototype = ResourceController.prototype as Record<string, unknown>;
  for (const action of ACTIONS) {
    prototype[action.method] = (...args: unknown[]) => ({ resource: resource.plural, action: action.method, args });
    action.params.forEach((param, index) => param.decorate(resource)(prototype, action.method, index));
    Reflect.defineMetadata(
      'design:paramtypes',
      action.params.map((param) => param.type(resource)),
      prototype,
      action.method,
    );
    const descriptor = Object.getOwnPropertyDescriptor(prototype, action.method)!;
    action.verb(action.path)(prototype, action.method, descriptor);
    McpRoute({ description: action.describe(resource) })(prototype, action.method, descriptor);
  }
  Controller(resource.plural)(ResourceController);
  McpRoutes()(ResourceController);
  return ResourceController;
}

@Injectable()
class BillingTools {
  @McpTool({ name: 'refund_override', description: 'Overrides the refund limit of a customer' })
  @McpScopes('billing:admin')
  override(): string {
    return 'overridden';
  }

  @McpTool({ name: 'invoice_view_refresh', description: 'Refreshes the invoice view', ui: { visibility: ['app'] } })
  refresh(): string {
    return 'refreshed';
  }
}

@Module({ controllers: RESOURCES.map(resourceController), providers: [BillingTools] })
class ShopModule {}

@Injectable()
class OpsTools {
  @McpTool({ name: 'restart_worker', description: 'Restarts a background worker' })
  restart(): string {
    return 'restarted';
  }
}

@Module({ providers: [OpsTools] })
class OpsModule {}

async function startShop(platform: HttpPlatform): Promise<HttpApp> {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'shop',
        version: '1.0.0',
        toolSearch: { listed: ['invoices_list'] },
        auth: {
          bearer: {
            tokens: { [TOKENS.guest]: { id: 'guest' }, [TOKENS.billing]: { id: 'b', scopes: ['billing:admin'] } },
          },
        },
      }),
      McpModule.forRoot({ name: 'ops', version: '1.0.0', path: 'ops', include: [OpsModule], toolSearch: true }),
      ShopModule,
      OpsModule,
    ],
  })
  class RootModule {}
  return startHttpApp(RootModule, {
    platform,
    configure: (app) => {
      app.useGlobalPipes(new ValidationPipe({ whitelist: true }));
    },
  });
}

type Result = Record<string, unknown> & { structuredContent?: { tools: Array<Record<string, unknown>> } };

function textOf(result: Record<string, unknown>): string {
  return (result.content as Array<{ text: string }>)[0].text;
}

describe.each(PLATFORMS)('search mode over a hundred route tools (%s)', (platform) => {
  let shop: HttpApp;

  beforeAll(async () => {
    shop = await startShop(platform);
  });

  afterAll(async () => {
    await shop.close();
  });

  describe.each(['v1', 'v2'] as const)('with the %s client', (era) => {
    let guest: EraClient;

    async function search(client: EraClient, query: string, limit?: number): Promise<string[]> {
      const result = (await client.callTool({
        name: 'search_tools',
        arguments: limit === undefined ? { query } : { query, limit },
      })) as Result;
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      return result.structuredContent!.tools.map((tool) => tool.name as string);
    }

    beforeEach(async () => {
      guest = await connect(era, shop.url, TOKENS.guest);
    });

    afterEach(async () => {
      await guest.close();
    });

    it('lists the search tool and the tool kept listed, not the hundred routes', async () => {
      const { tools } = await guest.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['invoices_list', 'search_tools']);
      expect(tools[1]).toMatchObject({
        description: expect.stringContaining('Call a tool found with its name'),
        inputSchema: {
          type: 'object',
          properties: { query: { type: 'string', maxLength: 256 }, limit: { type: 'integer', maximum: 25 } },
          required: ['query'],
        },
        annotations: { readOnlyHint: true },
      });
    });

    it('finds a route by its name, by words of its description and by a parameter name', async () => {
      expect((await search(guest, 'create invoice'))[0]).toBe('invoices_create');
      expect((await search(guest, 'shipments_restore'))[0]).toBe('shipments_restore');
      expect((await search(guest, 'bring back an archived shipment'))[0]).toBe('shipments_restore');
      expect((await search(guest, 'averages of orders between dates'))[0]).toBe('orders_stats');
      // `number` is also in suppliers' `vatNumber`: one word of two, ranked after.
      expect(await search(guest, 'tracking number')).toEqual(['shipments_create', 'suppliers_create']);
      expect((await search(guest, 'vatNumber'))[0]).toBe('suppliers_create');
      expect(await search(guest, 'weather forecast')).toEqual([]);
      expect(await search(guest, 'customer', 3)).toHaveLength(3);
    });

    it('answers the definitions of the tools found, which are then called by name', async () => {
      const result = (await guest.callTool({
        name: 'search_tools',
        arguments: { query: 'comment on a warehouse', limit: 1 },
      })) as Result;
      expect(result.structuredContent!.tools).toEqual([
        {
          name: 'warehouses_comment',
          description: 'Adds a comment to a warehouse',
          inputSchema: expect.objectContaining({
            type: 'object',
            properties: {
              id: expect.objectContaining({ type: 'integer' }),
              body: expect.objectContaining({ type: 'object', properties: { text: { type: 'string' } } }),
            },
          }),
          annotations: { readOnlyHint: false },
        },
      ]);
      const called = await guest.callTool({
        name: 'warehouses_comment',
        arguments: { id: 7, body: { text: 'Dock 3 is closed' } },
      });
      expect(called.isError).toBeFalsy();
      expect(called.structuredContent).toEqual({
        resource: 'warehouses',
        action: 'comment',
        args: [7, { text: 'Dock 3 is closed' }],
      });
      const invalid = await guest.callTool({ name: 'warehouses_comment', arguments: { id: 7, body: { text: '' } } });
      expect(invalid).toMatchObject({ isError: true, content: [{ text: 'HTTP 400: text should not be empty' }] });
    });

    it('finds a scoped tool only for a caller with the scope, and a tool for views alone never', async () => {
      expect(await search(guest, 'override refund limit')).not.toContain('refund_override');
      expect(await search(guest, 'refresh invoice view')).not.toContain('invoice_view_refresh');
      const billing = await connect(era, shop.url, TOKENS.billing);
      try {
        expect((await search(billing, 'override refund limit'))[0]).toBe('refund_override');
        expect(await search(billing, 'refresh invoice view')).not.toContain('invoice_view_refresh');
        expect(await billing.callTool({ name: 'refund_override' })).toMatchObject({
          content: [{ type: 'text', text: 'overridden' }],
        });
      } finally {
        await billing.close();
      }
    });

    it('refuses a query too long, a limit out of bounds and unknown arguments as isError', async () => {
      for (const args of [{ query: 'x'.repeat(257) }, { query: 'notes', limit: 0 }, { query: 'notes', limit: 26 }]) {
        const refused = await guest.callTool({ name: 'search_tools', arguments: args });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/^Invalid arguments for tool search_tools: (query|limit) must be/);
      }
      const unknown = await guest.callTool({ name: 'search_tools', arguments: { query: 'a', sort: 'name' } });
      expect(unknown).toMatchObject({ isError: true });
    });
  });

  it('keeps the list private to the caller, with its cache hint, in the modern era', async () => {
    const answer = answerOf(
      await post(shop.url, modernRequest('tools/list'), {
        ...modernHeaders('tools/list'),
        authorization: `Bearer ${TOKENS.guest}`,
      }),
    );
    expect(answer.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    expect((answer.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual([
      'invoices_list',
      'search_tools',
    ]);
  });

  it("lists the tools for views alone to a host with MCP Apps, and never answers them to the model's search", async () => {
    const withApps = {
      [META.clientCapabilities]: { extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } } },
    };
    const headers = { authorization: `Bearer ${TOKENS.guest}` };
    const listed = answerOf(
      await post(shop.url, modernRequest('tools/list', {}, 1, withApps), {
        ...modernHeaders('tools/list'),
        ...headers,
      }),
    );
    expect((listed.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual([
      'invoice_view_refresh',
      'invoices_list',
      'search_tools',
    ]);
    const searched = answerOf(
      await post(
        shop.url,
        modernRequest(
          'tools/call',
          { name: 'search_tools', arguments: { query: 'refresh invoice view' } },
          2,
          withApps,
        ),
        { ...modernHeaders('tools/call', 'search_tools'), ...headers },
      ),
    );
    const found = (searched.result as Result).structuredContent!.tools.map((tool) => tool.name);
    expect(found.length).toBeGreaterThan(0);
    expect(found).not.toContain('invoice_view_refresh');
  });

  it('finds a tool added at runtime at once, and announces the change', async () => {
    const client = new V1Client({ name: 'search-v1', version: '1.0.0' });
    const changed = jest.fn();
    client.setNotificationHandler(ToolListChangedNotificationSchema, changed);
    // The client opens its GET stream (where the notification comes) by itself after initialize.
    let streamOpen = false;
    const watchingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      streamOpen ||= init?.method === 'GET' && response.ok;
      return response;
    };
    await client.connect(
      new V1Transport(shop.url, {
        fetch: watchingFetch,
        requestInit: { headers: { authorization: `Bearer ${TOKENS.guest}` } },
      }),
    );
    const registry = shop.app.get<McpRegistry>(getMcpToken(McpRegistry, 'shop'));
    try {
      await waitUntil(() => streamOpen, 'the GET stream');
      registry.addTool({
        name: 'loyalty_points_grant',
        description: 'Grants loyalty points to a customer',
        handler: () => 'granted',
      });
      await waitUntil(() => changed.mock.calls.length > 0, 'notifications/tools/list_changed');
      const found = (await client.callTool({
        name: 'search_tools',
        arguments: { query: 'loyalty points' },
      })) as Result;
      expect(found.structuredContent!.tools.map((tool) => tool.name)).toEqual(['loyalty_points_grant']);
      expect(await client.callTool({ name: 'loyalty_points_grant' })).toMatchObject({
        content: [{ text: 'granted' }],
      });
    } finally {
      registry.removeTool('loyalty_points_grant');
      await client.close();
    }
  });

  it('has each server search only its own tools', async () => {
    const ops = await connect('v2', new URL('/ops', shop.baseUrl));
    try {
      expect((await ops.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools']);
      const worker = (await ops.callTool({ name: 'search_tools', arguments: { query: 'restart worker' } })) as Result;
      expect(worker.structuredContent!.tools.map((tool) => tool.name)).toEqual(['restart_worker']);
      const invoices = (await ops.callTool({ name: 'search_tools', arguments: { query: 'invoice' } })) as Result;
      expect(invoices.structuredContent!.tools).toEqual([]);
    } finally {
      await ops.close();
    }
    const guest = await connect('v1', shop.url, TOKENS.guest);
    try {
      const found = (await guest.callTool({ name: 'search_tools', arguments: { query: 'restart worker' } })) as Result;
      expect(found.structuredContent!.tools).toEqual([]);
    } finally {
      await guest.close();
    }
  });
});

describe('search mode at startup', () => {
  it('stops the application when a tool takes the search tool name', async () => {
    @Injectable()
    class Clash {
      @McpTool({ name: 'search_tools' })
      clash(): string {
        return '';
      }
    }
    @Module({ imports: [McpModule.forRoot({ name: 'clash', version: '1.0.0', toolSearch: true })], providers: [Clash] })
    class ClashModule {}
    await expect(startHttpApp(ClashModule)).rejects.toThrow(McpConfigurationError);
    await expect(startHttpApp(ClashModule)).rejects.toThrow(/toolSearch\.name/);
  });

  it('names the bad option', async () => {
    @Module({ imports: [McpModule.forRoot({ name: 'bad', version: '1.0.0', toolSearch: { maxLimit: 0 } })] })
    class BadModule {}
    await expect(startHttpApp(BadModule)).rejects.toThrow('Invalid McpModule option "toolSearch.maxLimit"');
  });
});
