/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): its declaration, its limits,
 * and one skill turned into what is served: each file's URI, size, SHA-256 digest and media
 * type, checked once, and the `Skill` entry that `skills/list` and `skills/get` answer with.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type JSONObject } from '../messages/json-rpc';
import type { McpExtension } from '../extensions/extensions';
import { relativePathProblem, skillNameProblem } from './skill-names';

/** The id of the Skills extension. */
export const MCP_SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The URI scheme skills are served under. */
export const SKILL_SCHEME = 'skill://';

/** The file every skill holds at its root. */
export const SKILL_FILE = 'SKILL.md';

/** The media type of a directory resource. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** The per-skill limits every host accepts; a skill over either is refused at startup. */
export const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** The extension as the server declares it, in both eras: `directoryRead` when it serves directory reads. */
export function skillsExtension(directoryRead: boolean): McpExtension {
  return Object.freeze({ id: MCP_SKILLS_EXTENSION, settings: directoryRead ? { directoryRead: true } : {} });
}

/**
 * One skill as the application gives it: where it is served, its frontmatter as parsed, its files
 * (the bytes of each, `SKILL.md` among them) and the scopes a caller needs to see it.
 */
export interface SkillDefinition {
  /** The skill's path in the namespace (`notes-workflow`, `acme/billing/refunds`); its last segment is its name. */
  readonly path: string;
  /** The frontmatter of its `SKILL.md`, parsed, as the author wrote it. */
  readonly frontmatter: JSONObject;
  /** Every file of the skill by its path relative to the skill's root (`SKILL.md`, `references/tags.md`). */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** Scopes a caller must all hold to see and read the skill; none when empty. */
  readonly scopes: readonly string[];
}

/** One file of a served skill. */
export interface ServedSkillFile {
  readonly uri: string;
  /** Its path relative to the skill's root. */
  readonly path: string;
  readonly mimeType: string;
  readonly bytes: Uint8Array;
  /** The bytes as text when they are text (UTF-8 that decodes and encodes back to the same bytes). */
  readonly text?: string;
  readonly size: number;
  /** `sha256:` and the 64 lowercase hexadecimal characters of the bytes' SHA-256. */
  readonly digest: string;
}

/** One skill as it is served. */
export interface ServedSkill {
  readonly path: string;
  readonly name: string;
  /** The URI of its `SKILL.md`: the skill's identity. */
  readonly uri: string;
  /** The URI of its root directory (no trailing slash). */
  readonly rootUri: string;
  readonly frontmatter: JSONObject;
  readonly scopes: readonly string[];
  /** Its files, sorted by URI. */
  readonly files: readonly ServedSkillFile[];
  /** The `Skill` entry, rendered once. */
  readonly entry: JSONObject;
}

/**
 * `path` as a URI path: each segment percent-encoded, so that the URI is the one a client's URL
 * parser keeps as it is (a space, `#` or `?` in a file name would otherwise change the URI).
 */
