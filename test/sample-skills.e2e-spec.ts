/**
 * The sample serves one skill, sample/skills/notes-workflow (a SKILL.md about the notes tools and
 * a tag reference), from the directory beside its module: listed, fetched and read with sizes
 * and digests that match the files on disk, in both eras, on Streamable HTTP, the simple POST
 * endpoint, the 2024-11-05 SSE pair and stdio.
 */
import type { INestApplication } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { AppModule } from '../sample/app.module';
import { startHttpApp } from './fixtures/http-app';
import { MODERN_REVISION } from './fixtures/raw-rpc';
import { mcpApp } from './support/mcp-app';
import { tsEntry } from './support/server-process';

const SKILL_DIR = join(__dirname, '..', 'sample', 'skills', 'notes-workflow');
const FILES = ['SKILL.md', 'references/tags.md'];

function onDisk(path: string) {
  const bytes = readFileSync(join(SKILL_DIR, path));
  return {
    uri: `skill://notes-workflow/${path}`,
    size: bytes.length,
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
  };
}

describe('sample: the notes-workflow skill', () => {
  const savedAuth = process.env.MCP_AUTH;
  let app: INestApplication;
  let legacy: McpTestClient;
  let modern: McpTestClient;

  beforeAll(async () => {
    delete process.env.MCP_AUTH;
    app = await mcpApp(AppModule);
    legacy = await createMcpTestClient(app, { revision: '2025-06-18' });
    modern = await createMcpTestClient(app);
  });

  afterAll(async () => {
    await legacy.close();
    await modern.close();
    await app.close();
    if (savedAuth !== undefined) process.env.MCP_AUTH = savedAuth;
  });

  it.each(['legacy', 'modern'] as const)('lists it with the digests of its files on disk (%s)', async (era) => {
    const client = era === 'legacy' ? legacy : modern;
    const { skills } = await client.request('skills/list');
    expect(skills).toEqual([
      {
        uri: 'skill://notes-workflow/SKILL.md',
        frontmatter: expect.objectContaining({ name: 'notes-workflow', license: 'MIT' }),
        resources: FILES.map(onDisk),
      },
    ]);
  });

  it('reads each file with the bytes the digest covers, and lists its directory', async () => {
    for (const path of FILES) {
      const { contents } = await modern.readResource(`skill://notes-workflow/${path}`);
      const text = (contents[0] as { text: string }).text;
      expect(Buffer.from(text, 'utf8')).toEqual(readFileSync(join(SKILL_DIR, path)));
    }
    const { resources } = await modern.request('resources/directory/read', { uri: 'skill://notes-workflow' });
    expect(resources.map((child: { name: string }) => child.name)).toEqual(['SKILL.md', 'references']);
  });

  it('names only tools the sample has', async () => {
    const tools = (await modern.listTools()).map((tool) => tool.name);
    const skill =
      readFileSync(join(SKILL_DIR, 'SKILL.md'), 'utf8') + readFileSync(join(SKILL_DIR, 'references/tags.md'), 'utf8');
    const named = [...skill.matchAll(/`([a-z]+_[a-z_]+)`/g)].map((match) => match[1]);
    expect(named.length).toBeGreaterThan(3);
    const prompts = (await modern.listPrompts()).map((prompt) => prompt.name);
    for (const name of named) {
      expect([...tools, ...prompts]).toContain(name);
    }
  });
});

describe('sample: the skill on the other transports', () => {
  const savedAuth = process.env.MCP_AUTH;
  beforeAll(() => delete process.env.MCP_AUTH);
  afterAll(() => {
    if (savedAuth !== undefined) process.env.MCP_AUTH = savedAuth;
  });

  it('is listed on the simple POST endpoint and over the 2024-11-05 SSE pair', async () => {
    const app = await startHttpApp(AppModule);
    const simple = await createMcpTestClient(app.app, { path: '/rpc' });
    const sse = new V1Client({ name: 'v1-sse-skills', version: '1.0.0' });
    try {
      const got = await simple.request('skills/get', { uri: 'skill://notes-workflow/SKILL.md' });
      expect(got.skill.resources).toEqual(FILES.map(onDisk));
      await sse.connect(new SSEClientTransport(new URL('/sse', app.baseUrl)));
      const listing = (await sse.request({ method: 'skills/list', params: {} }, ResultSchema)) as Record<string, any>;
      expect(listing.skills[0].resources).toEqual(FILES.map(onDisk));
    } finally {
      await sse.close();
      await simple.close();
      await app.close();
    }
  });

  it('is listed, fetched and read by the v2 client over stdio', async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const transport = new StdioClientTransport({ ...tsEntry('sample/stdio.ts'), env, stderr: 'pipe' });
    const client = new V2Client(
      { name: 'v2-stdio-skills', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    try {
      await client.connect(transport);
      const skills = new SkillsClient(client);
      const { skills: entries } = await skills.list();
      expect(entries.map((entry) => entry.resources)).toEqual([FILES.map(onDisk)]);
      const tags = await skills.read(entries[0], 'references/tags.md');
      expect(tags.verified).toBe(true);
      const directory = await skills.readDirectory('skill://notes-workflow/references');
      expect(directory.resources.map((child) => child.name)).toEqual(['tags.md']);
    } finally {
      await client.close();
    }
  }, 90_000);
});
