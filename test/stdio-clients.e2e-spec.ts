/**
 * The sample app over stdio, spawned as a real MCP client spawns a server: the SDK v1 client
 * (`StdioClientTransport`), the v2 client in both eras, and `npm run --silent start:stdio`
 * driven byte by byte to check that stdout carries JSON-RPC lines and nothing else.
 *
 * Each spawn compiles the sample with ts-node and takes seconds: the tests are few and their
 * timeouts generous.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { basename, join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Collector, MODERN_REVISION, type RpcMessage } from './fixtures/raw-rpc';
import { tsEntry } from './support/server-process';

const ROOT = join(__dirname, '..');
const SPAWN_TIMEOUT_MS = 90_000;

/** The environment of the spawned server: ours (PATH, HOME...), as strings. */
function childEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** What the sample serves, as clients see it: its hand-written tools and its REST routes (notes_*). */
const SAMPLE_TOOLS = [
  'build_report',
  'create_note',
  'delete_note',
  'echo',
  'note_stats',
  'notes_create',
  'notes_get',
  'notes_list',
  'notes_remove',
  'search_notes',
  'whoami',
];

/** The text of the first content block of a tool result or prompt message. */
function firstText(content: unknown): string {
  const block = Array.isArray(content) ? content[0] : content;
  return String((block as { text?: unknown } | undefined)?.text);
}

/** Collects a child's stderr, to show it when a test fails. */
function collectStderr(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.setEncoding?.('utf8');
  stream?.on('data', (chunk: string) => (text += chunk));
  return () => text;
}

/** How the SDK clients spawn the sample (their `StdioClientTransport` parameters). */
function sampleServer() {
  return { ...tsEntry('sample/stdio.ts'), env: childEnv(), stderr: 'pipe' as const };
}

/**
 * Connects `client` to the sample over `transport` and runs `body`: a failure carries the
 * server's stderr, and the client is closed in any case.
 */
async function withSample<T extends { readonly stderr: unknown }>(
  transport: T,
  client: { connect(transport: T): Promise<void>; close(): Promise<void> },
  body: () => Promise<void>,
): Promise<void> {
  const stderr = collectStderr(transport.stderr as NodeJS.ReadableStream | null);
  try {
    await client.connect(transport);
    await body();
  } catch (error) {
    throw new Error(`${String(error)}\n--- server stderr ---\n${stderr()}`, { cause: error });
  } finally {
    await client.close();
  }
}