export function uriPathOf(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** `sha256:{hex}` of `bytes`. */
export function skillDigest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  xml: 'application/xml',
  toml: 'application/toml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

const TEXT_APPLICATION_TYPES = new Set(['application/json', 'application/yaml', 'application/xml', 'application/toml']);

/** The media type of a file, by its extension; `application/octet-stream` when unknown. */
export function skillMimeType(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const extension = dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
  return Object.hasOwn(MIME_TYPES, extension) ? MIME_TYPES[extension] : 'application/octet-stream';
}

/** The bytes as text, when the media type is a text one and the bytes are UTF-8 that round-trips. */
function textOf(bytes: Uint8Array, mimeType: string): string | undefined {
  if (!mimeType.startsWith('text/') && !TEXT_APPLICATION_TYPES.has(mimeType) && mimeType !== 'image/svg+xml') {
    return undefined;
  }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString('utf8');
  // A lossy decoding (invalid UTF-8) would make the text's bytes differ from the digest's.
  return Buffer.byteLength(text, 'utf8') === buffer.length && Buffer.from(text, 'utf8').equals(buffer)
    ? text
    : undefined;
}

/** The length of `text` in characters (code points). */
function characters(text: string): number {
  let count = 0;
  for (const _char of text) {
    count += 1;
  }
  return count;
}

/**
 * The other rules Agent Skills sets on frontmatter fields, which hosts check on every entry: a
 * description of at most 1024 characters, a `compatibility` string of 1 to 500, a `metadata`
 * that maps strings to strings.
 */
function agentSkillsFieldProblem(frontmatter: JSONObject): string | undefined {
  if (characters(frontmatter.description as string) > 1024) {
    return '"description" must be at most 1024 characters';
  }
  const { compatibility, metadata } = frontmatter;
  if (
    compatibility !== undefined &&
    (typeof compatibility !== 'string' || compatibility.length === 0 || characters(compatibility) > 500)
  ) {
    return '"compatibility" must be a string of 1 to 500 characters';
  }
  if (
    metadata !== undefined &&
    !(isJsonObject(metadata) && Object.values(metadata).every((value) => typeof value === 'string'))
  ) {
    return '"metadata" must map strings to strings';
  }
  return undefined;
}

/** What is wrong with one skill, or `undefined`: checked once, at startup, where the skill is declared. */
export function skillProblem(definition: SkillDefinition): string | undefined {
  const pathProblem = relativePathProblem(definition.path);
  if (pathProblem !== undefined) {
    return `its path ${pathProblem}`;
  }
  const { frontmatter } = definition;
  if (!isJsonObject(frontmatter)) {
    return `its ${SKILL_FILE} must begin with YAML frontmatter that is a mapping`;
  }
  for (const field of ['name', 'description'] as const) {
    if (typeof frontmatter[field] !== 'string' || frontmatter[field].length === 0) {
      return `the frontmatter of its ${SKILL_FILE} must have a non-empty string "${field}"`;
    }
  }
  const fieldProblem = agentSkillsFieldProblem(frontmatter);
  if (fieldProblem !== undefined) {
    return `the frontmatter of its ${SKILL_FILE}: ${fieldProblem}`;
  }
  const nameProblem = skillNameProblem(frontmatter.name);
  if (nameProblem !== undefined) {
    return `its name ${nameProblem}`;
  }
  const last = definition.path.slice(definition.path.lastIndexOf('/') + 1);
  if (last !== frontmatter.name) {
    return `its directory "${last}" must be its frontmatter name "${String(frontmatter.name)}"`;
  }
  if (!definition.files.has(SKILL_FILE)) {
    return `it must hold a ${SKILL_FILE} at its root`;
  }
  let bytes = 0;
  const directories = new Set<string>();
  for (const [path, content] of definition.files) {
    const problem = relativePathProblem(path);
    if (problem !== undefined) {
      return `the file path ${problem}`;
    }
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      directories.add(path.slice(0, slash));
    }
    bytes += content.byteLength;
  }
  const both = [...definition.files.keys()].find((path) => directories.has(path));
  if (both !== undefined) {
    return `"${both}" cannot be both a file and a directory`;
  }
  if (definition.files.size > SKILL_LIMITS.files) {
    return `it holds ${definition.files.size} files, more than the ${SKILL_LIMITS.files} every host accepts`;
  }
  if (bytes > SKILL_LIMITS.bytes) {
    return `its files hold ${bytes} bytes, more than the ${SKILL_LIMITS.bytes} (16 MiB) every host accepts`;
  }
  return undefined;
}

/** A valid skill (see `skillProblem`) as it is served: digests computed, entry rendered. */
export function serveSkill(definition: SkillDefinition): ServedSkill {
  const rootUri = SKILL_SCHEME + uriPathOf(definition.path);
  const files = [...definition.files]
    .map(([path, bytes]): ServedSkillFile => {
      const mimeType = skillMimeType(path);
      const text = textOf(bytes, mimeType);
      const file = {
        uri: `${rootUri}/${uriPathOf(path)}`,
        path,
        mimeType,
        bytes,
        size: bytes.byteLength,
        digest: skillDigest(bytes),
      };
      return text === undefined ? file : { ...file, text };
    })
    .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  const uri = `${rootUri}/${SKILL_FILE}`;
  // The frontmatter goes out as the author wrote it: a copy, frozen, that no caller can change.
  const frontmatter = structuredClone(definition.frontmatter);
  const entry: JSONObject = {
    uri,
    frontmatter,
    resources: files.map((file) => ({ uri: file.uri, digest: file.digest, size: file.size })),
  };
  return Object.freeze({
    path: definition.path,
    name: frontmatter.name as string,
    uri,
    rootUri,
    frontmatter,
    scopes: Object.freeze([...definition.scopes]),
    files: Object.freeze(files),
    entry: deepFreeze(entry),
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}
