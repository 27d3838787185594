/**
 * What a client may put in a resource URI, through the official clients of both eras: template
 * variables that decode to a path traversal or a control character name no resource (unless the
 * template allows them), and a URI longer than `maxUriLength` is refused before any lookup, for
 * reads, subscriptions and completions alike.
 */
import { Injectable, Module } from '@nestjs/common';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { McpModule, McpResourceTemplate } from 'nest-mcp';
import { type HttpApp, startHttpApp } from './fixtures/http-app';
import { exchange, modernHeaders, modernRequest } from './fixtures/raw-rpc';
import { PLATFORMS } from './fixtures/transports-fixture';

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
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(UrisModule, { platform });
  });

  afterAll(async () => {
    await server.close();
  });

  describe('through the v1 client (legacy era)', () => {
    let client: LegacyClient;

    beforeAll(async () => {
      client = new LegacyClient({ name: 'uris-v1', version: '1.0.0' });
      await client.connect(new LegacyTransport(server.url));
    });

    afterAll(async () => {
      await client.close();
    });

    it('reads through a template', async () => {
      expect(textOf(await client.readResource({ uri: 'files://readme' }))).toBe('file readme');
      expect(textOf(await client.readResource({ uri: 'tree://docs/a.md' }))).toBe('tree docs/a.md');
    });

    it.each([[TRAVERSAL], ['files://a%00'], ['files://a%5Cb'], ['tree://docs/../../etc/passwd']])(
      'answers a read of %s with -32002, as for a resource that does not exist',
      async (uri) => {
        await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32002 });
      },
    );

    it('gives a template that allows unsafe values what the URI decodes to', async () => {
      expect(textOf(await client.readResource({ uri: 'raw://..%2F..%2Fetc%2Fpasswd' }))).toBe('raw ../../etc/passwd');
    });

    it(`reads a URI of ${MAX_URI_LENGTH} characters, refuses one longer with -32602 naming the option`, async () => {
      const longest = fileUri(MAX_URI_LENGTH);
      expect(textOf(await client.readResource({ uri: longest }))).toBe(`file ${longest.slice('files://'.length)}`);
      await expect(client.readResource({ uri: fileUri(MAX_URI_LENGTH + 1) })).rejects.toEqual(TOO_LONG);
    });

    it('refuses a subscription and a completion ref of a URI past the bound', async () => {
      const uri = fileUri(MAX_URI_LENGTH + 1);
      await expect(client.subscribeResource({ uri })).rejects.toEqual(TOO_LONG);
      await expect(client.unsubscribeResource({ uri })).rejects.toEqual(TOO_LONG);
      await expect(
        client.complete({ ref: { type: 'ref/resource', uri }, argument: { name: 'path', value: 'docs' } }),
      ).rejects.toEqual(TOO_LONG);
      const completed = await client.complete({
        ref: { type: 'ref/resource', uri: 'tree://{+path}' },
        argument: { name: 'path', value: 'docs/a' },
      });
      expect(completed.completion.values).toEqual(['docs/a.md']);
    });
  });

  describe('through the v2 client (modern era)', () => {
    let client: ModernClient;

    beforeAll(async () => {
      client = new ModernClient({ name: 'uris-v2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new ModernTransport(server.url));
    });

    afterAll(async () => {
      await client.close();
    });

    it('reads through a template', async () => {
      const result = await client.readResource({ uri: 'files://readme' }, { cacheMode: 'bypass' });
      expect(textOf(result)).toBe('file readme');
    });

    it.each([[TRAVERSAL], ['files://a%00'], ['files://a%5Cb'], ['tree://docs/../../etc/passwd']])(
      'answers a read of %s with -32602 carrying the uri, as for a resource that does not exist',
      async (uri) => {
        await expect(client.readResource({ uri }, { cacheMode: 'bypass' })).rejects.toMatchObject({
          code: -32602,
          data: { uri },
        });
      },
    );

    it('gives a template that allows unsafe values what the URI decodes to', async () => {
      const result = await client.readResource({ uri: 'raw://a%5Cb' }, { cacheMode: 'bypass' });
      expect(textOf(result)).toBe('raw a\\b');
    });

    it(`reads a URI of ${MAX_URI_LENGTH} characters, refuses one longer with -32602 naming the option`, async () => {
      const longest = fileUri(MAX_URI_LENGTH);
      const result = await client.readResource({ uri: longest }, { cacheMode: 'bypass' });
      expect(textOf(result)).toBe(`file ${longest.slice('files://'.length)}`);
      await expect(client.readResource({ uri: fileUri(MAX_URI_LENGTH + 1) }, { cacheMode: 'bypass' })).rejects.toEqual(
        TOO_LONG,
      );
    });

    it('refuses a completion ref of a URI past the bound', async () => {
      await expect(
        client.complete({
          ref: { type: 'ref/resource', uri: fileUri(MAX_URI_LENGTH + 1) },
          argument: { name: 'path', value: 'docs' },
        }),
      ).rejects.toEqual(TOO_LONG);
    });

    it('refuses a subscriptions/listen naming a URI past the bound', async () => {
      const response = await exchange(server.url, {
        body: modernRequest(
          'subscriptions/listen',
          { notifications: { resourceSubscriptions: ['files://readme', fileUri(MAX_URI_LENGTH + 1)] } },
          7,
        ),
        headers: modernHeaders('subscriptions/listen'),
      });
      expect(response.json).toMatchObject({ id: 7, error: TOO_LONG });
    });
  });
});
