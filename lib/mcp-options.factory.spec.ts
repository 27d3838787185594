import { rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { McpConfigurationError } from './errors/mcp-configuration.error';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { resolveMcpOptions, serverSettingsOf } from './mcp-options.factory';
import { DEFAULT_SEARCH_DESCRIPTION } from './protocol/search/tool-search';

const BASE: McpModuleOptions = { name: 'inventory', version: '1.0.0' };

/** Adds a readable rendering of each bad value to the test title. */
function labelled(rows: Array<[string, Record<string, unknown>]>): Array<[string, string, Record<string, unknown>]> {
  return rows.map(([option, extra]) => [option, inspect(extra, { depth: 5, breakLength: Infinity }), extra]);
}

function resolveWith(extra: Record<string, unknown>) {
  return resolveMcpOptions({ ...BASE, ...extra });
}

/** An HTML view file, written once for the apps rows. */
const VIEW_FILE = join(tmpdir(), `nest-mcp-options-view-${process.pid}.html`);
writeFileSync(VIEW_FILE, '<!doctype html><title>card</title>');
afterAll(() => rmSync(VIEW_FILE, { force: true }));

/** One view of `apps.views`, valid unless `overrides` says otherwise. */
function view(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { uri: 'ui://notes/card', name: 'Card', file: VIEW_FILE, ...overrides };
}

/** A signing key of the minimum length. */
const SECRET = 'k'.repeat(32);

describe('resolveMcpOptions', () => {
  it('applies every default', () => {
    expect(resolveMcpOptions(BASE)).toEqual({
      serverInfo: { name: 'inventory', version: '1.0.0' },
      instructions: undefined,
      revisions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      pageSize: 0,
      maxUriLength: 8192,
      cacheHints: { ttlMs: 60_000, scope: 'private' },
      discoverCacheHints: { ttlMs: 60_000, scope: 'public' },
      extensions: [],
      callTimeoutMs: 60_000,
      shutdownGraceMs: 10_000,
      defaultLogLevel: 'info',
      clientRequestTimeoutMs: 60_000,
      maxPendingQuestions: 32,
      requestState: { secret: undefined, ttlMs: 300_000 },
      sessions: {
        idleTimeoutMs: 1_800_000,
        maxSessions: 10_000,
        maxPerPrincipal: 100,
        maxSubscriptions: 1_000,
        sweepIntervalMs: 60_000,
      },
      http: {
        maxBodyBytes: 4 * 1024 * 1024,
        maxJsonDepth: 64,
        allowedHosts: undefined,
        allowedOrigins: undefined,
        keepAliveMs: 15_000,
        replayBufferSize: 256,
        replayBufferBytes: 4 * 1024 * 1024,
        replayTotalBytes: 64 * 1024 * 1024,
        retryMs: 1_000,
        simpleCallTimeoutMs: 60_000,
        cors: true,
        maxStreamsPerPrincipal: 32,
        maxStreams: 10_000,
        maxUnreadBytes: 8 * 1024 * 1024,
      },
      stdio: {
        maxFrameBytes: 16 * 1024 * 1024,
        maxWorkers: 8,
        maxQueue: 64,
        maxSubscriptions: 32,
        maxPendingNotifications: 256,
      },
      auth: { kind: 'none' },
      tasks: {
        inlineMs: 100,
        defaultTtlMs: 3_600_000,
        maxTtlMs: 86_400_000,
        pollIntervalMs: 1_000,
        maxLivePerOwner: 100,
        maxKeptPerOwner: 1_000,
        resultTimeoutMs: 300_000,
        sweepIntervalMs: 60_000,
        expiredGraceMs: 60_000,
      },
      apps: { views: [] },
      telemetry: { captureArguments: false, clientAddress: 'socket', traceNotifications: false },
      routes: {
        forwardHeaders: ['authorization'],
        maxResponseBytes: 1_048_576,
        maxInlineBytes: 262_144,
        confirmDestructive: false,
      },
    });
  });

  it('keeps every valid option', () => {
    const icons = [{ src: 'https://example.com/icon.png', sizes: ['32x32'] }];
    const resolved = resolveWith({
      title: 'Inventory',
      description: 'Stock levels',
      websiteUrl: 'https://example.com',
      icons,
      instructions: 'Call reserve before ship.',
      revisions: ['2025-03-26', '2026-07-28', '2025-03-26'],
      pageSize: 50,
      maxUriLength: 100,
      cacheHints: { ttlMs: 0, scope: 'public', discoverTtlMs: 5, discoverScope: 'private' },
      callTimeoutMs: 0,
      shutdownGraceMs: 0,
      defaultLogLevel: 'debug',
      clientRequestTimeoutMs: 0,
      maxPendingQuestions: 1,
      requestState: { secret: SECRET, ttlMs: 1_000 },
      sessions: { idleTimeoutMs: 1_000, maxSessions: 1, maxPerPrincipal: 1, maxSubscriptions: 1, sweepIntervalMs: 100 },
      http: {
        maxBodyBytes: 1024,
        maxJsonDepth: 2,
        allowedHosts: ['example.com'],
        allowedOrigins: ['https://example.com'],
        keepAliveMs: 1_000,
        replayBufferSize: 1,
        replayBufferBytes: 1,
        replayTotalBytes: 1,
        retryMs: 0,
        simpleCallTimeoutMs: 5_000,
        cors: false,
        maxStreamsPerPrincipal: 1,
        maxStreams: 1,
        maxUnreadBytes: 1024,
      },
      stdio: { maxFrameBytes: 1024, maxWorkers: 1, maxQueue: 0, maxSubscriptions: 0, maxPendingNotifications: 0 },
      tasks: {
        inlineMs: 0,
        defaultTtlMs: 2_000,
        maxTtlMs: 5_000,
        pollIntervalMs: 250,
        maxLivePerOwner: 1,
        maxKeptPerOwner: 1,
        resultTimeoutMs: 1,
        sweepIntervalMs: 10,
      },
      telemetry: { captureArguments: true },
      routes: {
        forwardHeaders: ['X-Api-Key'],
        maxResponseBytes: 2_048,
        maxInlineBytes: 1_024,
        confirmDestructive: true,
      },
    });
    expect(resolved).toEqual({
      serverInfo: {
        name: 'inventory',
        version: '1.0.0',
        title: 'Inventory',
        description: 'Stock levels',
        websiteUrl: 'https://example.com',
        icons,
      },
      instructions: 'Call reserve before ship.',
      revisions: ['2026-07-28', '2025-03-26'],
      pageSize: 50,
      maxUriLength: 100,
      cacheHints: { ttlMs: 0, scope: 'public' },
      discoverCacheHints: { ttlMs: 5, scope: 'private' },
      extensions: [],
      callTimeoutMs: 0,
      shutdownGraceMs: 0,
      defaultLogLevel: 'debug',
      clientRequestTimeoutMs: 0,
      maxPendingQuestions: 1,
      requestState: { secret: SECRET, ttlMs: 1_000 },
      sessions: { idleTimeoutMs: 1_000, maxSessions: 1, maxPerPrincipal: 1, maxSubscriptions: 1, sweepIntervalMs: 100 },
      http: {
        maxBodyBytes: 1024,
        maxJsonDepth: 2,
        allowedHosts: ['example.com'],
        allowedOrigins: ['https://example.com'],
        keepAliveMs: 1_000,
        replayBufferSize: 1,
        replayBufferBytes: 1,
        replayTotalBytes: 1,
        retryMs: 0,
        simpleCallTimeoutMs: 5_000,
        cors: false,
        maxStreamsPerPrincipal: 1,
        maxStreams: 1,
        maxUnreadBytes: 1024,
      },
      stdio: { maxFrameBytes: 1024, maxWorkers: 1, maxQueue: 0, maxSubscriptions: 0, maxPendingNotifications: 0 },
      auth: { kind: 'none' },
      tasks: {
        inlineMs: 0,
        defaultTtlMs: 2_000,
        maxTtlMs: 5_000,
        pollIntervalMs: 250,
        maxLivePerOwner: 1,
        maxKeptPerOwner: 1,
        resultTimeoutMs: 1,
        sweepIntervalMs: 10,
        expiredGraceMs: 60_000,
      },
      apps: { views: [] },
      telemetry: { captureArguments: true, clientAddress: 'socket', traceNotifications: false },
      routes: {
        forwardHeaders: ['authorization', 'x-api-key'],
        maxResponseBytes: 2_048,
        maxInlineBytes: 1_024,
        confirmDestructive: true,
      },
    });
  });

  it('bounds simple HTTP calls by callTimeoutMs unless told otherwise', () => {
    expect(resolveWith({ callTimeoutMs: 1_234 }).http.simpleCallTimeoutMs).toBe(1_234);
  });

  it('keeps a replay total that holds one session buffer at least, unless told otherwise', () => {
    expect(resolveWith({ http: { replayBufferBytes: 100 * 1024 * 1024 } }).http.replayTotalBytes).toBe(
      100 * 1024 * 1024,
    );
    expect(resolveWith({ http: { replayBufferBytes: 10, replayTotalBytes: 10 } }).http.replayTotalBytes).toBe(10);
  });

  it('lets a stream hold two request bodies unread at least, unless told otherwise', () => {
    expect(resolveWith({ http: { maxBodyBytes: 16 * 1024 * 1024 } }).http.maxUnreadBytes).toBe(32 * 1024 * 1024);
    expect(resolveWith({ http: { maxBodyBytes: 2_000, maxUnreadBytes: 2_000 } }).http.maxUnreadBytes).toBe(2_000);
  });

  it.each([[undefined], [null], ['inventory'], [42]])('refuses %p as the options object', (options) => {
    expect(() => resolveMcpOptions(options as unknown as McpModuleOptions)).toThrow(McpConfigurationError);
  });

  it.each(
    labelled([
      ['name', { name: undefined }],
      ['name', { name: '' }],
      ['name', { name: '   ' }],
      ['name', { name: 42 }],
      ['version', { version: undefined }],
      ['version', { version: '' }],
      ['version', { version: 1 }],
      ['title', { title: '' }],
      ['title', { title: 7 }],
      ['description', { description: '' }],
      ['websiteUrl', { websiteUrl: 'not a url' }],
      ['websiteUrl', { websiteUrl: '/relative/path' }],
      ['websiteUrl', { websiteUrl: '' }],
      ['icons', { icons: 'icon.png' }],
      ['icons', { icons: [{}] }],
      ['icons', { icons: [{ src: '' }] }],
      ['icons', { icons: [null] }],
      ['icons', { icons: [{ src: 'https://example.com/i.png', sizes: '48x48' }] }],
      ['icons', { icons: [{ src: 'https://example.com/i.png', theme: 'blue' }] }],
      ['instructions', { instructions: '' }],
      ['instructions', { instructions: ['a'] }],
      ['revisions', { revisions: [] }],
      ['revisions', { revisions: '2026-07-28' }],
      ['revisions', { revisions: ['2026-07-28', '2099-01-01'] }],
      ['revisions', { revisions: ['draft'] }],
      ['pageSize', { pageSize: -1 }],
      ['pageSize', { pageSize: 1.5 }],
      ['pageSize', { pageSize: '10' }],
      ['pageSize', { pageSize: Number.NaN }],
      ['maxUriLength', { maxUriLength: 0 }],
      ['maxUriLength', { maxUriLength: 1.5 }],
      ['maxUriLength', { maxUriLength: '8k' }],
      ['nativeSchemaPatterns', { nativeSchemaPatterns: '^(a)\\1$' }],
      ['nativeSchemaPatterns', { nativeSchemaPatterns: [''] }],
      ['callTimeoutMs', { callTimeoutMs: -1 }],
      ['callTimeoutMs', { callTimeoutMs: Infinity }],
      ['shutdownGraceMs', { shutdownGraceMs: -1 }],
      ['shutdownGraceMs', { shutdownGraceMs: 1.5 }],
      ['shutdownGraceMs', { shutdownGraceMs: '10s' }],
      ['defaultLogLevel', { defaultLogLevel: 'verbose' }],
      ['defaultLogLevel', { defaultLogLevel: 'INFO' }],
      ['clientRequestTimeoutMs', { clientRequestTimeoutMs: -1 }],
      ['maxPendingQuestions', { maxPendingQuestions: 0 }],
      ['maxPendingQuestions', { maxPendingQuestions: 2.5 }],
      ['requestState', { requestState: 'secret' }],
      ['requestState.secret', { requestState: { secret: 'too short' } }],
      ['requestState.secret', { requestState: { secret: 42 } }],
      ['requestState.ttlMs', { requestState: { ttlMs: 999 } }],
      ['cacheHints.ttlMs', { cacheHints: { ttlMs: -5 } }],
      ['cacheHints.ttlMs', { cacheHints: { ttlMs: '60s' } }],
      ['cacheHints.scope', { cacheHints: { scope: 'shared' } }],
      ['cacheHints.discoverTtlMs', { cacheHints: { discoverTtlMs: 0.5 } }],
      ['cacheHints.discoverScope', { cacheHints: { discoverScope: 'everyone' } }],
      ['sessions.idleTimeoutMs', { sessions: { idleTimeoutMs: 999 } }],
      ['sessions.maxSessions', { sessions: { maxSessions: 0 } }],
      ['sessions.maxPerPrincipal', { sessions: { maxPerPrincipal: 0 } }],
      ['sessions.maxSubscriptions', { sessions: { maxSubscriptions: 0.5 } }],
      ['sessions.sweepIntervalMs', { sessions: { sweepIntervalMs: 99 } }],
      ['http.maxBodyBytes', { http: { maxBodyBytes: 1023 } }],
      ['http.maxJsonDepth', { http: { maxJsonDepth: 1 } }],
      ['http.maxJsonDepth', { http: { maxJsonDepth: 1_001 } }],
      ['http.allowedHosts', { http: { allowedHosts: 'localhost' } }],
      ['http.allowedHosts', { http: { allowedHosts: [''] } }],
      ['http.allowedOrigins', { http: { allowedOrigins: [42] } }],
      ['http.keepAliveMs', { http: { keepAliveMs: 999 } }],
      ['http.replayBufferSize', { http: { replayBufferSize: 0 } }],
      ['http.replayBufferSize', { http: { replayBufferSize: 100_001 } }],
      ['http.replayBufferBytes', { http: { replayBufferBytes: 0 } }],
      ['http.replayBufferBytes', { http: { replayBufferBytes: 1.5 } }],
      ['http.replayTotalBytes', { http: { replayTotalBytes: 4 * 1024 * 1024 - 1 } }],
      ['http.replayTotalBytes', { http: { replayBufferBytes: 2_000, replayTotalBytes: 1_999 } }],
      ['http.retryMs', { http: { retryMs: -1 } }],
      ['http.retryMs', { http: { retryMs: 1.5 } }],
      ['http.simpleCallTimeoutMs', { http: { simpleCallTimeoutMs: -1 } }],
      ['http.cors', { http: { cors: 'yes' } }],
      ['http.maxStreamsPerPrincipal', { http: { maxStreamsPerPrincipal: 0 } }],
      ['http.maxStreamsPerPrincipal', { http: { maxStreamsPerPrincipal: '32' } }],
      ['http.maxStreams', { http: { maxStreams: 0 } }],
      ['http.maxStreams', { http: { maxStreams: 1.5 } }],
      ['http.maxUnreadBytes', { http: { maxUnreadBytes: 0 } }],
      ['http.maxUnreadBytes', { http: { maxUnreadBytes: 4 * 1024 * 1024 - 1 } }],
      ['http.maxUnreadBytes', { http: { maxBodyBytes: 2_000, maxUnreadBytes: 1_999 } }],
      ['stdio.maxFrameBytes', { stdio: { maxFrameBytes: 1023 } }],
      ['stdio.maxWorkers', { stdio: { maxWorkers: 0 } }],
      ['stdio.maxQueue', { stdio: { maxQueue: -1 } }],
      ['stdio.maxSubscriptions', { stdio: { maxSubscriptions: 1.5 } }],
      ['stdio.maxPendingNotifications', { stdio: { maxPendingNotifications: '256' } }],
      ['stdio', { stdio: [] }],
      ['cacheHints', { cacheHints: 60_000 }],
      ['sessions', { sessions: 'forever' }],
      ['http', { http: true }],
      ['redis', { redis: 'redis://127.0.0.1:6379' }],
      ['redis', { redis: {} }],
      ['redis', { redis: { url: 'redis://127.0.0.1:6379', client: { duplicate: () => undefined } } }],
      ['redis.url', { redis: { url: 'http://127.0.0.1:6379' } }],
      ['redis.url', { redis: { url: 42 } }],
      ['redis.client', { redis: { client: { get: () => undefined } } }],
      ['redis.keyPrefix', { redis: { url: 'redis://h', keyPrefix: '' } }],
      ['redis.keyPrefix', { redis: { url: 'redis://h', keyPrefix: 'p'.repeat(101) } }],
      ['redis.commandTimeoutMs', { redis: { url: 'redis://h', commandTimeoutMs: 10 } }],
      ['apps', { apps: [] }],
      ['apps.views', { apps: { views: {} } }],
      ['apps.views[0]', { apps: { views: ['ui://a'] } }],
      ['apps.views[0].uri', { apps: { views: [view({ uri: 'https://example.com/card' })] } }],
      ['apps.views[0].uri', { apps: { views: [view({ uri: 'ui://' })] } }],
      ['apps.views[0].name', { apps: { views: [view({ name: undefined })] } }],
      ['apps.views[1].file', { apps: { views: [view(), view({ file: join(tmpdir(), 'no-such-view.html') })] } }],
      ['apps.views[0].file', { apps: { views: [view({ file: tmpdir() })] } }],
      [
        'apps.views[0].csp.connectDomains[0]',
        { apps: { views: [view({ csp: { connectDomains: ['https://api.example.com/v1'] } })] } },
      ],
      [
        'apps.views[0].csp.resourceDomains[1]',
        { apps: { views: [view({ csp: { resourceDomains: ['https://*.example.com', 'https://cdn.*.com'] } })] } },
      ],
      ['apps.views[0].csp.scriptDomains', { apps: { views: [view({ csp: { scriptDomains: [] } })] } }],
      ['apps.views[0].permissions.usb', { apps: { views: [view({ permissions: { usb: {} } })] } }],
      ['apps.views[0].permissions.camera', { apps: { views: [view({ permissions: { camera: 'yes' } })] } }],
      ['apps.views[0].prefersBorder', { apps: { views: [view({ prefersBorder: 'yes' })] } }],
      ['toolSearch', { toolSearch: 'on' }],
      ['toolSearch.name', { toolSearch: { name: 'search tools' } }],
      ['toolSearch.name', { toolSearch: { name: '' } }],
      ['toolSearch.description', { toolSearch: { description: 42 } }],
      ['toolSearch.listed', { toolSearch: { listed: 'notes_list' } }],
      ['toolSearch.maxLimit', { toolSearch: { maxLimit: 0 } }],
      ['toolSearch.maxLimit', { toolSearch: { maxLimit: 101 } }],
      ['toolSearch.defaultLimit', { toolSearch: { maxLimit: 5, defaultLimit: 6 } }],
      ['toolSearch.defaultLimit', { toolSearch: { defaultLimit: 1.5 } }],
      ['toolSearch.maxQueryLength', { toolSearch: { maxQueryLength: 0 } }],
      ['toolSearch.maxQueryLength', { toolSearch: { maxQueryLength: 4097 } }],
    ]),
  )('refuses a bad %s (%s), naming the option', (option, _shown, extra) => {
    let thrown: unknown;
    try {
      resolveWith(extra);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpConfigurationError);
    expect((thrown as Error).message).toContain(`"${option}"`);
  });

  it('reads the views of apps.views once, with their settings', () => {
    const csp = { connectDomains: ['https://api.example.com', 'wss://live.example.com:8443'] };
    const resolved = resolveWith({ apps: { views: [view({ csp, permissions: { camera: {} }, listed: false })] } });
    expect(resolved.apps.views).toEqual([
      expect.objectContaining({
        uri: 'ui://notes/card',
        name: 'Card',
        csp,
        permissions: { camera: {} },
        listed: false,
        html: '<!doctype html><title>card</title>',
        option: 'apps.views[0]',
      }),
    ]);
  });

  it('refuses a view file over 5 MiB, naming the option and the size', () => {
    const big = join(tmpdir(), `nest-mcp-options-big-view-${process.pid}.html`);
    writeFileSync(big, '');
    truncateSync(big, 5 * 1024 * 1024 + 1);
    try {
      expect(() => resolveWith({ apps: { views: [view({ file: big })] } })).toThrow(
        /"apps\.views\[0\]\.file".*5242881 bytes/,
      );
    } finally {
      rmSync(big, { force: true });
    }
  });

  it.each([
    ['the minimum session idle timeout', { sessions: { idleTimeoutMs: 1_000 } }],
    ['the minimum body size', { http: { maxBodyBytes: 1024 } }],
    ['the deepest JSON nesting allowed', { http: { maxJsonDepth: 1_000 } }],
    ['a zero page size', { pageSize: 0 }],
    ['a zero ttl', { cacheHints: { ttlMs: 0, discoverTtlMs: 0 } }],
    ['the wildcard host and origin', { http: { allowedHosts: ['*'], allowedOrigins: ['*'] } }],
  ])('accepts %s', (_label, extra) => {
    expect(() => resolveWith(extra)).not.toThrow();
  });

  describe('redis', () => {
    it('is off by default: memory stores', () => {
      expect(resolveWith({}).redis).toBeUndefined();
    });

    it('takes a URL with the default prefix and timeout', () => {
      expect(resolveWith({ redis: { url: 'rediss://user:pw@cache:6380/2' } }).redis).toEqual({
        url: 'rediss://user:pw@cache:6380/2',
        client: undefined,
        keyPrefix: 'mcp:',
        commandTimeoutMs: 5_000,
      });
    });

    it('takes a client of the application as it is, and a prefix and timeout of its own', () => {
      const client = { duplicate: () => client };
      const resolved = resolveWith({ redis: { client, keyPrefix: 'inventory:', commandTimeoutMs: 250 } }).redis;
      expect(resolved?.client).toBe(client);
      expect(resolved).toMatchObject({ url: undefined, keyPrefix: 'inventory:', commandTimeoutMs: 250 });
    });
  });

  describe('toolSearch', () => {
    it('is off unless set, and off with false', () => {
      expect(resolveWith({}).toolSearch).toBeUndefined();
      expect(resolveWith({ toolSearch: false }).toolSearch).toBeUndefined();
    });

    it('takes its defaults with true', () => {
      expect(resolveWith({ toolSearch: true }).toolSearch).toEqual({
        name: 'search_tools',
        description: DEFAULT_SEARCH_DESCRIPTION,
        listed: new Set(),
        defaultLimit: 10,
        maxLimit: 25,
        maxQueryLength: 256,
      });
    });

    it('keeps what is given, and a default limit no higher than maxLimit', () => {
      expect(
        resolveWith({
          toolSearch: { name: 'find_tools', description: 'Finds', listed: ['a', 'b'], maxLimit: 5, maxQueryLength: 64 },
        }).toolSearch,
      ).toEqual({
        name: 'find_tools',
        description: 'Finds',
        listed: new Set(['a', 'b']),
        defaultLimit: 5,
        maxLimit: 5,
        maxQueryLength: 64,
      });
    });

    it('stays out of the server settings', () => {
      expect(serverSettingsOf(resolveWith({ toolSearch: true }))).not.toHaveProperty('toolSearch');
    });
  });

  describe('nativeSchemaPatterns', () => {
    it('is absent unless set, and kept as given for the schema compiler', () => {
      expect(resolveWith({}).nativeSchemaPatterns).toBeUndefined();
      expect(resolveWith({ nativeSchemaPatterns: ['^(a)\\1$'] }).nativeSchemaPatterns).toEqual(['^(a)\\1$']);
    });
  });

  describe('validatorOptions', () => {
    it('is absent unless set', () => {
      expect(resolveWith({}).validatorOptions).toBeUndefined();
    });

    it('is kept as given, for the schema compiler', () => {
      const validatorOptions = { whitelist: true, forbidNonWhitelisted: true, groups: ['create'] };
      expect(resolveWith({ validatorOptions }).validatorOptions).toEqual(validatorOptions);
    });

    it.each([[null], [[]], ['whitelist'], [true]])('refuses %p, naming the option', (validatorOptions) => {
      expect(() => resolveWith({ validatorOptions })).toThrow(McpConfigurationError);
      expect(() => resolveWith({ validatorOptions })).toThrow(
        'Invalid McpModule option "validatorOptions": must be an object',
      );
    });
  });

  describe('stores', () => {
    const bus = { publish: async () => undefined, subscribe: () => () => undefined };

    it('is absent unless set: every store built in', () => {
      expect(resolveWith({}).stores).toBeUndefined();
    });

    it('keeps the stores given as they are', () => {
      expect(resolveWith({ stores: { bus } }).stores?.bus).toBe(bus);
    });

    it.each([
      [{ stores: [] }, 'Invalid McpModule option "stores": must be an object'],
      [
        { stores: { cache: bus } },
        'Invalid McpModule option "stores": unknown store "cache"; known: sessions, replay, tasks, bus',
      ],
      [
        { stores: { bus: 'redis' } },
        'Invalid McpModule option "stores.bus": must implement publish, subscribe (missing publish, subscribe)',
      ],
      [
        { stores: { replay: { append: () => undefined } } },
        'Invalid McpModule option "stores.replay": must implement append, after, clear (missing after, clear)',
      ],
      [
        { stores: { bus }, redis: { url: 'redis://cache:6379' } },
        'Invalid McpModule option "stores": cannot be combined with redis',
      ],
    ])('refuses %p, naming the option', (extra, message) => {
      expect(() => resolveWith(extra)).toThrow(McpConfigurationError);
      expect(() => resolveWith(extra)).toThrow(message);
    });
  });
});
