/**
 * A call through the testing kit to an `@McpTypedTool`, type-checked against the tool's schema
 * (`callTool<typeof Schema>`): the calls below run; the wrong ones, which must not compile, are
 * in typed-calls.types.ts, checked by the compiler in the `types` tier (typed-calls.types.spec.ts).
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { KIT_TOKENS, type RepeatDto, type SearchInput } from './kit-fixture';
import { kitApp, REVISIONS } from './kit-app';

const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };

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
