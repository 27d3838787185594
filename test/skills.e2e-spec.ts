/**
 * The Skills extension (`io.modelcontextprotocol/skills`) end to end, with the official clients:
 * the v2 client's `SkillsClient` (2026-07-28) lists and gets the skills, reads every file (it
 * checks sizes, digests and frontmatter itself) and reads directories; the test recomputes each
 * file's size and SHA-256 from the files on disk and compares them with the entries and with
 * the bytes `resources/read` returns. The v1 client (a legacy session) sees the extension in
 * `initialize` and lists and gets the skills without cache hints. A skill with scopes is hidden
 * from a principal without them; a provider's skill is served beside the directory's; Express
 * and Fastify; once with Redis; and the configurations that stop the application at startup.
 */
import {
  Client as V2Client,
  ProtocolError,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { McpConfigurationError, McpModule, type McpModuleOptions } from 'nest-mcp';
import { startHttpApp, type HttpApp, type HttpPlatform } from './fixtures/http-app';
import { startupError } from './fixtures/pipeline-app';
import { MODERN_REVISION } from './fixtures/raw-rpc';
import { rpcError } from './fixtures/sdk-errors';
import {
  DIRECTORY_FILES,
  PROVIDER_SKILL_MD,
  ProviderSkills,
  SkillsFixtureModule,
  bearer,
  filesOnDisk,
  removeTree,
  writeSkillTree,
} from './fixtures/skills-fixture';
import { startRedisServer, type RedisServerHandle } from './support/redis-server';

const SKILLS = 'io.modelcontextprotocol/skills';
/** Any result: the v2 client wants a schema for methods outside the specification. */
const ANY = z.looseObject({});
const PDF = 'skill://pdf-tools/SKILL.md';
const REFUNDS = 'skill://acme/billing/refunds/SKILL.md';
const PROVIDER = 'skill://generated/provider-skill/SKILL.md';

async function connectV2(app: HttpApp, principal: 'guest' | 'reader'): Promise<V2Client> {
  const client = new V2Client(
    { name: 'v2-skills-e2e', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new V2Transport(app.url, { requestInit: { headers: bearer(principal) } }));
  return client;
}

async function connectV1(app: HttpApp, principal: 'guest' | 'reader'): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-skills-e2e', version: '1.0.0' });
  await client.connect(new V1Transport(app.url, { requestInit: { headers: bearer(principal) } }));
  return client;
}

/** A path as the segments of a URI. */
function uriPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The bytes of a `resources/read` answer's one content. */
function bytesOf(contents: Array<{ text?: string; blob?: string }>): Buffer {
  expect(contents).toHaveLength(1);
  const [content] = contents;
  return content.text !== undefined ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob!, 'base64');
}

/** The entry's `resources`, as the files of `skillDirectory` on disk say they must be. */
function expectedResources(root: string, skillPath: string) {
  return filesOnDisk(join(root, skillPath))
    .map(({ path, size, digest }) => ({ uri: `skill://${skillPath}/${uriPath(path)}`, size, digest }))
    .sort((a, b) => (a.uri < b.uri ? -1 : 1));
}

