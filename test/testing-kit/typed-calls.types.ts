/**
 * Calls through the testing kit to typed tools, for the `types` tier
 * (typed-calls.types.spec.ts runs the compiler on this file): the right calls compile, and each
 * wrong one, marked with `@ts-expect-error` on the line above it, must fail on its own line.
 * Never run.
 */
import type { McpTestClient } from 'nest-mcp/testing';
import type { RepeatDto, SearchInput } from './kit-fixture';

export async function rightCalls(client: McpTestClient): Promise<void> {
  await client.callTool<typeof SearchInput>('search', { query: 'nest' });
  await client.callTool<typeof SearchInput>('search', { query: 'nest', limit: 3 });
  await client.callTool<typeof RepeatDto>('repeat', { text: 'a', times: 2 });
  await client.startTask<typeof SearchInput>('search', { query: 'nest' });
  client.streamTool<typeof RepeatDto>('repeat', { text: 'a', times: 1 });
  // Without a schema, any record.
  await client.callTool('search', { anything: true });
}

export async function wrongCalls(client: McpTestClient): Promise<void> {
  // @ts-expect-error a number where the schema takes a string
  await client.callTool<typeof SearchInput>('search', { query: 42 });
  // @ts-expect-error a property the schema does not have
  await client.callTool<typeof SearchInput>('search', { query: 'a', page: 2 });
  // @ts-expect-error `query` is required
  await client.callTool<typeof SearchInput>('search', { limit: 1 });
  // @ts-expect-error `times` is a number in the DTO
  await client.callTool<typeof RepeatDto>('repeat', { text: 'a', times: 'two' });
  // @ts-expect-error also when the call is a task
  await client.startTask<typeof SearchInput>('search', { query: false });
  // @ts-expect-error or a stream
  client.streamTool<typeof RepeatDto>('repeat', { text: 1, times: 1 });
}
