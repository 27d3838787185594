/**
 * DNS rebinding off loopback, over real sockets on Express and Fastify: a server that sees its
 * connections on a non-loopback local address (a container published on 127.0.0.1, a server on
 * `0.0.0.0` reached on a LAN) checks Host too. Without `http.allowedHosts` it admits IP literals
 * and loopback names only, so that a page on a rebinding name (whose Origin always equals its
 * Host) is refused, with the option to set named in the answer and in the warning; the console
 * takes the same check. With `http.allowedHosts`, the list decides, as before.
 *
 * The tests listen on 127.0.0.1 only: `seeConnectionsOn` makes the server read a non-loopback
 * `socket.localAddress` on each real connection, which is all the checks read of the address.
 */
import type { INestApplication } from '@nestjs/common';
import { AppModule } from '../sample/app.module';
import { type HttpApp, type HttpPlatform, seeConnectionsOn, startHttpApp } from './fixtures/http-app';
import { ACCEPT_BOTH, modernHeaders, modernRequest, rawHttp } from './fixtures/raw-rpc';
import { RecordingLogger } from './fixtures/recording-logger';
import { type SessionsApp, startSessionsApp } from './fixtures/sessions-fixture';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
/** The local address the server sees (a container's, say). */
const LOCAL_ADDRESS = '10.0.0.5';
const HOST_REFUSED = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Forbidden: Host not allowed (McpModule option http.allowedHosts)' },
};

/** POSTs `tools/list` (2026-07-28) to `path` with `host` (and `origin`) as the Host (and Origin). */
function listTools(server: SessionsApp, host: string, origin?: string, path = 'mcp') {
  return rawHttp(new URL(`/${path}`, server.baseUrl), {
    headers: {
      ...modernHeaders('tools/list'),
      host,
      ...(origin === undefined ? {} : { origin }),
      accept: ACCEPT_BOTH,
      'content-type': 'application/json',
    },
    body: JSON.stringify(modernRequest('tools/list')),
  });
}

function startOffLoopback(
  platform: HttpPlatform,
  logger: RecordingLogger,
  http: Record<string, unknown> = {},
): Promise<SessionsApp> {
  return startSessionsApp(
    { console: true, simpleHttpPath: 'rpc', http },
    {
      platform,
      configure: (app: INestApplication) => {
        app.useLogger(logger);
        seeConnectionsOn(app, LOCAL_ADDRESS);
      },
    },
  );
}

describe.each(PLATFORMS)('Host off loopback, without http.allowedHosts (%s)', (platform) => {
  let server: SessionsApp;
  let logger: RecordingLogger;
  let port: string;

  beforeAll(async () => {
    logger = new RecordingLogger();
    server = await startOffLoopback(platform, logger);
    port = new URL(server.baseUrl).port;
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses a page on a rebinding name, whose Origin is its Host, with 403 naming http.allowedHosts', async () => {
    const host = `rebind.attacker.example:${port}`;
    for (const path of ['mcp', 'rpc']) {
      const response = await listTools(server, host, `http://${host}`, path);
      expect({ path, status: response.status, body: JSON.parse(response.text) }).toEqual({
        path,
        status: 403,
        body: HOST_REFUSED,
      });
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    }
    await expect(server.sessions.count()).resolves.toBe(0);
    expect(logger.matching('warn', /with 403/)).toEqual([
      `Refused POST /mcp from 127.0.0.1 with 403: its Host "${host}" is not allowed (list it in the McpModule option http.allowedHosts)`,
    ]);
  });

  it.each([
    ['a DNS name, without a port', 'notes.example'],
    ['a name under .localhost', 'app.localhost'],
    ['a name that only starts with localhost', 'localhost.attacker.example'],
    ['a name that ends like an IP address', 'attacker.example.10.0.0.5'],
    ['a name that starts like an IP address', '10.0.0.5.nip.io'],
    ['an IPv6 address without brackets', '::1'],
  ])('refuses %s (%s)', async (_label, host) => {
    const response = await listTools(server, host);
    expect({ status: response.status, body: JSON.parse(response.text) }).toEqual({ status: 403, body: HOST_REFUSED });
  });

  it('admits IP literals (v4, bracketed v6, with or without a port) and loopback names', async () => {
    const hosts = [
      `${LOCAL_ADDRESS}:${port}`,
      LOCAL_ADDRESS,
      `192.168.1.20:${port}`,
      `[fd00::5]:${port}`,
      '[2001:db8::1]',
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
    ];
    for (const host of hosts) {
      const response = await listTools(server, host);
      expect({ host, status: response.status }).toEqual({ host, status: 200 });
    }
  });

  it('admits a page served from the IP address itself (same origin), and refuses another origin', async () => {
    const host = `${LOCAL_ADDRESS}:${port}`;
    const same = await listTools(server, host, `http://${host}`);
    expect(same.status).toBe(200);
    expect(same.headers['access-control-allow-origin']).toBe(`http://${host}`);
    const other = await listTools(server, host, 'http://rebind.attacker.example');
    expect(other.status).toBe(403);
    expect(JSON.parse(other.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Forbidden: Origin not allowed (McpModule option http.allowedOrigins)' },
    });
  });

  it('refuses the console page to a rebinding name, and serves it to an IP literal', async () => {
    const page = (host: string) =>
      rawHttp(new URL('/mcp/console', server.baseUrl), { method: 'GET', headers: { host } });
    const refused = await page(`rebind.attacker.example:${port}`);
    expect({ status: refused.status, body: JSON.parse(refused.text) }).toEqual({ status: 403, body: HOST_REFUSED });
    const served = await page(`${LOCAL_ADDRESS}:${port}`);
    expect(served.status).toBe(200);
    expect(served.text).toContain('<title>MCP console</title>');
  });
});