describe.each<HttpPlatform>(['express', 'fastify'])('skills over Streamable HTTP (%s)', (platform) => {
  let root: string;
  let app: HttpApp;
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    root = writeSkillTree(DIRECTORY_FILES);
    app = await startHttpApp(SkillsFixtureModule.forRoot(root), { platform });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
    removeTree(root);
  });

  async function v2(principal: 'guest' | 'reader'): Promise<{ client: V2Client; skills: SkillsClient }> {
    const client = await connectV2(app, principal);
    clients.push(client);
    return { client, skills: new SkillsClient(client) };
  }

  it('advertises the extension with directoryRead in server/discover, and the resources capability', async () => {
    const { client, skills } = await v2('guest');
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    expect(client.getServerCapabilities()?.extensions?.[SKILLS]).toEqual({ directoryRead: true });
    expect(client.getServerCapabilities()?.resources).toBeDefined();
  });

  it('lists the skills a guest may see, each a complete manifest that matches the files on disk', async () => {
    const { skills } = await v2('guest');
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((skill) => skill.uri)).toEqual([PROVIDER, PDF]);
    const pdf = listing.skills.find((skill) => skill.uri === PDF)!;
    // Frontmatter verbatim: every field the author wrote, nested ones included.
    expect(pdf.frontmatter).toEqual({
      name: 'pdf-tools',
      description: 'Fill PDF forms from templates',
      license: 'Apache-2.0',
      metadata: { version: '2.1', owners: 'docs and billing' },
    });
    expect(pdf.resources).toEqual(expectedResources(root, 'pdf-tools'));
    // 2026-07-28: the listing is cacheable, with the configured ttlMs; private, as it depends on who asks.
    expect(listing).toMatchObject({ ttlMs: 120_000, cacheScope: 'private' });
  });

  it('reads every listed file with resources/read: size and digest recomputed from disk, and verified by the client', async () => {
    const { client, skills } = await v2('guest');
    const { skills: entries } = await skills.list();
    for (const entry of entries.filter((skill) => skill.uri === PDF)) {
      for (const resource of entry.resources as Array<{ uri: string; size: number; digest: string }>) {
        const read = await client.readResource({ uri: resource.uri });
        const bytes = bytesOf(read.contents);
        const onDisk = filesOnDisk(join(root, 'pdf-tools')).find(
          (file) => `skill://pdf-tools/${uriPath(file.path)}` === resource.uri,
        )!;
        expect({ size: bytes.length, digest: sha256(bytes) }).toEqual({ size: onDisk.size, digest: onDisk.digest });
        const verified = await skills.read(entry, resource.uri);
        expect(verified.verified).toBe(true);
      }
    }
    const skillMd = await client.readResource({ uri: PDF });
    expect(skillMd.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    const logo = await client.readResource({ uri: 'skill://pdf-tools/assets/logo.png' });
    expect(logo.contents[0]).toMatchObject({ mimeType: 'image/png', blob: expect.any(String) });
  });

  it('gets one skill by its URI, with ttlMs and cacheScope; an unknown skill is -32602', async () => {
    const { client, skills } = await v2('guest');
    const got = await skills.get(PDF);
    expect(got.skill.resources).toEqual(expectedResources(root, 'pdf-tools'));
    expect(got).toMatchObject({ ttlMs: 120_000, cacheScope: 'public' });
    const unknown = await client
      .request({ method: 'skills/get', params: { uri: 'skill://acme/billing/chargebacks/SKILL.md' } }, ANY)
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect(unknown).toMatchObject({ code: -32602, message: expect.stringContaining('No skill is served at') });
  });

  it('reads the root directory and a subdirectory; a file is not a directory (-32602)', async () => {
    const { client, skills } = await v2('guest');
    const rootListing = await skills.readDirectory('skill://pdf-tools');
    expect(rootListing.resources).toEqual([
      { uri: 'skill://pdf-tools/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: expect.any(Number) },
      { uri: 'skill://pdf-tools/assets', name: 'assets', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-tools/templates', name: 'templates', mimeType: 'inode/directory' },
    ]);
    expect(rootListing).toMatchObject({ ttlMs: 120_000, cacheScope: 'public' });
    const templates = await skills.readDirectory('skill://pdf-tools/templates');
    expect(templates.resources.map((child) => [child.name, child.mimeType])).toEqual([
      ['Q&A #1.md', 'text/markdown'],
      ['invoice.md', 'text/markdown'],
      ['regional', 'inode/directory'],
    ]);
    const notDirectory = await client
      .request({ method: 'resources/directory/read', params: { uri: PDF } }, ANY)
      .catch((error: unknown) => error);
    expect(notDirectory).toMatchObject({ code: -32602, message: `${PDF} is not a directory resource` });
  });

  it('hides a skill with scopes from a principal without them, and serves it to one with them', async () => {
    const guest = await v2('guest');
    expect(
      await guest.client.request({ method: 'skills/get', params: { uri: REFUNDS } }, ANY).catch((e) => e),
    ).toMatchObject({
      code: -32602,
    });
    for (const [method, uri] of [
      ['resources/read', REFUNDS],
      ['resources/directory/read', 'skill://acme/billing/refunds'],
    ]) {
      expect(await guest.client.request({ method, params: { uri } }, ANY).catch((e) => e)).toMatchObject({
        code: -32602,
      });
    }
    // A provider's skill under @McpScopes is hidden the same way.
    expect(
      await guest.client
        .request({ method: 'skills/get', params: { uri: 'skill://billing-audit/SKILL.md' } }, ANY)
        .catch((e) => e),
    ).toMatchObject({ code: -32602 });
    const { resources: guestResources } = await guest.client.listResources();
    expect(guestResources.map((resource) => resource.uri)).not.toContain(REFUNDS);

    const reader = await v2('reader');
    const listing = await reader.skills.list();
    expect(listing.skills.map((skill) => skill.uri)).toEqual([
      REFUNDS,
      'skill://billing-audit/SKILL.md',
      PROVIDER,
      PDF,
    ]);
    const got = await reader.skills.get(REFUNDS);
    expect(got).toMatchObject({ cacheScope: 'private', skill: { frontmatter: { name: 'refunds' } } });
    expect((await reader.skills.read(got.skill)).verified).toBe(true);
    const { resources } = await reader.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining([REFUNDS, PDF, PROVIDER]));
  });

  it("serves a provider's skill, read once at startup", async () => {
    const { skills } = await v2('guest');
    const { skill } = await skills.get(PROVIDER);
    expect(skill.resources).toEqual([
      { uri: PROVIDER, size: Buffer.byteLength(PROVIDER_SKILL_MD), digest: sha256(Buffer.from(PROVIDER_SKILL_MD)) },
      { uri: 'skill://generated/provider-skill/examples/one.txt', size: 4, digest: sha256(Buffer.from('one\n')) },
    ]);
    expect((await skills.read(skill, 'examples/one.txt')).text).toBe('one\n');
  });

  it('serves the v1 client in a legacy session: advertised at initialize, list and get without cache hints', async () => {
    const client = await connectV1(app, 'guest');
    clients.push(client);
    expect(client.getServerCapabilities()?.extensions?.[SKILLS]).toEqual({ directoryRead: true });
    const listing = (await client.request({ method: 'skills/list', params: {} }, ResultSchema)) as Record<string, any>;
    expect(listing.skills.map((skill: { uri: string }) => skill.uri)).toEqual([PROVIDER, PDF]);
    expect(listing.ttlMs).toBeUndefined();
    const got = (await client.request({ method: 'skills/get', params: { uri: PDF } }, ResultSchema)) as Record<
      string,
      any
    >;
    expect(got.skill.resources).toEqual(expectedResources(root, 'pdf-tools'));
    expect(got.ttlMs).toBeUndefined();
    const error = await rpcError(client.request({ method: 'skills/get', params: { uri: REFUNDS } }, ResultSchema));
    expect(error.code).toBe(-32602);
  });
});

