import { McpErrorCode, type JSONObject } from '../messages/json-rpc';
import { type McpError } from '../messages/mcp-error';
import type { McpEra } from '../messages/revisions';
import { SkillLibrary } from '../skills/skill-library';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';
import { handleDirectoryRead, handleSkillsGet, handleSkillsList, readSkillFile, skillListings } from './skills.handler';

const bytes = (text: string) => Buffer.from(text, 'utf8');

function library(ttlMs?: number): SkillLibrary {
  const skills = new SkillLibrary(true, ttlMs);
  for (const name of ['alpha', 'beta', 'gamma']) {
    skills.add({
      path: name,
      frontmatter: { name, description: name },
      files: new Map([
        ['SKILL.md', bytes(name)],
        ['docs/a.md', bytes('a')],
        ['docs/b.md', bytes('b')],
        ['docs/c.md', bytes('c')],
      ]),
      scopes: name === 'gamma' ? ['secret'] : [],
    });
  }
  return skills;
}

function context(skills: SkillLibrary | undefined, pageSize = 0): HandlerContext {
  return { skills, options: { pageSize, maxUriLength: 100 } } as unknown as HandlerContext;
}

function request(params: JSONObject, scopes: string[] = [], era: McpEra = 'modern'): ResolvedRequest {
  return { params, era, principal: { id: 'p', scopes } } as unknown as ResolvedRequest;
}

function refusal(run: () => unknown): McpError {
  try {
    run();
  } catch (error) {
    return error as McpError;
  }
  throw new Error('expected a refusal');
}

describe('skills/list', () => {
  it('pages the skills a principal may see, never splitting an entry', () => {
    const handler = context(library(), 1);
    const first = handleSkillsList(handler, request({}));
    expect((first.skills as JSONObject[]).map((skill) => skill.uri)).toEqual(['skill://alpha/SKILL.md']);
    const second = handleSkillsList(handler, request({ cursor: first.nextCursor }));
    expect((second.skills as JSONObject[]).map((skill) => skill.uri)).toEqual(['skill://beta/SKILL.md']);
    expect(second.nextCursor).toBeUndefined();
    expect(first.cacheScope).toBe('private');
  });

  it('shows a scoped skill to a principal with the scope', () => {
    const result = handleSkillsList(context(library()), request({}, ['secret']));
    expect((result.skills as JSONObject[]).map((skill) => skill.uri)).toEqual([
      'skill://alpha/SKILL.md',
      'skill://beta/SKILL.md',
      'skill://gamma/SKILL.md',
    ]);
  });

  it('carries the skills ttlMs in the modern era only', () => {
    expect(handleSkillsList(context(library(9_000)), request({})).ttlMs).toBe(9_000);
    expect(handleSkillsList(context(library(9_000)), request({}, [], 'legacy'))).toEqual({ skills: expect.any(Array) });
  });

  it('refuses a cursor it did not issue with -32602', () => {
    expect(refusal(() => handleSkillsList(context(library(), 1), request({ cursor: 'nope!' }))).code).toBe(
      McpErrorCode.InvalidParams,
    );
  });
});

describe('skills/get', () => {
  it('answers the entry of a skill', () => {
    expect(handleSkillsGet(context(library()), request({ uri: 'skill://alpha/SKILL.md' })).skill).toMatchObject({
      uri: 'skill://alpha/SKILL.md',
      frontmatter: { name: 'alpha', description: 'alpha' },
    });
  });

  it.each([
    ['an unknown skill', 'skill://delta/SKILL.md'],
    ['a directory', 'skill://alpha'],
    ['a supporting file', 'skill://alpha/docs/a.md'],
    ['a skill hidden by its scopes', 'skill://gamma/SKILL.md'],
  ])('answers -32602 for %s, naming the URI', (_title, uri) => {
    const error = refusal(() => handleSkillsGet(context(library()), request({ uri })));
    expect(error).toMatchObject({ code: McpErrorCode.InvalidParams, message: `No skill is served at ${uri}` });
  });

  it('refuses a missing or overlong uri with -32602', () => {
    expect(refusal(() => handleSkillsGet(context(library()), request({}))).code).toBe(McpErrorCode.InvalidParams);
    const long = `skill://${'a'.repeat(200)}/SKILL.md`;
    expect(refusal(() => handleSkillsGet(context(library()), request({ uri: long }))).message).toMatch(/maxUriLength/);
  });
});

describe('resources/directory/read', () => {
  it('pages the direct children', () => {
    const handler = context(library(), 2);
    const first = handleDirectoryRead(handler, request({ uri: 'skill://alpha/docs' }));
    expect((first.resources as JSONObject[]).map((child) => child.name)).toEqual(['a.md', 'b.md']);
    const rest = handleDirectoryRead(handler, request({ uri: 'skill://alpha/docs', cursor: first.nextCursor }));
    expect((rest.resources as JSONObject[]).map((child) => child.name)).toEqual(['c.md']);
  });

  it.each([
    ['a file', 'skill://alpha/SKILL.md', 'skill://alpha/SKILL.md is not a directory resource'],
    ['an unknown URI', 'skill://alpha/nope', 'No directory resource is served at skill://alpha/nope'],
    ['a directory hidden by its scopes', 'skill://gamma', 'No directory resource is served at skill://gamma'],
    [
      'a file hidden by its scopes',
      'skill://gamma/SKILL.md',
      'No directory resource is served at skill://gamma/SKILL.md',
    ],
  ])('answers -32602 for %s', (_title, uri, message) => {
    expect(refusal(() => handleDirectoryRead(context(library()), request({ uri })))).toMatchObject({
      code: McpErrorCode.InvalidParams,
      message,
    });
  });
});

describe('skill files in resources/read and resources/list', () => {
  it('reads a file as text, and nothing for a file hidden by its scopes or unknown', () => {
    expect(readSkillFile(context(library()), request({}), 'skill://alpha/docs/a.md')).toEqual({
      contents: [{ uri: 'skill://alpha/docs/a.md', mimeType: 'text/markdown', text: 'a' }],
    });
    expect(readSkillFile(context(library()), request({}), 'skill://gamma/SKILL.md')).toBeUndefined();
    expect(readSkillFile(context(library()), request({}, ['secret']), 'skill://gamma/SKILL.md')).toMatchObject({
      cacheScope: 'private',
    });
    expect(readSkillFile(context(undefined), request({}), 'skill://alpha/SKILL.md')).toBeUndefined();
  });

  it('lists each SKILL.md with its scopes', () => {
    expect(skillListings(library()).map(({ access, rendered }) => [rendered.uri, access?.scopes])).toEqual([
      ['skill://alpha/SKILL.md', undefined],
      ['skill://beta/SKILL.md', undefined],
      ['skill://gamma/SKILL.md', ['secret']],
    ]);
    expect(skillListings(undefined)).toEqual([]);
  });
});
