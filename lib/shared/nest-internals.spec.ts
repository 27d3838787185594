import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  Catch,
  Controller,
  Get,
  HttpCode,
  Injectable,
  Module,
  RequestMethod,
  UseFilters,
  UseGuards,
  Version,
} from '@nestjs/common';
import { ApplicationConfig, ModulesContainer, RouterModule } from '@nestjs/core';
import { APP_FILTER, DiscoveryModule, DiscoveryService, ExternalContextCreator, ModuleRef } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type * as NestCommon from '@nestjs/common';
import type * as NestCore from '@nestjs/core';
import {
  containerOf,
  controllerHostOf,
  convertLegacyRoutePath,
  createExecutionContext,
  declaredVersionsOf,
  isExcludedFromGlobalPrefix,
  modulePathOf,
  CUSTOM_ROUTE_ARGS_METADATA,
  ENHANCER_KEYS,
  forkContextCreator,
  globalEnhancersOf,
  GUARDS_KEY,
  hasGlobalEnhancers,
  isCustomRouteArg,
  moduleRefOf,
  PARAMTYPES_METADATA,
  registeredEnhancerOf,
  ROUTE_ARGS_METADATA,
  routeArgType,
  routeStatusOf,
  wrapConcreteFilters,
} from './nest-internals';

/**
 * The shapes nest-internals.ts relies on, pinned on the Nest the repository runs (12) and, when
 * it is installed (test/consumers.e2e-spec.ts installs it), on the Nest 11 of the consumer apps.
 */

const GLOBAL_ENHANCER_GETTERS = [
  'getGlobalGuards',
  'getGlobalInterceptors',
  'getGlobalPipes',
  'getGlobalFilters',
  'getGlobalRequestGuards',
  'getGlobalRequestInterceptors',
  'getGlobalRequestPipes',
  'getGlobalRequestFilters',
];

/** The metadata keys Nest writes, by name, as this package reads them. */
const KEYS = {
  HOST_METADATA: 'host',
  MODULE_PATH: '__module_path__',
  VERSION_METADATA: '__version__',
  ROUTE_ARGS_METADATA: '__routeArguments__',
  CUSTOM_ROUTE_ARGS_METADATA: '__customRouteArgs__',
  PARAMTYPES_METADATA: 'design:paramtypes',
  GUARDS_METADATA: '__guards__',
  INTERCEPTORS_METADATA: '__interceptors__',
  PIPES_METADATA: '__pipes__',
  EXCEPTION_FILTERS_METADATA: '__exceptionFilters__',
  HTTP_CODE_METADATA: '__httpCode__',
};

