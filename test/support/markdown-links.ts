/**
 * Finds the links of a Markdown document the way GitHub renders it, for the docs link check:
 * inline links and images, reference links and their definitions, `<...>` autolinks and bare
 * URLs (GitHub links those too), all outside code (fenced blocks and code spans). Also the
 * anchors GitHub gives its headings.
 *
 * Not a full CommonMark parser: indented code blocks are read as text (our documents indent
 * only list continuations), and link destinations with nested parentheses are not supported.
 */

/** How a link was written. */
export type MarkdownLinkKind = 'inline' | 'image' | 'reference' | 'definition' | 'autolink' | 'bare-url';

export interface MarkdownLink {
  readonly kind: MarkdownLinkKind;
  /** 1-based line of the link's start. */
  readonly line: number;
  /** Where it points, as written (a reference link: its definition's destination). */
  readonly destination: string;
  /** Reference links only: the label, and whether a definition for it exists. */
  readonly label?: string;
  readonly defined?: boolean;
}

interface Block {
  /** The block's text, code spans blanked out (newlines kept). */
  readonly text: string;
  /** The line the block starts on (1-based). */
  readonly line: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const DEFINITION = /^ {0,3}\[((?:[^\]\\]|\\.)+)\]:[ \t]*(<[^>\n]*>|\S+)/;

/**
 * The prose of a document in paragraph-like blocks (fenced code left out), so that code spans
 * running over a line break are seen whole.
 */
function proseBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let fence: string | undefined;
  let current: string[] = [];
  let start = 0;
  const flush = (): void => {
    if (current.length > 0) {
      blocks.push({ text: blankCodeSpans(current.join('\n')), line: start });
      current = [];
    }
  };
  markdown.split(/\r?\n/).forEach((line, index) => {
    const opening = FENCE.exec(line);
    if (fence !== undefined) {
      // A closing fence: the same character, at least as long, nothing after it.
      if (
        opening !== null &&
        opening[1][0] === fence[0] &&
        opening[1].length >= fence.length &&
        !/\S/.test(line.slice(line.indexOf(opening[1]) + opening[1].length))
      ) {
        fence = undefined;
      }
      return;
    }
    if (opening !== null) {
      flush();
      fence = opening[1];
      return;
    }
    if (line.trim() === '') {
      flush();
      return;
    }
    if (current.length === 0) {
      start = index + 1;
    }
    current.push(line);
  });
  flush();
  return blocks;
}

