/**
 * A call through the testing kit to an `@McpTypedTool`, type-checked against the tool's schema
 * (`callTool<typeof Schema>`): the calls below run, and the wrong ones in `neverRun` must not
 * compile (`npx tsc --noEmit -p tsconfig.json` fails on an unused `@ts-expect-error`).
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient, type McpTestClient } from '../../lib/testing';
import { KIT_TOKENS, type RepeatDto, type SearchInput } from './kit-fixture';
import { kitApp, REVISIONS } from './kit-app';

const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };

/** The wrong calls: each must fail to compile. Never called. */
export async function neverRun(client: McpTestClient): Promise<void> {
  // @ts-expect-error a number where the schema takes a string
  await client.callTool<typeof SearchInput>('search', { query: 42 });
  // @ts-expect-error a property the schema does not have
  await client.callTool<typeof SearchInput>('search', { query: 'a', page: 2 });
  // @ts-expect-error `query` is required
  await client.callTool<typeof SearchInput>('search', { limit: 1 });
  // @ts-expect-error `times` is a number in the DTO
  await client.callTool<typeof RepeatDto>('repeat', { text: 'a', times: 'two' });
  // @ts-expect-error also when the call is a task or a stream
  await client.startTask<typeof SearchInput>('search', { query: false });
  // Without a schema, any record.
  await client.callTool('search', { anything: true });
}

describe.each(REVISIONS)('typed calls, speaking %s', (revision) => {
  let app: INestApplication;
  let client: McpTestClient;

  beforeAll(async () => {
    app = await kitApp('express');
    client = await createMcpTestClient(app, { revision, headers: ADMIN });
  });

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('calls a typed tool with the arguments its schema takes (defaults left to the server)', async () => {
    const result = await client.callTool<typeof SearchInput>('search', { query: 'nest' });
    expect(result.content).toEqual([{ type: 'text', text: 'nest x2' }]);
    const dto = await client.callTool<typeof RepeatDto>('repeat', { text: 'ab', times: 2 });
    expect(dto.content).toEqual([{ type: 'text', text: 'abab' }]);
  });
});