describe('stdio: the sample spawned by real clients', () => {
  it(
    'SDK v1 client: initialize, tools, a request-scoped tool, a resource and a prompt; the server exits on EOF',
    async () => {
      const transport = new V1StdioClientTransport(sampleServer());
      const client = new V1Client({ name: 'v1-stdio-e2e', version: '1.0.0' });
      await withSample(transport, client, async () => {
        // The child is the transport's; its exit status tells whether EOF ended it cleanly.
        const child = (transport as unknown as { _process: ChildProcess })._process;
        const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
          child.once('exit', (code, signal) => resolve([code, signal])),
        );

        expect(client.getServerVersion()).toMatchObject({ name: 'notes', version: '1.0.0' });
        expect(client.getInstructions()).toBe('Use search_notes before create_note to avoid duplicates.');
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(SAMPLE_TOOLS);

        const echoed = await client.callTool({ name: 'echo', arguments: { text: 'over stdio' } });
        expect(echoed.content).toEqual([{ type: 'text', text: 'over stdio' }]);
        // A request-scoped provider resolves without an HTTP request behind it.
        const whoami = await client.callTool({ name: 'whoami', arguments: {} });
        expect(firstText(whoami.content)).toBe('user-agent: unknown');

        const index = await client.readResource({ uri: 'notes://index' });
        const notes = JSON.parse(String((index.contents[0] as { text?: string }).text)) as Array<{ title: string }>;
        expect(notes.map((note) => note.title)).toEqual(['Welcome', 'Shopping']);
        const prompt = await client.getPrompt({ name: 'summarize_note', arguments: { id: '1' } });
        expect(firstText(prompt.messages.map((message) => message.content))).toContain('Welcome');

        await client.close();
        expect(await exited).toEqual([0, null]);
      });
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'v2 client pinned to 2026-07-28: server/discover, calls, and subscriptions/listen on stdio',
    async () => {
      const transport = new V2StdioClientTransport(sampleServer());
      const client = new V2Client(
        { name: 'v2-stdio-e2e', version: '2.0.0' },
        { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
      );
      await withSample(transport, client, async () => {
        expect(client.getProtocolEra()).toBe('modern');
        expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
        expect(client.getServerVersion()).toMatchObject({ name: 'notes', version: '1.0.0' });

        const { tools } = await client.listTools(undefined, { cacheMode: 'bypass' });
        expect(tools.map((tool) => tool.name).sort()).toEqual(SAMPLE_TOOLS);
        const echoed = await client.callTool({ name: 'echo', arguments: { text: 'modern stdio' } });
        expect(echoed.content).toEqual([{ type: 'text', text: 'modern stdio' }]);
        const note = await client.readResource({ uri: 'notes://2' });
        expect(String((note.contents[0] as { text?: string }).text)).toContain('# Shopping');
        const prompt = await client.getPrompt({ name: 'summarize_note', arguments: { id: '2' } });
        expect(firstText(prompt.messages.map((message) => message.content))).toContain('Shopping');

        const updates = new Collector<{ uri: string }>();
        client.setNotificationHandler('notifications/resources/updated', (notification) =>
          updates.push(notification.params),
        );
        const subscription = await client.listen({ resourceSubscriptions: ['notes://index'] });
        expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['notes://index'] });
        const created = await client.callTool({
          name: 'create_note',
          arguments: { title: 'From stdio', body: 'Written by the v2 client' },
        });
        expect(firstText(created.content)).toBe('Created note 3: From stdio');
        const [update] = await updates.waitFor(1);
        expect(update).toMatchObject({ uri: 'notes://index' });
        await subscription.close();
        await expect(subscription.closed).resolves.toBe('local');
      });
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'v2 client in the legacy era: initialize handshake, calls, a resource and a prompt',
    async () => {
      const transport = new V2StdioClientTransport(sampleServer());
      const client = new V2Client(
        { name: 'v2-legacy-stdio-e2e', version: '2.0.0' },
        { versionNegotiation: { mode: 'legacy' } },
      );
      await withSample(transport, client, async () => {
        expect(client.getProtocolEra()).toBe('legacy');
        expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
        expect(client.getServerVersion()).toMatchObject({ name: 'notes', version: '1.0.0' });
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(SAMPLE_TOOLS);
        const echoed = await client.callTool({ name: 'echo', arguments: { text: 'legacy stdio' } });
        expect(echoed.content).toEqual([{ type: 'text', text: 'legacy stdio' }]);
        const stats = await client.callTool({ name: 'note_stats', arguments: {} });
        expect(stats.structuredContent).toMatchObject({ total: 2 });
        const index = await client.readResource({ uri: 'notes://index' });
        expect(String((index.contents[0] as { text?: string }).text)).toContain('Welcome');
        const prompt = await client.getPrompt({ name: 'summarize_note', arguments: { id: '1', style: 'bullet' } });
        expect(prompt.messages.length).toBeGreaterThan(0);
      });
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'npm run --silent start:stdio writes nothing but JSON-RPC lines on stdout, and exits 0 on EOF',
    async () => {
      const cli = process.env.npm_execpath;
      const [command, prefix] =
        cli && /npm-cli\.[cm]?js$/.test(basename(cli))
          ? [process.execPath, [cli]]
          : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
      const child = spawn(command, [...prefix, 'run', '--silent', 'start:stdio'], {
        cwd: ROOT,
        env: process.env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const stderr = collectStderr(child.stderr);
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('exit', (code, signal) => resolve([code, signal])),
      );
      let stdout = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => (stdout += chunk));
      /** The complete lines written so far. */
      const lines = (): string[] => stdout.split('\n').slice(0, -1);
      const answer = async (id: number): Promise<RpcMessage> => {
        for (;;) {
          const found = lines()
            .map((line) => JSON.parse(line) as RpcMessage)
            .find((message) => message.id === id);
          if (found !== undefined) {
            return found;
          }
          await Promise.race([
            new Promise((resolve) => child.stdout.once('data', resolve)),
            exited.then(() => Promise.reject(new Error(`The server exited before answering ${id}`))),
          ]);
        }
      };
      try {
        child.stdin.write(
          `${JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
          })}\n`,
        );
        const initialized = await answer(1);
        expect(initialized.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'notes' } });
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'raw' } } })}\n`,
        );
        // The input ends right after the request: its answer is still written before the exit.
        child.stdin.end();
        expect(await exited).toEqual([0, null]);
        expect(stdout.endsWith('\n')).toBe(true);
        const messages = lines().map((line) => JSON.parse(line) as RpcMessage);
        expect(messages.every((message) => message.jsonrpc === '2.0')).toBe(true);
        expect(messages.map((message) => message.id)).toEqual([1, 2]);
        expect(messages[1].result?.content).toEqual([{ type: 'text', text: 'raw' }]);
      } catch (error) {
        child.kill('SIGKILL');
        throw new Error(`${String(error)}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr()}`, { cause: error });
      }
    },
    SPAWN_TIMEOUT_MS,
  );
});
