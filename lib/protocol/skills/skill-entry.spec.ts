import { createHash } from 'node:crypto';
import {
  MCP_SKILLS_EXTENSION,
  SKILL_LIMITS,
  serveSkill,
  skillDigest,
  skillMimeType,
  skillProblem,
  skillsExtension,
  uriPathOf,
  type SkillDefinition,
} from './skill-entry';

const bytes = (text: string) => Buffer.from(text, 'utf8');

function definition(overrides: Partial<SkillDefinition> = {}): SkillDefinition {
  return {
    path: 'acme/pdf-tools',
    frontmatter: { name: 'pdf-tools', description: 'Fill PDFs', license: 'MIT', metadata: { version: '1' } },
    files: new Map([
      ['SKILL.md', bytes('---\nname: pdf-tools\n---\n')],
      ['templates/a b.md', bytes('# A\n')],
      ['assets/logo.png', Uint8Array.from([0x89, 0x50, 0xff, 0xfe])],
    ]),
    scopes: [],
    ...overrides,
  };
}

describe('the Skills extension declaration', () => {
  it('declares directoryRead only when directory reads are served', () => {
    expect(skillsExtension(true)).toEqual({ id: MCP_SKILLS_EXTENSION, settings: { directoryRead: true } });
    expect(skillsExtension(false)).toEqual({ id: MCP_SKILLS_EXTENSION, settings: {} });
  });
});

describe('skillDigest', () => {
  it('is sha256: and the 64 lowercase hex characters of the raw bytes', () => {
    const content = Uint8Array.from([0, 1, 2, 255]);
    const expected = createHash('sha256').update(content).digest('hex');
    expect(skillDigest(content)).toBe(`sha256:${expected}`);
    expect(skillDigest(content)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('skillMimeType', () => {
  it.each([
    ['SKILL.md', 'text/markdown'],
    ['scripts/run.py', 'text/x-python'],
    ['data.JSON', 'application/json'],
    ['logo.png', 'image/png'],
    ['Makefile', 'application/octet-stream'],
    ['.env', 'application/octet-stream'],
    ['x.constructor', 'application/octet-stream'],
  ])('%s is %s', (path, type) => {
    expect(skillMimeType(path)).toBe(type);
  });
});

describe('serveSkill', () => {
  const skill = serveSkill(definition());

  it('renders the entry: the SKILL.md URI, the frontmatter verbatim, every file with its size and digest, by URI', () => {
    expect(skill.entry).toEqual({
      uri: 'skill://acme/pdf-tools/SKILL.md',
      frontmatter: { name: 'pdf-tools', description: 'Fill PDFs', license: 'MIT', metadata: { version: '1' } },
      resources: [
        { uri: 'skill://acme/pdf-tools/SKILL.md', size: 24, digest: skillDigest(bytes('---\nname: pdf-tools\n---\n')) },
        {
          uri: 'skill://acme/pdf-tools/assets/logo.png',
          size: 4,
          digest: skillDigest(Uint8Array.from([0x89, 0x50, 0xff, 0xfe])),
        },
        { uri: 'skill://acme/pdf-tools/templates/a%20b.md', size: 4, digest: skillDigest(bytes('# A\n')) },
      ],
    });
    expect(Object.isFrozen(skill.entry)).toBe(true);
  });

  it('keeps text as text and binary as bytes only', () => {
    expect(skill.files.find((file) => file.path === 'SKILL.md')).toMatchObject({
      mimeType: 'text/markdown',
      text: expect.any(String),
    });
    expect(skill.files.find((file) => file.path === 'assets/logo.png')?.text).toBeUndefined();
    // Invalid UTF-8 in a text file is served as a blob: its text would not hash to the digest.
    const broken = serveSkill(definition({ files: new Map([['SKILL.md', Uint8Array.from([0x2d, 0xc3])]]) }));
    expect(broken.files[0].text).toBeUndefined();
  });

  it('percent-encodes each segment of the URIs', () => {
    expect(uriPathOf('a b/Q&A #1.md')).toBe('a%20b/Q%26A%20%231.md');
  });
});

describe('skillProblem', () => {
  it('takes a valid skill', () => {
    expect(skillProblem(definition())).toBeUndefined();
  });

  it.each<[string, Partial<SkillDefinition>, RegExp]>([
    ['a bad path', { path: 'acme//pdf-tools' }, /its path must be a relative path/],
    ['no description', { frontmatter: { name: 'pdf-tools' } }, /non-empty string "description"/],
    ['a bad name', { path: 'Pdf', frontmatter: { name: 'Pdf', description: 'd' } }, /its name must hold only/],
    [
      'a directory that is not the name',
      { frontmatter: { name: 'other', description: 'd' } },
      /directory "pdf-tools" must be its frontmatter name "other"/,
    ],
    ['no SKILL.md', { files: new Map([['README.md', bytes('x')]]) }, /must hold a SKILL.md/],
    [
      'a file and a directory of one name',
      {
        files: new Map([
          ['SKILL.md', bytes('x')],
          ['a', bytes('1')],
          ['a/b', bytes('2')],
        ]),
      },
      /"a" cannot be both a file and a directory/,
    ],
    [
      'a long description',
      { frontmatter: { name: 'pdf-tools', description: 'd'.repeat(1025) } },
      /at most 1024 characters/,
    ],
    [
      'metadata that is not strings',
      { frontmatter: { name: 'pdf-tools', description: 'd', metadata: { n: 1 } } },
      /"metadata" must map strings to strings/,
    ],
    [
      'an empty compatibility',
      { frontmatter: { name: 'pdf-tools', description: 'd', compatibility: '' } },
      /"compatibility" must be a string of 1 to 500/,
    ],
  ])('refuses %s', (_title, overrides, reason) => {
    expect(skillProblem(definition(overrides))).toMatch(reason);
  });

  it('refuses more than 512 files and more than 16 MiB', () => {
    const many = new Map([['SKILL.md', bytes('x')]]);
    for (let index = 0; index < SKILL_LIMITS.files; index += 1) {
      many.set(`f${index}`, bytes('x'));
    }
    expect(skillProblem(definition({ files: many }))).toMatch(/holds 513 files, more than the 512/);
    const large = new Map([
      ['SKILL.md', new Uint8Array(SKILL_LIMITS.bytes)],
      ['one-more', new Uint8Array(1)],
    ]);
    expect(skillProblem(definition({ files: large }))).toMatch(/hold 16777217 bytes, more than the 16777216/);
    const exact = new Map([['SKILL.md', new Uint8Array(SKILL_LIMITS.bytes)]]);
    expect(skillProblem(definition({ files: exact }))).toBeUndefined();
  });
});
