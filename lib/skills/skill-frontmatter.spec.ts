import { parseFrontmatter } from './skill-frontmatter';

describe('parseFrontmatter', () => {
  it('parses the YAML between the --- lines into JSON, every field as written', () => {
    const markdown =
      '---\nname: pdf\ndescription: "Fill: forms"\nlicense: MIT\nmetadata:\n  version: "1.0"\nallowed-tools: Read Bash\n---\n# Body\n';
    expect(parseFrontmatter(markdown)).toEqual({
      frontmatter: {
        name: 'pdf',
        description: 'Fill: forms',
        license: 'MIT',
        metadata: { version: '1.0' },
        'allowed-tools': 'Read Bash',
      },
    });
  });

  it('takes a byte order mark and CRLF line ends, as hosts do, and a file that ends with the closing line', () => {
    expect(parseFrontmatter('\uFEFF---\r\nname: a\r\ndescription: b\r\n---')).toEqual({
      frontmatter: { name: 'a', description: 'b' },
    });
  });

  it('types values by the YAML 1.2 core schema (no dates, no sexagesimals)', () => {
    expect(parseFrontmatter('---\nname: a\nwhen: 2024-01-01\nn: 1:30\nyes: yes\nx: 0x10\n---\n')).toEqual({
      frontmatter: { name: 'a', when: '2024-01-01', n: '1:30', yes: 'yes', x: 16 },
    });
  });

  it.each([
    ['no frontmatter', '# Title\n', /must begin with YAML frontmatter/],
    ['no closing line', '---\nname: a\n', /no closing "---" line/],
    ['a closing line with more on it', '---\nname: a\n---x\n', /no closing "---" line/],
    ['invalid YAML', '---\nname: [a\n---\n', /not valid YAML/],
    ['a key twice', '---\nname: a\nname: b\n---\n', /not valid YAML/],
    ['a list', '---\n- a\n---\n', /not a mapping/],
    ['an infinity', '---\nname: a\nn: .inf\n---\n', /frontmatter.n is Infinity/],
    ['a __proto__ key', '---\n__proto__: 1\n---\n', /"__proto__" key/],
    ['a tagged binary', '---\nname: a\nb: !!binary aGk=\n---\n', /frontmatter.b is not a plain value/],
  ])('refuses %s', (_title, markdown, problem) => {
    const parsed = parseFrontmatter(markdown);
    expect('problem' in parsed ? parsed.problem : undefined).toMatch(problem);
  });
});
