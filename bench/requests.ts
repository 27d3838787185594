/**
 * The requests the bench sends and how their answers are checked, shared by the server/floor
 * scenarios (main.ts) and the scale-out scenarios (scale.ts).
 */
import { type Measurement, probe, type Probe, type RequestSpec } from './load';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
export const ECHO_TEXT = 'hello from the nest-mcp bench';
export const TOOL_COUNT = 100;

export type BenchEra = 'modern' | 'legacy';
export type Method = 'tools/call' | 'tools/list';

export const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function modernMeta(): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** The request of a scenario; `id` is fixed (see README: the server does not require unique ids). */
export function requestOf(method: Method, era: BenchEra, sessionId: string): RequestSpec {
  const params: Record<string, unknown> =
    method === 'tools/call' ? { name: 'echo', arguments: { text: ECHO_TEXT } } : {};
  const headers: Record<string, string> = { ...BASE_HEADERS };
  if (era === 'modern') {
    params._meta = modernMeta();
    headers['mcp-protocol-version'] = MODERN;
    headers['mcp-method'] = method;
    if (method === 'tools/call') {
      headers['mcp-name'] = 'echo';
    }
  } else {
    headers['mcp-protocol-version'] = LEGACY;
    headers['mcp-session-id'] = sessionId;
  }
  const body = { jsonrpc: '2.0', id: 1, method, ...(Object.keys(params).length > 0 ? { params } : {}) };
  return { headers, body: JSON.stringify(body) };
}

/** Opens a legacy session at `url`: initialize, then initialized. Returns its id. */
export async function openSession(url: string): Promise<string> {
  const init = await probe(url, {
    headers: BASE_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'nest-mcp-bench', version: '1.0.0' } },
    }),
  });
  const sessionId = init.headers['mcp-session-id'];
  let parsed: { result?: { protocolVersion?: string } } = {};
  try {
    parsed = JSON.parse(init.body) as typeof parsed;
  } catch {
    // Reported below with the body.
  }
  if (init.status !== 200 || sessionId === undefined || parsed.result?.protocolVersion !== LEGACY) {
    throw new Error(`initialize failed: ${init.status} ${init.body.slice(0, 300)}`);
  }
  const initialized = await probe(url, {
    headers: { ...BASE_HEADERS, 'mcp-protocol-version': LEGACY, 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  if (initialized.status !== 202) {
    throw new Error(`notifications/initialized failed: ${initialized.status} ${initialized.body.slice(0, 300)}`);
  }
  return sessionId;
}

/**
 * Why a sample response is not the success we mean to measure, or undefined when it is; a
 * tools/list answer must be one page of `tools` tools.
 */
export function problemWith(method: Method, response: Probe, tools = TOOL_COUNT): string | undefined {
  if (response.status !== 200) {
    return `HTTP ${response.status}: ${response.body.slice(0, 300)}`;
  }
  let parsed: { error?: unknown; result?: Record<string, any> };
  try {
    parsed = JSON.parse(response.body) as typeof parsed;
  } catch {
    return `not JSON (${response.headers['content-type']}): ${response.body.slice(0, 300)}`;
  }
  if (parsed.error !== undefined || parsed.result === undefined) {
    return `JSON-RPC error: ${response.body.slice(0, 300)}`;
  }
  if (method === 'tools/call') {
    if (parsed.result.isError === true || parsed.result.content?.[0]?.text !== ECHO_TEXT) {
      return `unexpected tool result: ${response.body.slice(0, 300)}`;
    }
  } else if (!Array.isArray(parsed.result.tools) || parsed.result.tools.length !== tools) {
    return `expected ${tools} tools, got ${parsed.result.tools?.length}`;
  } else if (parsed.result.nextCursor !== undefined) {
    return 'tools/list is paginated; the bench expects one page';
  }
  return undefined;
}

/** Runs of a target failed if any response was not a 2xx with the expected body. */
export function runProblems(label: string, m: Measurement): string[] {
  const problems: string[] = [];
  if (m.non2xx > 0) problems.push(`${label}: ${m.non2xx} non-2xx responses`);
  if (m.mismatches > 0) problems.push(`${label}: ${m.mismatches} responses with an unexpected body`);
  if (m.errors > 0) problems.push(`${label}: ${m.errors} connection errors (${m.timeouts} timeouts)`);
  if (m.requests === 0) problems.push(`${label}: no responses`);
  return problems;
}

/** A number for a table cell; '-' when there is none. */
export function fmt(value: number | undefined, digits = 0): string {
  return value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);
}

/** Lays a table out with padded columns (the first left-aligned, the others right-aligned). */
export function renderTable(header: string[], lines: string[][]): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i].length)));
  const render = (cells: string[]): string =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [render(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(render)];
}
