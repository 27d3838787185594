/**
 * One official client per era, connected over Streamable HTTP: the v1 SDK client in a legacy
 * session, or the v2 client pinned to 2026-07-28. The e2e specs that run the same checks in both
 * eras take whichever `era` names.
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MODERN_REVISION } from '../fixtures/raw-rpc';

export type Era = 'v1' | 'v2';

/** What the specs use of either client. */
export interface EraClient {
  listTools(): Promise<{ tools: Array<Record<string, unknown>> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A client of `era` connected to `url`, each request carrying `headers`. */
export async function connectEra(era: Era, url: URL, headers: Record<string, string> = {}): Promise<EraClient> {
  if (era === 'v1') {
    const client = new V1Client({ name: 'e2e-v1', version: '1.0.0' });
    await client.connect(new V1Transport(url, { requestInit: { headers } }));
    return client;
  }
  const client = new V2Client(
    { name: 'e2e-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new V2Transport(url, { requestInit: { headers } }));
  return client;
}
