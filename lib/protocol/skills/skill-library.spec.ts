import { SkillLibrary } from './skill-library';
import type { SkillDefinition } from './skill-entry';

const bytes = (text: string) => Buffer.from(text, 'utf8');

function skill(path: string, files: string[], scopes: string[] = []): SkillDefinition {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return {
    path,
    frontmatter: { name, description: `the ${name} skill` },
    files: new Map(['SKILL.md', ...files].map((file) => [file, bytes(`${path}/${file}`)])),
    scopes,
  };
}

describe('SkillLibrary', () => {
  const library = new SkillLibrary(true, 5_000);
  library.add(skill('pdf-tools', ['templates/invoice.md', 'templates/regional/eu.md', 'scripts/run.py']));
  library.add(skill('acme/refunds', [], ['billing:read']));
  // A nested skill: its files are the outer skill's too.
  library.add(skill('outer', ['inner/SKILL.md', 'inner/notes.md']));
  library.add({
    ...skill('outer/inner', ['notes.md']),
    files: new Map([
      ['SKILL.md', bytes('outer/inner/SKILL.md')],
      ['notes.md', bytes('outer/inner/notes.md')],
    ]),
  });

  it('lists the skills by URI', () => {
    expect(library.list().map((entry) => entry.uri)).toEqual([
      'skill://acme/refunds/SKILL.md',
      'skill://outer/SKILL.md',
      'skill://outer/inner/SKILL.md',
      'skill://pdf-tools/SKILL.md',
    ]);
    expect(library.size).toBe(4);
  });

  it('finds a skill by the URI of its SKILL.md only', () => {
    expect(library.skill('skill://pdf-tools/SKILL.md')?.name).toBe('pdf-tools');
    expect(library.skill('skill://pdf-tools')).toBeUndefined();
    expect(library.skill('skill://pdf-tools/templates/invoice.md')).toBeUndefined();
  });

  it('refuses a skill served already, and an invalid one, with the reason', () => {
    expect(library.add(skill('pdf-tools', []))).toBe('a skill is served at skill://pdf-tools/SKILL.md already');
    expect(library.add(skill('Bad', []))).toMatch(/its name must hold only/);
  });

  it("lists a directory's direct children, subdirectories as inode/directory, by URI", () => {
    expect(library.directory('skill://pdf-tools')?.children).toEqual([
      { uri: 'skill://pdf-tools/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: 18 },
      { uri: 'skill://pdf-tools/scripts', name: 'scripts', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-tools/templates', name: 'templates', mimeType: 'inode/directory' },
    ]);
    expect(library.directory('skill://pdf-tools/templates')?.children.map((child) => child.name)).toEqual([
      'invoice.md',
      'regional',
    ]);
    expect(library.directory('skill://pdf-tools/templates/regional')?.children).toHaveLength(1);
  });

  it('knows no directory at a file, a trailing slash, a prefix or an unknown URI', () => {
    for (const uri of ['skill://pdf-tools/SKILL.md', 'skill://pdf-tools/', 'skill://acme', 'skill://nothing']) {
      expect(library.directory(uri)).toBeUndefined();
    }
  });

  it('gives a nested skill its own entry while its files stay the enclosing skill’s too', () => {
    expect(library.file('skill://outer/inner/notes.md')?.skills.map((owner) => owner.path)).toEqual([
      'outer',
      'outer/inner',
    ]);
    expect(library.directory('skill://outer/inner')?.skills.map((owner) => owner.path)).toEqual([
      'outer',
      'outer/inner',
    ]);
    const outer = library.skill('skill://outer/SKILL.md')!;
    expect(outer.files.map((file) => file.path)).toEqual(['SKILL.md', 'inner/SKILL.md', 'inner/notes.md']);
  });

  it('keeps the scopes and settings', () => {
    expect(library.skill('skill://acme/refunds/SKILL.md')?.scopes).toEqual(['billing:read']);
    expect(library.directoryRead).toBe(true);
    expect(library.ttlMs).toBe(5_000);
  });
});
