import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readSkillDirectory } from './skill-directory';

const SKILL = (name: string) => `---\nname: ${name}\ndescription: the ${name} skill\n---\n`;

describe('readSkillDirectory', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

  function tree(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'skill-directory-'));
    roots.push(root);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    return root;
  }

  it('finds every skill, nested ones included, with every file below it but dot names', () => {
    const root = tree({
      'a/SKILL.md': SKILL('a'),
      'a/refs/x.md': 'x',
      'a/.git/config': 'hidden',
      'a/b/SKILL.md': SKILL('b'),
      'team/c/SKILL.md': SKILL('c'),
      'notes.txt': 'not in a skill',
    });
    const skills = readSkillDirectory(root);
    expect(skills.map((skill) => [skill.path, [...skill.files.keys()], skill.frontmatter.name])).toEqual([
      ['a', ['SKILL.md', 'b/SKILL.md', 'refs/x.md'], 'a'],
      ['a/b', ['SKILL.md'], 'b'],
      ['team/c', ['SKILL.md'], 'c'],
    ]);
  });

  it('follows a link that stays inside the directory', () => {
    const root = tree({ 'a/SKILL.md': SKILL('a'), 'shared/terms.md': 'terms' });
    symlinkSync(join(root, 'shared'), join(root, 'a/shared'));
    expect([...readSkillDirectory(root)[0].files.keys()]).toEqual(['SKILL.md', 'shared/terms.md']);
  });

  it('refuses a link to a directory that holds it', () => {
    const root = tree({ 'a/SKILL.md': SKILL('a') });
    symlinkSync(join(root, 'a'), join(root, 'a/again'));
    expect(() => readSkillDirectory(root)).toThrow(/a\/again is a symbolic link to a directory that holds it/);
  });

  it('refuses a SKILL.md at the root', () => {
    expect(() => readSkillDirectory(tree({ 'SKILL.md': SKILL('x') }))).toThrow(
      /put each skill in a directory of its own/,
    );
  });
});