describe.each(PLATFORMS)('Host off loopback, with http.allowedHosts (%s)', (platform) => {
  let server: SessionsApp;
  let port: string;

  beforeAll(async () => {
    server = await startOffLoopback(platform, new RecordingLogger(), { allowedHosts: ['notes.example'] });
    port = new URL(server.baseUrl).port;
  });

  afterAll(async () => {
    await server?.close();
  });

  it('admits a listed name, with any port, and its own origin', async () => {
    for (const host of ['notes.example', `notes.example:${port}`]) {
      const response = await listTools(server, host, `https://${host}`);
      expect({ host, status: response.status }).toEqual({ host, status: 200 });
    }
  });

  it('refuses what the list does not name, IP literals and loopback names included', async () => {
    for (const host of ['rebind.attacker.example', `${LOCAL_ADDRESS}:${port}`, `localhost:${port}`]) {
      const response = await listTools(server, host);
      expect({ host, status: response.status, body: JSON.parse(response.text) }).toEqual({
        host,
        status: 403,
        body: HOST_REFUSED,
      });
    }
  });
});

describe('the sample in a container (HOST=0.0.0.0, published on 127.0.0.1)', () => {
  const saved = { auth: process.env.MCP_AUTH, hosts: process.env.MCP_ALLOWED_HOSTS };
  const apps: HttpApp[] = [];

  async function startSample(allowedHosts?: string): Promise<HttpApp> {
    delete process.env.MCP_AUTH;
    if (allowedHosts === undefined) {
      delete process.env.MCP_ALLOWED_HOSTS;
    } else {
      process.env.MCP_ALLOWED_HOSTS = allowedHosts;
    }
    const app = await startHttpApp(AppModule, { configure: (nest) => seeConnectionsOn(nest, '172.17.0.2') });
    apps.push(app);
    return app;
  }

  const ping = (app: HttpApp, host: string) =>
    rawHttp(app.url, {
      headers: { ...modernHeaders('tools/list'), host, accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify(modernRequest('tools/list')),
    });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    for (const [name, value] of [
      ['MCP_AUTH', saved.auth],
      ['MCP_ALLOWED_HOSTS', saved.hosts],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('serves localhost and IP addresses, and refuses a name until MCP_ALLOWED_HOSTS lists it', async () => {
    const plain = await startSample();
    const port = new URL(plain.baseUrl).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `192.168.1.20:${port}`]) {
      expect({ host, status: (await ping(plain, host)).status }).toEqual({ host, status: 200 });
    }
    const byName = await ping(plain, `notes.example:${port}`);
    expect({ status: byName.status, body: JSON.parse(byName.text) }).toEqual({ status: 403, body: HOST_REFUSED });

    const listed = await startSample('notes.example,localhost');
    const listedPort = new URL(listed.baseUrl).port;
    expect((await ping(listed, `notes.example:${listedPort}`)).status).toBe(200);
    expect((await ping(listed, `localhost:${listedPort}`)).status).toBe(200);
  });
});
