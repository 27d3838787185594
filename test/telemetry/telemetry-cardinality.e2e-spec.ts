/**
 * A client cannot make metric series or span names at will. Methods the server does not know
 * and revisions it does not serve are recorded as `_OTHER` in `mcp.method.name`,
 * `mcp.protocol.version` and the span name; what the client sent stays on the span only
 * (`nest_mcp.method.name_original`, `nest_mcp.protocol.version_original`), as HTTP keeps
 * `http.request.method_original`. Read from the real SDK's in-memory readers, over Streamable
 * HTTP in both eras and the simple POST endpoint (`/rpc`), on Express and Fastify.
 */
import type { HttpPlatform } from '../fixtures/http-app';
import {
  legacyRequest,
  modernHeaders,
  modernRequest,
  MODERN_REVISION,
  openLegacySession,
  post,
} from '../fixtures/raw-rpc';
import { TestTelemetry } from '../fixtures/telemetry-sdk';
import { ROUTINGS, startTransportsApp, type TransportsApp } from '../fixtures/transports-fixture';

const DURATION = 'mcp.server.operation.duration';
/** Nine made-up methods, and nine made-up revisions. */
const GUESSES = Array.from({ length: 9 }, (_, index) => index);
const madeUpMethod = (index: number) => `x/guess-${index}`;
const madeUpVersion = (index: number) => `2099-01-0${index + 1}`;

/** The distinct attribute sets of the duration histogram's points. */
async function series(telemetry: TestTelemetry): Promise<Set<string>> {
  const points = await telemetry.points(DURATION);
  return new Set(points.map((point) => JSON.stringify(Object.entries(point.attributes).sort())));
}

describe.each<HttpPlatform>(['express', 'fastify'])('metric and span cardinality (%s)', (platform) => {
  let telemetry: TestTelemetry;
  let server: TransportsApp;

  beforeEach(async () => {
    telemetry = new TestTelemetry();
    server = await startTransportsApp({ telemetry: telemetry.options, simpleHttpPath: 'rpc' }, platform, ROUTINGS[0]);
  });

  afterEach(async () => {
    await server?.close();
    await telemetry.shutdown();
  });

  /** One of each made-up method: legacy in a session, modern, and on /rpc; then each made-up revision. */
  async function flood(round: number): Promise<void> {
    const session = await openLegacySession(server.url);
    const method = madeUpMethod(round);
    expect((await post(server.url, legacyRequest(method, {}, 2), session.headers)).json.error.code).toBe(-32601);
    const modern = await post(server.url, modernRequest(method), modernHeaders(method));
    expect(modern.json.error.code).toBe(-32601);
    const rpc = await post(server.route('rpc'), modernRequest(method), modernHeaders(method));
    expect(rpc.json.error.code).toBe(-32601);
    // A revision no server serves, in the header and the envelope, and in initialize.
    const version = madeUpVersion(round);
    await post(server.url, modernRequest('tools/list', {}, 3, { 'io.modelcontextprotocol/protocolVersion': version }), {
      ...modernHeaders('tools/list'),
      'mcp-protocol-version': version,
    });
    await post(
      server.url,
      legacyRequest('initialize', {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: 'cardinality', version: '0' },
      }),
    );
  }

  it('a flood of made-up methods and revisions adds no series after the first', async () => {
    await flood(0);
    const first = await series(telemetry);
    for (const round of GUESSES.slice(1)) {
      await flood(round);
    }
    expect([...(await series(telemetry))].sort()).toEqual([...first].sort());
    // Every value recorded is a method the server knows, or _OTHER; a revision it serves, or _OTHER.
    for (const point of await telemetry.points(DURATION)) {
      expect(String(point.attributes['mcp.method.name'])).not.toMatch(/^x\//);
      expect(String(point.attributes['mcp.protocol.version'] ?? '')).not.toMatch(/^2099/);
    }
  });

  it('names the spans _OTHER and keeps what the client sent on the span only', async () => {
    await flood(0);
    const spans = telemetry.finished();
    expect(spans.some((span) => span.name.startsWith('x/'))).toBe(false);
    const others = spans.filter((span) => span.name === '_OTHER');
    // Legacy, modern and /rpc.
    expect(others.length).toBe(3);
    for (const span of others) {
      expect(span.attributes).toMatchObject({
        'mcp.method.name': '_OTHER',
        'nest_mcp.method.name_original': madeUpMethod(0),
      });
    }
    const guessed = spans.filter((span) => span.attributes['nest_mcp.protocol.version_original'] === madeUpVersion(0));
    // The modern request's revision is _OTHER; initialize's is the revision the server answered.
    expect(guessed.map((span) => [span.name, span.attributes['mcp.protocol.version']]).sort()).toEqual([
      ['initialize', '2025-11-25'],
      ['tools/list', '_OTHER'],
    ]);
    // What the server serves is named as before.
    expect(spans.some((span) => span.attributes['mcp.protocol.version'] === MODERN_REVISION)).toBe(true);
  });
});
