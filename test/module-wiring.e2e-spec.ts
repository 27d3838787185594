/**
 * McpModule wiring, in the spirit of terminus's module spec: every forRoot / forRootAsync
 * style resolves the options AND mounts the endpoint (checked over HTTP with the MCP SDK
 * client), the `path` and `isGlobal` extras, and option validation at startup.
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { MCP_MODULE_OPTIONS, McpConfigurationError, McpModule, McpRegistry, type McpModuleOptions } from '../lib';
import {
  CONFIGURATION,
  LabelModule,
  McpOptionsFromConfig,
  OPTIONS,
  PingFeatureModule,
  PingTools,
  RegistryFeatureModule,
  RegistryUser,
  SERVER_LABEL,
  SharedMcpOptions,
  SharedOptionsModule,
} from './fixtures/pipeline-module-wiring';
import { rawPost, startApp, startupError, type RunningApp } from './fixtures/pipeline-app';
import { delay } from './support/waiting';

const configModule = () => ConfigModule.forRoot({ ignoreEnvFile: true, load: [CONFIGURATION] });

interface Variant {
  title: string;
  module: () => DynamicModule;
  /** What MCP_MODULE_OPTIONS must hold. */
  options: McpModuleOptions;
  /** The endpoint path; `/mcp` unless told. */
  path?: string;
  instructions?: string;
}

const variants: Variant[] = [
  { title: 'forRoot', module: () => McpModule.forRoot(OPTIONS), options: OPTIONS },
  {
    title: 'forRoot with a custom path',
    module: () => McpModule.forRoot({ ...OPTIONS, path: 'assistant/mcp' }),
    options: OPTIONS,
    path: '/assistant/mcp',
  },
  {
    title: 'forRootAsync + useFactory (sync)',
    module: () => McpModule.forRootAsync({ useFactory: () => ({ ...OPTIONS, name: 'sync-factory' }) }),
    options: { ...OPTIONS, name: 'sync-factory' },
  },
  {
    title: 'forRootAsync + useFactory (async)',
    module: () =>
      McpModule.forRootAsync({
        useFactory: async () => {
          await delay(10);
          return { ...OPTIONS, name: 'async-factory' };
        },
      }),
    options: { ...OPTIONS, name: 'async-factory' },
  },
  {
    title: 'forRootAsync + useFactory + inject + imports (ConfigModule)',
    module: () =>
      McpModule.forRootAsync({
        imports: [configModule()],
        inject: [ConfigService],
        useFactory: (config: ConfigService) => ({
          name: config.getOrThrow<string>('MCP_NAME'),
          version: config.getOrThrow<string>('MCP_VERSION'),
          pageSize: Number(config.getOrThrow<string>('MCP_PAGE_SIZE')),
        }),
      }),
    options: { name: 'configured-server', version: '3.1.4', pageSize: 1 },
  },
  {
    title: 'forRootAsync + useFactory + inject + imports (an application module)',
    module: () =>
      McpModule.forRootAsync({
        imports: [LabelModule],
        inject: [SERVER_LABEL],
        useFactory: (label: string) => ({ name: label, version: '1.2.3' }),
      }),
    options: { name: 'labelled-server', version: '1.2.3' },
  },
  {
    title: 'forRootAsync + useClass',
    module: () => McpModule.forRootAsync({ imports: [configModule()], useClass: McpOptionsFromConfig }),
    options: { name: 'configured-server', version: '3.1.4', instructions: 'built by useClass' },
    instructions: 'built by useClass',
  },
  {
    title: 'forRootAsync + useExisting',
    module: () => McpModule.forRootAsync({ imports: [SharedOptionsModule], useExisting: SharedMcpOptions }),
    options: { name: 'shared-options', version: '9.9.9', instructions: 'built by useExisting' },
    instructions: 'built by useExisting',
  },
  {
    title: 'forRootAsync with a custom path',
    module: () => McpModule.forRootAsync({ path: 'rpc', useFactory: () => OPTIONS }),
    options: OPTIONS,
    path: '/rpc',
  },
];

describe.each(variants)('McpModule.$title', (variant) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp({ imports: [variant.module()], providers: [PingTools] });
  });

  afterAll(async () => {
    await running?.close();
  });

  it('resolves the options', () => {
    expect(running.app.get(MCP_MODULE_OPTIONS)).toEqual(variant.options);
  });

  it('mounts the endpoint: initialize reports the configured server and tools/list works', async () => {
    const client = await running.connect({ path: variant.path ?? '/mcp' });
    expect(client.getServerVersion()).toMatchObject({ name: variant.options.name, version: variant.options.version });
    if (variant.instructions !== undefined) {
      expect(client.getInstructions()).toBe(variant.instructions);
    }
    const page = await client.listTools();
    if (variant.options.pageSize === 1) {
      // The configured page size is in force.
      expect(page.tools.map((tool) => tool.name)).toEqual(['pang']);
      expect(page.nextCursor).toEqual(expect.any(String));
      const next = await client.listTools({ cursor: page.nextCursor });
      expect(next.tools.map((tool) => tool.name)).toEqual(['ping']);
    } else {
      expect(page.tools.map((tool) => tool.name)).toEqual(['pang', 'ping']);
    }
  });

  if (variant.path !== undefined) {
    it('does not serve the default path', async () => {
      const reply = await rawPost(running.url('/mcp'), { id: 1, method: 'ping' });
      expect(reply.status).toBe(404);
    });
  }
});