describe('nest-internals on the installed Nest', () => {
  it('uses the metadata keys Nest writes', () => {
    expect({ ROUTE_ARGS_METADATA, CUSTOM_ROUTE_ARGS_METADATA, PARAMTYPES_METADATA }).toEqual({
      ROUTE_ARGS_METADATA: KEYS.ROUTE_ARGS_METADATA,
      CUSTOM_ROUTE_ARGS_METADATA: KEYS.CUSTOM_ROUTE_ARGS_METADATA,
      PARAMTYPES_METADATA: KEYS.PARAMTYPES_METADATA,
    });
    expect(GUARDS_KEY).toBe(KEYS.GUARDS_METADATA);
    expect(ENHANCER_KEYS).toEqual([
      KEYS.GUARDS_METADATA,
      KEYS.INTERCEPTORS_METADATA,
      KEYS.PIPES_METADATA,
      KEYS.EXCEPTION_FILTERS_METADATA,
    ]);
  });

  it("reads a route's @HttpCode()", () => {
    class Routes {
      @Get('a')
      @HttpCode(204)
      coded(): void {}

      @Get('b')
      plain(): void {}
    }
    expect(routeStatusOf(Routes.prototype.coded)).toBe(204);
    expect(routeStatusOf(Routes.prototype.plain)).toBeUndefined();
  });

  it('reads the version, host and module path metadata Nest writes', async () => {
    @Controller({ path: 'x', host: 'api.example.com', version: '1' })
    class Versioned {
      @Get()
      @Version(['2', '3'])
      read(): void {}
    }
    expect(declaredVersionsOf(Versioned, Versioned.prototype.read)).toEqual({ method: ['2', '3'], controller: '1' });
    expect(controllerHostOf(Versioned)).toBe('api.example.com');
    @Module({})
    class Mounted {}
    const app = await Test.createTestingModule({
      imports: [Mounted, RouterModule.register([{ path: 'admin', module: Mounted }])],
    }).compile();
    expect(modulePathOf(Mounted, app.get(ModulesContainer).applicationId)).toBe('/admin');
    await app.close();
  });

  it("tests global prefix exclusions with Nest's rule, and converts legacy wildcards as the Express adapter", async () => {
    const app = await Test.createTestingModule({}).compile();
    const nest = app.createNestApplication();
    nest.setGlobalPrefix('api', { exclude: ['health', { path: 'status/:id', method: RequestMethod.GET }] });
    const { exclude } = nest.get(ApplicationConfig).getGlobalPrefixOptions();
    expect(isExcludedFromGlobalPrefix(exclude, '/health', 'POST')).toBe(true);
    expect(isExcludedFromGlobalPrefix(exclude, '/status/7', 'GET')).toBe(true);
    expect(isExcludedFromGlobalPrefix(exclude, '/status/:id', 'GET')).toBe(true);
    expect(isExcludedFromGlobalPrefix(exclude, '/status/:id', 'POST')).toBe(false);
    expect(isExcludedFromGlobalPrefix(undefined, '/health', 'GET')).toBe(false);
    expect(convertLegacyRoutePath('/files/*')).toBe('/files/{*path}');
    await nest.close();
  });

  it('reads route-argument keys as Nest writes them', () => {
    expect(routeArgType('3:0')).toBe(3);
    expect(routeArgType('1001:1')).toBe(1001);
    expect(isCustomRouteArg('3:0')).toBe(false);
    expect(isCustomRouteArg(`abc${CUSTOM_ROUTE_ARGS_METADATA}:2`)).toBe(true);
  });

  it('builds execution contexts of a given type over given arguments', () => {
    class Host {
      handle(): void {}
    }
    const context = createExecutionContext(['req', 'res', { a: 1 }, 'call'], Host, Host.prototype.handle, 'mcp');
    expect(context.getType()).toBe('mcp');
    expect(context.getClass()).toBe(Host);
    expect(context.getHandler()).toBe(Host.prototype.handle);
    expect(context.getArgs()).toEqual(['req', 'res', { a: 1 }, 'call']);
    expect(context.switchToHttp().getRequest()).toBe('req');
  });

  describe('in an application', () => {
    @Injectable()
    class Guard {
      canActivate(): boolean {
        return true;
      }
    }

    @Injectable()
    @UseGuards(Guard)
    class Host {}

    @Controller()
    class Endpoint {}

    @Module({ imports: [DiscoveryModule], providers: [Host], controllers: [Endpoint] })
    class AppModule {}

    it('reaches the container, the global enhancers and the filter factory of the pipeline', async () => {
      const app = await Test.createTestingModule({ imports: [AppModule] }).compile();
      await app.init();
      try {
        const shared = app.get(ExternalContextCreator);
        expect(containerOf(shared)).toBeDefined();
        const config = globalEnhancersOf(shared)!;
        for (const getter of GLOBAL_ENHANCER_GETTERS) {
          expect(typeof (config as unknown as Record<string, unknown>)[getter]).toBe('function');
        }
        expect(hasGlobalEnhancers(config)).toBe(false);
        const fork = forkContextCreator(shared)!;
        expect(fork.creator).toBeInstanceOf(ExternalContextCreator);
        expect(fork.creator).not.toBe(shared);
        const handler = fork.filters.create({}, () => undefined, '');
        expect(typeof handler.next).toBe('function');
        expect(typeof handler.invokeCustomFilters).toBe('function');
      } finally {
        await app.close();
      }
    });

    it('wraps the concrete filters of the forked filter context, each with its instance, once per instance', async () => {
      class Special extends Error {}
      @Catch()
      class EveryError {
        catch(): string {
          return 'global';
        }
      }
      @Catch(Special)
      class OnlySpecial {
        catch(): string {
          return 'method';
        }
      }
      @Injectable()
      class Filtered {
        @UseFilters(new OnlySpecial())
        handle(): void {}
      }
      @Module({ providers: [Filtered, { provide: APP_FILTER, useClass: EveryError }] })
      class FilterModule {}

      const app = await Test.createTestingModule({ imports: [FilterModule] }).compile();
      await app.init();
      try {
        const fork = forkContextCreator(app.get(ExternalContextCreator))!;
        const made: string[] = [];
        const ran: string[] = [];
        const wrapped = wrapConcreteFilters(fork.filters, (func, filter) => {
          made.push(filter.constructor.name);
          return (exception, host) => {
            ran.push(filter.constructor.name);
            return func(exception, host);
          };
        });
        expect(wrapped).toBe(true);
        const host = app.get(Filtered);
        const handler = fork.filters.create(host, host.handle, '');
        // The method's filter first, and still only for what it catches.
        expect(handler.invokeCustomFilters!(new Special(), {})).toBe('method');
        expect(handler.invokeCustomFilters!(new Error('other'), {})).toBe('global');
        expect(ran).toEqual(['OnlySpecial', 'EveryError']);
        fork.filters.create(host, host.handle, '');
        expect(made.sort()).toEqual(['EveryError', 'OnlySpecial']);
      } finally {
        await app.close();
      }
    });

    it("finds a provider's module ref and the enhancers its module registered", async () => {
      const app = await Test.createTestingModule({ imports: [AppModule] }).compile();
      try {
        const discovery = app.get(DiscoveryService);
        const wrapper = discovery.getProviders().find((item) => item.token === Host)!;
        expect(moduleRefOf(wrapper)).toBeInstanceOf(ModuleRef);
        const guard = registeredEnhancerOf(wrapper, Guard)!;
        expect(guard.isStatic).toBe(true);
        expect(guard.instance).toBeInstanceOf(Guard);
        expect(registeredEnhancerOf(wrapper, class Other {})).toBeUndefined();
        const controller = discovery.getControllers().find((item) => item.token === Endpoint)!;
        expect(controller.isNotMetatype).toBe(false);
        expect(controller.isAlias).toBe(false);
        expect(controller.isDependencyTreeStatic()).toBe(true);
      } finally {
        await app.close();
      }
    });
  });
});