/** Replaces every code span (its backticks and content) with spaces, keeping newlines. */
function blankCodeSpans(text: string): string {
  return text.replace(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
}

function lineAt(block: Block, offset: number): number {
  return block.line + (block.text.slice(0, offset).match(/\n/g)?.length ?? 0);
}

/** A reference label as CommonMark matches it: case-insensitive, inner whitespace collapsed. */
function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

function unwrap(destination: string): string {
  return destination.startsWith('<') && destination.endsWith('>') ? destination.slice(1, -1) : destination;
}

/** Every link of `markdown`, in document order per kind. */
export function extractLinks(markdown: string): MarkdownLink[] {
  const blocks = proseBlocks(markdown);
  const definitions = new Map<string, { destination: string; line: number }>();
  for (const block of blocks) {
    block.text.split('\n').forEach((line, index) => {
      const match = DEFINITION.exec(line);
      if (match !== null && !definitions.has(normalizeLabel(match[1]))) {
        definitions.set(normalizeLabel(match[1]), { destination: unwrap(match[2]), line: block.line + index });
      }
    });
  }
  const links: MarkdownLink[] = [...definitions.values()].map(({ destination, line }) => ({
    kind: 'definition',
    line,
    destination,
  }));
  const bracket = String.raw`\[((?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*)\]`;
  const inline = new RegExp(
    String.raw`(!?)${bracket}\(\s*(<[^>\n]*>|[^\s()]*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)`,
    'g',
  );
  const reference = new RegExp(String.raw`(!?)${bracket}\[((?:[^\[\]\\]|\\.)*)\]`, 'g');
  const shortcut = new RegExp(String.raw`(!?)${bracket}(?![(\[:])`, 'g');
  for (const block of blocks) {
    // Each link is blanked once read, so that a later, looser pattern does not read it again.
    let text = block.text.replace(/^ {0,3}\[(?:[^\]\\]|\\.)+\]:.*$/gm, (line) => ' '.repeat(line.length));
    const take = (pattern: RegExp, read: (match: RegExpExecArray) => MarkdownLink | undefined): void => {
      const taken: Array<[number, number]> = [];
      for (const match of text.matchAll(pattern)) {
        const link = read(match);
        if (link !== undefined) {
          links.push(link);
          taken.push([match.index, match.index + match[0].length]);
        }
      }
      for (const [from, to] of taken) {
        text = text.slice(0, from) + text.slice(from, to).replace(/[^\n]/g, ' ') + text.slice(to);
      }
    };
    take(inline, (match) => ({
      kind: match[1] === '!' ? 'image' : 'inline',
      line: lineAt(block, match.index),
      destination: unwrap(match[3]),
    }));
    take(reference, (match) => {
      const label = match[3] === '' ? match[2] : match[3];
      const definition = definitions.get(normalizeLabel(label));
      return {
        kind: 'reference',
        line: lineAt(block, match.index),
        destination: definition?.destination ?? '',
        label,
        defined: definition !== undefined,
      };
    });
    // `[text]` alone is a link only when a definition names it.
    take(shortcut, (match) => {
      const definition = definitions.get(normalizeLabel(match[2]));
      return definition === undefined
        ? undefined
        : {
            kind: 'reference',
            line: lineAt(block, match.index),
            destination: definition.destination,
            label: match[2],
            defined: true,
          };
    });
    take(/<([a-z][a-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>@]+\.[a-z]+)>/gi, (match) => ({
      kind: 'autolink',
      line: lineAt(block, match.index),
      destination: match[1],
    }));
    take(/(?<![\w/])(?:https?:\/\/|www\.)[^\s<>]+/gi, (match) => ({
      kind: 'bare-url',
      line: lineAt(block, match.index),
      // As GitHub does, trailing punctuation ends the sentence, not the URL.
      destination: match[0].replace(/[.,:;!?'")\]]+$/, ''),
    }));
  }
  return links;
}

/**
 * The anchor GitHub gives a heading: its text lower-cased, without punctuation or symbols
 * (letters, digits, `_`, `-` and spaces stay), spaces turned into hyphens.
 */
export function githubSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The text a heading renders as: code spans, links and emphasis reduced to their text. */
function headingText(raw: string): string {
  return raw
    .replace(/(`+)([\s\S]*?[^`])\1/g, (_span, _ticks: string, content: string) => content.trim())
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/!?\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*{1,3}|(?<!\w)_{1,3}|_{1,3}(?!\w))/g, '')
    .trim();
}

/** The in-page anchors of a document: one per heading (repeats numbered -1, -2...), and HTML ids. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const add = (text: string): void => {
    const slug = githubSlug(headingText(text));
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  };
  for (const block of proseBlocks(markdown)) {
    const lines = block.text.split('\n');
    lines.forEach((line, index) => {
      const atx = ATX_HEADING.exec(line);
      if (atx !== null) {
        add(markdownLine(markdown, block.line + index));
        return;
      }
      if (index > 0 && SETEXT_UNDERLINE.test(line) && !ATX_HEADING.test(lines[index - 1])) {
        add(markdownLine(markdown, block.line + index - 1).trim());
      }
    });
    for (const match of block.text.matchAll(/<[a-z][^>]*\s(?:id|name)=["']([^"']+)["']/gi)) {
      anchors.add(match[1]);
    }
  }
  return anchors;
}

/** The text of an ATX heading line (code spans intact), or the line itself. */
function markdownLine(markdown: string, line: number): string {
  const text = markdown.split(/\r?\n/)[line - 1] ?? '';
  const atx = ATX_HEADING.exec(text);
  return atx === null ? text : (atx[2] ?? '');
}