describe('forRootAsync + useExisting', () => {
  it('uses the existing instance of the imported module (no second instance)', async () => {
    const running = await startApp({
      imports: [
        SharedOptionsModule,
        McpModule.forRootAsync({ imports: [SharedOptionsModule], useExisting: SharedMcpOptions }),
      ],
      providers: [PingTools],
    });
    try {
      const shared = running.app.get(SharedMcpOptions);
      expect(shared.created).toHaveLength(1);
    } finally {
      await running.close();
    }
  });
});

describe('the isGlobal extra', () => {
  it('by default the module is global: a feature module injects McpRegistry without importing it', async () => {
    const running = await startApp({ imports: [McpModule.forRoot(OPTIONS), RegistryFeatureModule] });
    try {
      expect(running.app.get(RegistryUser).registry).toBe(running.app.get(McpRegistry));
    } finally {
      await running.close();
    }
  });

  it('isGlobal: false keeps McpRegistry out of modules that do not import McpModule', async () => {
    const error = await startupError({
      imports: [McpModule.forRoot({ ...OPTIONS, isGlobal: false }), RegistryFeatureModule],
    });
    expect(error.message).toContain('RegistryUser');
    expect(error.message).toContain('McpRegistry');
  });

  it('isGlobal: false still serves the tools of every module, and is not part of the options', async () => {
    const running = await startApp({
      imports: [McpModule.forRootAsync({ isGlobal: false, useFactory: () => OPTIONS }), PingFeatureModule],
    });
    try {
      expect(running.app.get(MCP_MODULE_OPTIONS)).toEqual(OPTIONS);
      const client = await running.connect();
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['pang', 'ping']);
    } finally {
      await running.close();
    }
  });
});

describe('bad options stop the application at startup, naming the option', () => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['a missing name', { version: '1.0.0' }, ['Invalid McpModule option "name"', 'required']],
    ['a blank name', { name: '  ', version: '1.0.0' }, ['Invalid McpModule option "name"']],
    ['a missing version', { name: 'x' }, ['Invalid McpModule option "version"']],
    ['a negative pageSize', { ...OPTIONS, pageSize: -1 }, ['Invalid McpModule option "pageSize"', '(got -1)']],
    ['a fractional pageSize', { ...OPTIONS, pageSize: 2.5 }, ['Invalid McpModule option "pageSize"']],
    [
      'an unknown revision',
      { ...OPTIONS, revisions: ['2025-06-18', '2099-01-01'] },
      ['Invalid McpModule option "revisions"', '2099-01-01'],
    ],
    ['no revision at all', { ...OPTIONS, revisions: [] }, ['Invalid McpModule option "revisions"']],
    ['a negative callTimeoutMs', { ...OPTIONS, callTimeoutMs: -5 }, ['Invalid McpModule option "callTimeoutMs"']],
    ['an unknown cache scope', { ...OPTIONS, cacheHints: { scope: 'shared' } }, ['"cacheHints.scope"', '"shared"']],
    ['a tiny session timeout', { ...OPTIONS, sessions: { idleTimeoutMs: 10 } }, ['"sessions.idleTimeoutMs"']],
    ['a relative websiteUrl', { ...OPTIONS, websiteUrl: '/about' }, ['"websiteUrl"', 'absolute URL']],
    ['an unknown log level', { ...OPTIONS, defaultLogLevel: 'verbose' }, ['"defaultLogLevel"']],
  ];

  it.each(cases)('forRoot with %s', async (_title, options, expected) => {
    const error = await startupError({ imports: [McpModule.forRoot(options as unknown as McpModuleOptions)] });
    expect(error).toBeInstanceOf(McpConfigurationError);
    for (const text of expected) {
      expect(error.message).toContain(text);
    }
  });

  it.each(cases)('forRootAsync (factory) with %s', async (_title, options, expected) => {
    const error = await startupError({
      imports: [McpModule.forRootAsync({ useFactory: async () => options as unknown as McpModuleOptions })],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    for (const text of expected) {
      expect(error.message).toContain(text);
    }
  });

  it('a factory that returns nothing', async () => {
    const error = await startupError({
      imports: [McpModule.forRootAsync({ useFactory: () => undefined as unknown as McpModuleOptions })],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('McpModule needs options');
  });
});

describe('several McpModule imports that cannot both be served', () => {
  @Module({ imports: [McpModule.forRoot({ name: 'public', version: '1.0.0' })] })
  class PublicMcpModule {}

  @Module({
    imports: [McpModule.forRootAsync({ name: 'admin', useFactory: () => ({ name: 'admin', version: '1.0.0' }) })],
  })
  class AdminMcpModule {}

  it('two servers on one path stop startup, naming both calls', async () => {
    const error = await startupError({ imports: [PublicMcpModule, AdminMcpModule] });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('Two MCP servers use the path "mcp"');
    expect(error.message).toMatch(/server "public" \(.*module-wiring\.e2e-spec\.ts:\d+:\d+\)/);
    expect(error.message).toMatch(/server "admin" \(.*module-wiring\.e2e-spec\.ts:\d+:\d+\)/);
  });

  it('two servers of one name stop startup', async () => {
    const error = await startupError({
      imports: [
        McpModule.forRoot({ name: 'a', version: '1.0.0' }),
        McpModule.forRoot({ name: 'a', version: '2.0.0', path: 'other' }),
      ],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toMatch(/Two MCP servers are named "a"/);
  });

  it('a simple POST path of one server on the Streamable HTTP path of another stops startup', async () => {
    const error = await startupError({
      imports: [
        McpModule.forRoot({ name: 'a', version: '1.0.0', path: 'a', simpleHttpPath: 'rpc' }),
        McpModule.forRoot({ name: 'b', version: '1.0.0', path: '/rpc/' }),
      ],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('Two MCP servers use the path "/rpc/"');
  });
});
