import { relativePathProblem, skillNameProblem } from './skill-names';

describe('skillNameProblem (Agent Skills naming rules)', () => {
  it.each(['a', 'pdf-tools', 'notes-workflow', 'v2', 'a1-b2-c3', 'x'.repeat(64)])('takes %s', (name) => {
    expect(skillNameProblem(name)).toBeUndefined();
  });

  it.each<[unknown, RegExp]>([
    ['', /non-empty/],
    [42, /non-empty string/],
    ['x'.repeat(65), /at most 64 characters \(got 65\)/],
    ['Pdf', /lowercase letters, digits and hyphens/],
    ['pdf_tools', /lowercase letters, digits and hyphens/],
    ['pdf tools', /lowercase letters, digits and hyphens/],
    ['é', /lowercase letters, digits and hyphens/],
    ['-pdf', /start or end with a hyphen/],
    ['pdf-', /start or end with a hyphen/],
    ['pdf--tools', /two hyphens in a row/],
  ])('refuses %p', (name, reason) => {
    expect(skillNameProblem(name)).toMatch(reason);
  });
});

describe('relativePathProblem', () => {
  it.each(['SKILL.md', 'references/tags.md', 'a/b/c.txt', 'Q&A #1.md', '100%.md'])('takes %s', (path) => {
    expect(relativePathProblem(path)).toBeUndefined();
  });

  it.each(['', '/abs', 'trailing/', 'a//b', './a', 'a/../b', '..', 'a\\b', 'a\nb', 'a\u007fb'])(
    'refuses %p',
    (path) => {
      expect(relativePathProblem(path)).toBeDefined();
    },
  );
});