describe('skills off', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach(removeTree));

  /** What a legacy session gets for `method`, and what a 2026-07-28 client sees declared. */
  async function probe(skills: McpModuleOptions['skills'], method: string, uri: string) {
    const app = await startHttpApp(McpModule.forRoot({ name: 'probe', version: '0.0.1', skills }));
    const v1 = new V1Client({ name: 'v1', version: '1.0.0' });
    const v2 = new V2Client(
      { name: 'v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    try {
      await v1.connect(new V1Transport(app.url));
      await v2.connect(new V2Transport(app.url));
      const error = await rpcError(v1.request({ method, params: { uri } }, ResultSchema));
      const modern = await v2.request({ method, params: { uri } }, ANY).then(
        () => 'answered',
        () => 'refused',
      );
      return { code: error.code, modern, declared: v2.getServerCapabilities()?.extensions?.[SKILLS] };
    } finally {
      await Promise.all([v1.close(), v2.close()]);
      await app.close();
    }
  }

  it.each(['skills/list', 'skills/get', 'resources/directory/read'])(
    'without the skills option: %s is an unknown method (-32601) and no extension is declared',
    async (method) => {
      expect(await probe(undefined, method, PDF)).toEqual({ code: -32601, modern: 'refused', declared: undefined });
    },
  );

  it('with directoryRead: false, resources/directory/read is an unknown method and directoryRead is not declared', async () => {
    const root = writeSkillTree(DIRECTORY_FILES);
    roots.push(root);
    const skills = { directory: root, directoryRead: false };
    expect(await probe(skills, 'resources/directory/read', 'skill://pdf-tools')).toEqual({
      code: -32601,
      modern: 'refused',
      declared: {},
    });
  });
});

describe('skills with Redis', () => {
  let redis: RedisServerHandle;
  let root: string;
  let app: HttpApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    root = writeSkillTree(DIRECTORY_FILES);
    app = await startHttpApp(
      SkillsFixtureModule.forRoot(root, {
        redis: { url: redis.url },
        requestState: { secret: 'skills-redis-request-state-secret-0123456789' },
      }),
    );
  });

  afterAll(async () => {
    await app?.close();
    await redis?.stop();
    removeTree(root);
  });

  it('lists, gets, reads and reads directories in both eras', async () => {
    const client = await connectV2(app, 'guest');
    const skills = new SkillsClient(client);
    const { skills: entries } = await skills.list();
    expect(entries.map((skill) => skill.uri)).toEqual([PROVIDER, PDF]);
    const pdf = entries.find((skill) => skill.uri === PDF)!;
    expect(pdf.resources).toEqual(expectedResources(root, 'pdf-tools'));
    expect((await skills.read(pdf, 'templates/invoice.md')).verified).toBe(true);
    expect((await skills.readDirectory('skill://pdf-tools/templates/regional')).resources).toHaveLength(1);
    await client.close();
    const legacy = await connectV1(app, 'guest');
    const got = (await legacy.request({ method: 'skills/get', params: { uri: PDF } }, ResultSchema)) as Record<
      string,
      any
    >;
    expect(got.skill.uri).toBe(PDF);
    await legacy.close();
  });
});