const NEST_11 = join(__dirname, '..', '..', 'test', 'consumers', 'nest11');
const nest11Installed = existsSync(join(NEST_11, 'node_modules', '@nestjs', 'core', 'package.json'));

/**
 * Nest 11 cannot replace Nest 12 in this process's imports, so the same shapes are checked on
 * its modules directly: the keys, the deep import, the private fields of a real application's
 * `ExternalContextCreator`. The field readers of nest-internals.ts are plain reads, so they are
 * run on the Nest 11 objects as they are.
 */
(nest11Installed ? describe : describe.skip)('nest-internals shapes on Nest 11 (test/consumers/nest11)', () => {
  const load = createRequire(join(NEST_11, 'package.json'));
  const common = () => load('@nestjs/common') as typeof NestCommon;
  const core = () => load('@nestjs/core') as typeof NestCore;

  it('is Nest 11', () => {
    expect((load('@nestjs/core/package.json') as { version: string }).version).toMatch(/^11\./);
  });

  it('writes the same metadata keys', () => {
    const constants = load('@nestjs/common/constants') as Record<string, unknown>;
    for (const [name, value] of Object.entries(KEYS)) {
      expect([name, constants[name]]).toEqual([name, value]);
    }
  });

  it('has the route exclusion test and the legacy route converter at the deep paths', () => {
    const { isRouteExcluded } = load('@nestjs/core/router/utils/exclude-route.util') as {
      isRouteExcluded: (routes: unknown[], path: string, method: number) => boolean;
    };
    const { mapToExcludeRoute } = load('@nestjs/core/middleware/utils') as {
      mapToExcludeRoute: (routes: unknown[]) => unknown[];
    };
    const exclude = mapToExcludeRoute(['health', { path: 'status/:id', method: 0 }]);
    expect(isRouteExcluded(exclude, '/health', 1)).toBe(true);
    expect(isRouteExcluded(exclude, '/status/7', 0)).toBe(true);
    expect(isRouteExcluded(exclude, '/status/7', 1)).toBe(false);
    const { LegacyRouteConverter } = load('@nestjs/core/router/legacy-route-converter') as {
      LegacyRouteConverter: { tryConvert(path: string, options?: { logs?: boolean }): string };
    };
    expect(LegacyRouteConverter.tryConvert('/files/*', { logs: false })).toBe('/files/{*path}');
  });

  it('has ExecutionContextHost at the deep path, with setType', () => {
    const { ExecutionContextHost } = load('@nestjs/core/helpers/execution-context-host') as {
      ExecutionContextHost: new (
        args: unknown[],
        cls?: unknown,
        handler?: unknown,
      ) => {
        setType(type: string): void;
        getType(): string;
        getArgByIndex(index: number): unknown;
      };
    };
    const context = new ExecutionContextHost(['req', undefined, 'args', 'call']);
    context.setType('mcp');
    expect(context.getType()).toBe('mcp');
    expect(context.getArgByIndex(3)).toBe('call');
  });

  it('has Reflector.createDecorator with a fixed key', () => {
    const { Reflector } = core();
    const Marked = Reflector.createDecorator<string[]>({ key: 'nest-mcp:test' });
    expect(Marked.KEY).toBe('nest-mcp:test');
  });

  it('has the concrete filters wrapConcreteFilters wraps, with their instances', async () => {
    const { Catch: Catch11, Module: Module11, UseFilters: UseFilters11 } = common();
    const { NestFactory, ExternalContextCreator: Creator11 } = core();
    class Special extends Error {}
    class EveryError {
      catch(): string {
        return 'global';
      }
    }
    Catch11()(EveryError);
    class OnlySpecial {
      catch(): string {
        return 'method';
      }
    }
    Catch11(Special)(OnlySpecial);
    class Filtered {
      handle(): void {}
    }
    UseFilters11(new OnlySpecial())(
      Filtered.prototype,
      'handle',
      Object.getOwnPropertyDescriptor(Filtered.prototype, 'handle')!,
    );
    class App11 {}
    Module11({})(App11);
    const app = await NestFactory.createApplicationContext(App11, { logger: false });
    try {
      const fork = forkContextCreator(app.get(Creator11))!;
      const ran: string[] = [];
      expect(
        wrapConcreteFilters(fork.filters, (func, filter) => (exception, host) => {
          ran.push(filter.constructor.name);
          return func(exception, host);
        }),
      ).toBe(true);
      const host = new Filtered();
      const handler = fork.filters.create(host, host.handle, '');
      expect(handler.invokeCustomFilters!(new Special(), {})).toBe('method');
      expect(ran).toEqual(['OnlySpecial']);
    } finally {
      await app.close();
    }
  });

  it("keeps the container, the global enhancers and the filter factory on an application's ExternalContextCreator", async () => {
    const { Module: Module11 } = common();
    const { NestFactory, ExternalContextCreator: Creator11 } = core();
    class App11 {}
    Module11({})(App11);
    const app = await NestFactory.createApplicationContext(App11, { logger: false });
    try {
      const shared = app.get(Creator11);
      expect(containerOf(shared)).toBeDefined();
      const config = globalEnhancersOf(shared)!;
      for (const getter of GLOBAL_ENHANCER_GETTERS) {
        expect([getter, typeof (config as unknown as Record<string, unknown>)[getter]]).toEqual([getter, 'function']);
      }
      const fork = forkContextCreator(shared)!;
      expect(fork.creator).toBeInstanceOf(Creator11);
      const handler = fork.filters.create({}, () => undefined, '');
      expect(typeof handler.next).toBe('function');
      expect(typeof handler.invokeCustomFilters).toBe('function');
    } finally {
      await app.close();
    }
  });
});
