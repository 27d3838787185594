/**
 * `telemetry.clientAddress`, with the real SDK (in-memory exporters): `'socket'` (the default)
 * records the TCP peer whatever `X-Forwarded-For` says; `'platform'` records the address the
 * platform computes with its trusted-proxy setting (Express `trust proxy`, Fastify
 * `trustProxy`), without the socket's port for a forwarded address, and the socket's peer when
 * the platform trusts no proxy.
 */
import type { DynamicModule, INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { McpTelemetryOptions } from 'nest-mcp';
import type { HttpPlatform } from '../fixtures/http-app';
import { modernHeaders, modernRequest, post } from '../fixtures/raw-rpc';
import { TelemetryFixtureModule } from '../fixtures/telemetry-app';
import { TestTelemetry } from '../fixtures/telemetry-sdk';

/** An address of the documentation range (RFC 5737): what a proxy says the client was. */
const FORWARDED = '203.0.113.7';

/** The fixture app on `platform`, trusting the loopback proxy or not, listening on 127.0.0.1. */
async function startApp(
  platform: HttpPlatform,
  telemetry: McpTelemetryOptions,
  trustProxy: boolean,
): Promise<{ app: INestApplication; url: URL }> {
  const module: DynamicModule = TelemetryFixtureModule.forRoot({ telemetry });
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  let app: INestApplication;
  if (platform === 'fastify') {
    app = moduleRef.createNestApplication(new FastifyAdapter({ trustProxy }), { logger: false });
  } else {
    app = moduleRef.createNestApplication<NestExpressApplication>({ logger: false });
    if (trustProxy) {
      (app as NestExpressApplication).set('trust proxy', 'loopback');
    }
  }
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}

/** The `tools/call echo` span of a modern call sent with `X-Forwarded-For`. */
async function callFrom(url: URL, telemetry: TestTelemetry): Promise<ReadableSpan> {
  telemetry.reset();
  const response = await post(url, modernRequest('tools/call', { name: 'echo', arguments: { text: 'x' } }), {
    ...modernHeaders('tools/call', 'echo'),
    'x-forwarded-for': FORWARDED,
  });
  expect(response.json.result.content).toEqual([{ type: 'text', text: 'echo: x' }]);
  const [span] = await telemetry.waitFor('tools/call echo');
  return span;
}

describe.each<HttpPlatform>(['express', 'fastify'])('telemetry.clientAddress (%s)', (platform) => {
  const telemetry = new TestTelemetry();
  const apps: INestApplication[] = [];

  async function spanWith(options: Partial<McpTelemetryOptions>, trustProxy: boolean): Promise<ReadableSpan> {
    const { app, url } = await startApp(platform, { ...telemetry.options, ...options }, trustProxy);
    apps.push(app);
    return callFrom(url, telemetry);
  }

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await telemetry.shutdown();
  });

  it("'platform' behind a trusted proxy: the forwarded address, without the proxy's port", async () => {
    const span = await spanWith({ clientAddress: 'platform' }, true);
    expect(span.attributes['client.address']).toBe(FORWARDED);
    expect(span.attributes['client.port']).toBeUndefined();
  });

  it("'socket' (the default), even behind a trusted proxy: the socket's peer and port", async () => {
    const span = await spanWith({}, true);
    expect(span.attributes['client.address']).toBe('127.0.0.1');
    expect(span.attributes['client.port']).toEqual(expect.any(Number));
  });

  it("'platform' with no trusted proxy: the socket's peer and port, the header ignored", async () => {
    const span = await spanWith({ clientAddress: 'platform' }, false);
    expect(span.attributes['client.address']).toBe('127.0.0.1');
    expect(span.attributes['client.port']).toEqual(expect.any(Number));
  });
});