describe('skills: configurations that stop the application at startup', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach(removeTree));

  function tree(files: Record<string, string | Buffer>): string {
    const root = writeSkillTree(files);
    roots.push(root);
    return root;
  }

  async function refusal(skills: object, providers: unknown[] = []): Promise<Error> {
    return startupError({
      imports: [McpModule.forRoot({ name: 'bad-skills', version: '0.0.1', skills })],
      providers: providers as never,
    });
  }

  const SKILL = (name: string) => `---\nname: ${name}\ndescription: d\n---\nbody\n`;

  it.each<[string, () => object, RegExp]>([
    [
      'a directory that does not exist',
      () => ({ directory: '/nonexistent/skills-dir' }),
      /"skills.directory".*is not a directory/,
    ],
    [
      'a SKILL.md without frontmatter',
      () => ({ directory: tree({ 'a/SKILL.md': '# no frontmatter' }) }),
      /skill "a".*must begin with YAML frontmatter/,
    ],
    [
      'a SKILL.md without a description',
      () => ({ directory: tree({ 'a/SKILL.md': '---\nname: a\n---\n' }) }),
      /non-empty string "description"/,
    ],
    [
      'a directory that is not its name',
      () => ({ directory: tree({ 'b/SKILL.md': SKILL('a') }) }),
      /directory "b" must be its frontmatter name "a"/,
    ],
    [
      'a name against the naming rules',
      () => ({ directory: tree({ 'Bad--Name/SKILL.md': SKILL('Bad--Name') }) }),
      /lowercase letters, digits and hyphens/,
    ],
    [
      'a name with a double hyphen',
      () => ({ directory: tree({ 'a--b/SKILL.md': SKILL('a--b') }) }),
      /two hyphens in a row/,
    ],
    [
      'a skill over 512 files',
      () => ({
        directory: tree({
          'big/SKILL.md': SKILL('big'),
          ...Object.fromEntries(Array.from({ length: 512 }, (_, index) => [`big/f${index}.txt`, 'x'])),
        }),
      }),
      /skill "big" holds 513 files/,
    ],
    [
      'scopes for a path no skill has',
      () => ({ directory: tree({ 'a/SKILL.md': SKILL('a') }), scopes: { b: ['x'] } }),
      /"skills.scopes.b"/,
    ],
  ])('refuses %s', async (_title, skills, message) => {
    const error = await refusal(skills());
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toMatch(message);
  });

  it('refuses frontmatter a host would refuse (metadata that is not strings)', async () => {
    const root = tree({ 'a/SKILL.md': '---\nname: a\ndescription: d\nmetadata:\n  tags: [x]\n---\n' });
    expect((await refusal({ directory: root })).message).toMatch(/"metadata" must map strings to strings/);
  });

  it('refuses a skill over 16 MiB', async () => {
    const root = tree({ 'big/SKILL.md': SKILL('big') });
    writeFileSync(join(root, 'big/blob.bin'), Buffer.alloc(16 * 1024 * 1024));
    expect((await refusal({ directory: root })).message).toMatch(/skill "big" holds 2 files and \d+ bytes/);
  });

  it('refuses a symbolic link that leaves the directory', async () => {
    const outside = tree({ 'secret.txt': 'secret' });
    const root = tree({ 'a/SKILL.md': SKILL('a') });
    mkdirSync(join(root, 'a/links'));
    symlinkSync(join(outside, 'secret.txt'), join(root, 'a/links/secret.txt'));
    expect((await refusal({ directory: root })).message).toMatch(/a\/links\/secret.txt is a symbolic link that leaves/);
  });

  it('refuses @McpSkill without the skills option', async () => {
    const error = await startupError({
      imports: [McpModule.forRoot({ name: 'no-skills', version: '0.0.1' })],
      providers: [ProviderSkills],
    });
    expect(error.message).toMatch(/@McpSkill at ProviderSkills.skill needs the skills option/);
  });

  it('names the skills option in extensions as the module own', async () => {
    const error = await startupError({
      imports: [McpModule.forRoot({ name: 'own', version: '0.0.1', extensions: [{ id: SKILLS }] })],
    });
    expect(error.message).toMatch(/declared by the module itself/);
  });
});
