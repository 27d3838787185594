/**
 * The console's browser files: every file of the console's browser app (`console-ui/` at the
 * repository's root from the sources, `dist/console/ui` once built) whose type is in the table
 * below, and of its `vendor/` folder (the bundles scripts/build-browser-bundles.mjs writes there,
 * named `vendor/<file>`), read once at startup into an allow-list. A request names a file of that
 * list or gets 404: no path reaches the disk.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { LIBRARY_DIRECTORY } from '../shared/library-directory';
import { McpLogger } from '../telemetry/mcp.logger';

/** The content type of each file type served; anything else there (tsconfig.json) is not. */
export const CONSOLE_ASSET_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** One served file. */
export interface ConsoleAsset {
  readonly name: string;
  readonly body: Buffer;
  readonly contentType: string;
  /** A strong ETag: a hash of the bytes, so a changed file is fetched again. */
  readonly etag: string;
}

/**
 * Where the console's browser files are: console-ui/ beside lib/ when this code runs from its
 * TypeScript sources (ts-node, Jest), dist/console/ui in the built package, where the build
 * copies them (scripts/copy-console-ui.mjs).
 */
export const CONSOLE_UI_DIRECTORY = __filename.endsWith('.ts')
  ? join(LIBRARY_DIRECTORY, '..', 'console-ui')
  : join(LIBRARY_DIRECTORY, 'console', 'ui');

/** The allow-list of the console's files (see the file comment). */
export class ConsoleAssets {
  private readonly assets: ReadonlyMap<string, ConsoleAsset>;

  constructor(readonly directory: string = CONSOLE_UI_DIRECTORY) {
    this.assets = readAssets(directory);
  }

  /** The file of that name, if it is one of the list. */
  get(name: string): ConsoleAsset | undefined {
    return this.assets.get(name);
  }

  /** The names served, sorted. */
  names(): string[] {
    return [...this.assets.keys()].sort();
  }
}

function readAssets(directory: string): Map<string, ConsoleAsset> {
  const assets = readFolder(directory, '');
  if (assets.size === 0) {
    return assets;
  }
  for (const [name, asset] of readFolder(join(directory, 'vendor'), 'vendor/', false)) {
    assets.set(name, asset);
  }
  return assets;
}

/** The served files of one folder, named `prefix` + their name; a missing folder warns when `required`. */
function readFolder(directory: string, prefix: string, required = true): Map<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    if (!required) {
      return assets;
    }
    new McpLogger('McpConsole').warn(
      `The MCP console's files are missing (${directory}): its page loads nothing. ` +
        'A build of the package copies them there (npm run build).',
    );
    return assets;
  }
  for (const name of names) {
    const contentType = CONSOLE_ASSET_TYPES[extname(name).toLowerCase()];
    const path = join(directory, name);
    if (contentType === undefined || !statSync(path).isFile()) {
      continue;
    }
    const body = readFileSync(path);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    assets.set(prefix + name, { name: prefix + name, body, contentType, etag });
  }
  return assets;
}

let shared: ConsoleAssets | undefined;

/** The console's browser files, read once per process (every server's console serves the same files). */
export function consoleAssets(): ConsoleAssets {
  shared ??= new ConsoleAssets();
  return shared;
}

/**
 * Whether an `If-None-Match` header names this ETag (or is `*`): the client's copy is current,
 * and the answer is 304. The comparison is the weak one, as RFC 9110 has it for this header.
 */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) {
    return false;
  }
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}
