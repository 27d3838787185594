import { RequestMethod, SetMetadata, type Type } from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MCP_ENDPOINT_METADATA } from '../../shared/mcp.constants';
import { HttpDrain } from './http-drain';
import { createMcpControllers } from './mcp-http.controllers';
import { markerOf, SERVED_VERBS, type McpEndpointKind } from './endpoint-marker';
import { McpHttpGuard } from './mcp-http.guard';
import { McpHttpExceptionFilter } from './mcp-http-exception.filter';
import { HttpExchanges } from './http-exchanges.service';
import type { HttpAdmission } from './http-admission.service';
import type { HttpExchange } from './http-exchange';
import { fakeRequest, fakeResponse } from '../../../test/support/raw-http';

const ALL_PATHS = { streamable: 'mcp', simple: 'rpc', sse: { events: 'sse', messages: 'messages' } };

type Routes = Array<[method: string, verb: string]>;

/** A verb method of a controller. */
type VerbMethod = (request: unknown, response: unknown) => Promise<void> | void;

/** The routes a controller declares: its method names and their verbs. */
function routesOf(controller: Type<unknown>): Routes {
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .filter(
      (name) => name !== 'constructor' && Reflect.getMetadata(PATH_METADATA, prototype[name] as object) !== undefined,
    )
    .map((name) => [name, RequestMethod[Reflect.getMetadata(METHOD_METADATA, prototype[name] as object) as number]]);
}

describe('createMcpControllers', () => {
  it('makes the Streamable HTTP controller alone by default', () => {
    const controllers = createMcpControllers({ streamable: 'mcp' }, 'default', []);
    expect(controllers.map((controller) => controller.name)).toEqual(['McpStreamableHttpController']);
  });

  it.each<[string, McpEndpointKind, string, Routes]>([
    [
      'McpStreamableHttpController',
      'streamable',
      'mcp',
      [
        ['get', 'GET'],
        ['post', 'POST'],
        ['delete', 'DELETE'],
        ['options', 'OPTIONS'],
      ],
    ],
    [
      'McpSimpleHttpController',
      'simple',
      'rpc',
      [
        ['post', 'POST'],
        ['options', 'OPTIONS'],
      ],
    ],
    [
      'McpSseEventsController',
      'sse-events',
      'sse',
      [
        ['get', 'GET'],
        ['options', 'OPTIONS'],
      ],
    ],
    [
      'McpSseMessagesController',
      'sse-messages',
      'messages',
      [
        ['post', 'POST'],
        ['options', 'OPTIONS'],
      ],
    ],
  ])('%s: at its path, one route per verb the endpoint serves, each marked', (name, kind, path, routes) => {
    const controller = createMcpControllers(ALL_PATHS, 'default', []).find((each) => each.name === name)!;
    expect(Reflect.getMetadata(PATH_METADATA, controller)).toBe(path);
    expect(routesOf(controller)).toEqual(routes);
    // The verbs the Allow header lists are the routes.
    expect(routes.map(([, verb]) => verb)).toEqual(SERVED_VERBS[kind]);
    expect(markerOf(controller)).toEqual({ kind, server: 'default', allow: SERVED_VERBS[kind].join(', ') });
    for (const [method] of routes) {
      expect(markerOf((controller.prototype as Record<string, unknown>)[method])).toEqual(markerOf(controller));
    }
    expect(Reflect.getMetadata(GUARDS_METADATA, controller)).toEqual([McpHttpGuard]);
    expect(Reflect.getMetadata(EXCEPTION_FILTERS_METADATA, controller)).toEqual([McpHttpExceptionFilter]);
  });

  it('applies the endpoint decorators to every controller, before its own guard', () => {
    class AppGuard {}
    const decorators = [
      SetMetadata('app:is-public', true),
      (target: object) => {
        Reflect.defineMetadata(GUARDS_METADATA, [AppGuard], target);
      },
    ];
    for (const controller of createMcpControllers(ALL_PATHS, 'default', decorators)) {
      expect(Reflect.getMetadata('app:is-public', controller)).toBe(true);
      expect(Reflect.getMetadata(GUARDS_METADATA, controller)).toEqual([AppGuard, McpHttpGuard]);
      expect(Reflect.getMetadata(MCP_ENDPOINT_METADATA, controller)).toBeDefined();
    }
  });

  describe('verb methods', () => {
    const exchanges = new HttpExchanges({ httpAdapter: { getType: () => 'express' } } as never);
    exchanges.onModuleInit();

    /** A controller instance as Nest makes it: its transport, and the injected properties. */
    function instanceOf(name: string, transport: object, drain = new HttpDrain()): Record<string, VerbMethod> {
      const controller = createMcpControllers(ALL_PATHS, 'default', []).find((each) => each.name === name)!;
      const instance = new (controller as unknown as new (transport: object) => Record<string, unknown>)(transport);
      const admission = { preflightHeaders: (_req: unknown, _res: unknown, allow: string) => ({ allow }) };
      Object.assign(instance, { exchanges, drain, admission: admission as unknown as HttpAdmission });
      return instance as Record<string, VerbMethod>;
    }

    it.each([
      ['McpStreamableHttpController', 'get', 'get'],
      ['McpStreamableHttpController', 'post', 'post'],
      ['McpStreamableHttpController', 'delete', 'delete'],
      ['McpSimpleHttpController', 'post', 'post'],
      ['McpSseEventsController', 'get', 'events'],
      ['McpSseMessagesController', 'post', 'messages'],
    ])('%s.%s() hands the exchange to the transport method %s()', async (name, method, serviceMethod) => {
      const seen: HttpExchange[] = [];
      const transport = { [serviceMethod]: jest.fn(async (exchange: HttpExchange) => void seen.push(exchange)) };
      const req = fakeRequest(method.toUpperCase());
      const { res } = fakeResponse();
      await instanceOf(name, transport)[method](req, res);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ request: req, response: res, req, res });
    });

    it('counts a request as being served until its transport method returns', async () => {
      const drain = new HttpDrain();
      let finish: () => void = () => undefined;
      const transport = { post: () => new Promise<void>((resolve) => (finish = resolve)) };
      const serving = instanceOf('McpSimpleHttpController', transport, drain).post(
        fakeRequest('POST'),
        fakeResponse().res,
      );
      let quiet = false;
      const waiting = drain.whenQuiet().then(() => (quiet = true));
      await Promise.resolve();
      expect(quiet).toBe(false);
      finish();
      await serving;
      await waiting;
      expect(quiet).toBe(true);
    });

    it('answers OPTIONS with 204 and the preflight headers', () => {
      const recorded = fakeResponse();
      void instanceOf('McpSseEventsController', {}).options(fakeRequest('OPTIONS'), recorded.res);
      expect(recorded.status()).toBe(204);
      expect(recorded.headers).toEqual({ allow: 'GET, OPTIONS' });
    });
  });
});
