/**
 * The Jest configuration a docs page gives: the `js` block right after its `<!-- jest-config -->`
 * marker (README.md's Testing section). The specs that run Jest in an app of their own (the
 * consumer apps, the quick start) write it there as it is, so that the page's text is what runs.
 */
export function jestConfigBlock(page: string, markdown: string): string {
  const block = /<!-- jest-config -->\s*```js\n([^]*?)\n```/.exec(markdown);
  if (!block) {
    throw new Error(`${page}: no \`\`\`js block after <!-- jest-config -->`);
  }
  return `${block[1]}\n`;
}
