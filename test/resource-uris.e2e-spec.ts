/**
 * What a client may put in a resource URI, through the testing kit in both eras: template
 * variables that decode to a path traversal or a control character name no resource (unless the
 * template allows them), and a URI longer than `maxUriLength` is refused before any lookup, for
 * reads, subscriptions and completions alike.
 */
import { type INestApplication, Injectable, Module } from '@nestjs/common';
import { McpModule, McpResourceTemplate } from 'nest-mcp';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { PLATFORMS } from './fixtures/transports-fixture';
import { mcpApp } from './support/mcp-app';

/** The default `maxUriLength`. */
const MAX_URI_LENGTH = 8192;
const TRAVERSAL = 'files://..%2F..%2Fetc%2Fpasswd';

@Injectable()
class FileResources {
  @McpResourceTemplate({ uriTemplate: 'files://{name}', mimeType: 'text/plain' })
  file({ name }: { name: string }): string {
    return `file ${name}`;
  }

  @McpResourceTemplate({ uriTemplate: 'raw://{name}', mimeType: 'text/plain', allowUnsafeValues: true })
  raw({ name }: { name: string }): string {
    return `raw ${name}`;
  }

  @McpResourceTemplate({ uriTemplate: 'tree://{+path}', mimeType: 'text/plain', complete: { path: 'paths' } })
  tree({ path }: { path: string }): string {
    return `tree ${path}`;
  }

  paths(prefix: string): string[] {
    return ['docs/a.md', 'docs/b.md'].filter((path) => path.startsWith(prefix));
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'uris', version: '1.0.0' })],
  providers: [FileResources],
})
class UrisModule {}

/** The text of a read's only content. */
function textOf(result: { contents: Array<Record<string, unknown>> }): unknown {
  return result.contents[0].text;
}

/** A URI of `files://` exactly `length` characters long. */
const fileUri = (length: number): string => `files://${'a'.repeat(length - 'files://'.length)}`;

const TOO_LONG = expect.objectContaining({
  code: -32602,
  message: expect.stringContaining(
    `longer than ${MAX_URI_LENGTH} characters (McpModule option maxUriLength)`,
  ) as unknown,
});

describe.each(PLATFORMS)('resource URIs (%s)', (platform) => {
  let app: INestApplication;
  let legacy: McpTestClient;
  let modern: McpTestClient;

  beforeAll(async () => {
    app = await mcpApp(UrisModule, { platform });
    legacy = await createMcpTestClient(app, { revision: '2025-06-18' });
    modern = await createMcpTestClient(app);
  });

  afterAll(async () => {
    await legacy.close();
    await app.close();
  });

  it.each(['legacy', 'modern'])('reads through a template (%s era)', async (era) => {
    const client = era === 'legacy' ? legacy : modern;
    expect(textOf(await client.readResource('files://readme'))).toBe('file readme');
    expect(textOf(await client.readResource('tree://docs/a.md'))).toBe('tree docs/a.md');
  });

  it.each([[TRAVERSAL], ['files://a%00'], ['files://a%5Cb'], ['tree://docs/../../etc/passwd']])(
    'answers a read of %s as for a resource that does not exist: -32002 (legacy), -32602 with the uri (modern)',
    async (uri) => {
      await expect(legacy.readResource(uri)).rejects.toMatchObject({ code: -32002 });
      await expect(modern.readResource(uri)).rejects.toMatchObject({ code: -32602, data: { uri } });
    },
  );

  it('gives a template that allows unsafe values what the URI decodes to', async () => {
    expect(textOf(await legacy.readResource('raw://..%2F..%2Fetc%2Fpasswd'))).toBe('raw ../../etc/passwd');
    expect(textOf(await modern.readResource('raw://a%5Cb'))).toBe('raw a\\b');
  });

  it.each(['legacy', 'modern'])(
    `reads a URI of ${MAX_URI_LENGTH} characters, refuses one longer with -32602 naming the option (%s era)`,
    async (era) => {
      const client = era === 'legacy' ? legacy : modern;
      const longest = fileUri(MAX_URI_LENGTH);
      expect(textOf(await client.readResource(longest))).toBe(`file ${longest.slice('files://'.length)}`);
      await expect(client.readResource(fileUri(MAX_URI_LENGTH + 1))).rejects.toEqual(TOO_LONG);
      const ref = { type: 'ref/resource', uri: fileUri(MAX_URI_LENGTH + 1) } as const;
      await expect(client.complete(ref, { name: 'path', value: 'docs' })).rejects.toEqual(TOO_LONG);
    },
  );

  it('refuses a subscription (legacy) and a completion ref of a URI past the bound', async () => {
    const uri = fileUri(MAX_URI_LENGTH + 1);
    await expect(legacy.subscribeResource(uri)).rejects.toEqual(TOO_LONG);
    await expect(legacy.unsubscribeResource(uri)).rejects.toEqual(TOO_LONG);
    const completed = await legacy.complete(
      { type: 'ref/resource', uri: 'tree://{+path}' },
      { name: 'path', value: 'docs/a' },
    );
    expect(completed.completion.values).toEqual(['docs/a.md']);
  });

  it('refuses a subscriptions/listen naming a URI past the bound', async () => {
    const resourceSubscriptions = ['files://readme', fileUri(MAX_URI_LENGTH + 1)];
    await expect(modern.listen({ resourceSubscriptions })).rejects.toEqual(TOO_LONG);
  });
});
