/**
 * The console's HTML page: a shell that loads the browser modules, with the paths they need in
 * `<meta>` elements. No inline script or style (the Content-Security-Policy allows neither), and
 * nothing of the server's configuration but its endpoint paths.
 */

/** The full paths (global prefix and version included) of a server's HTTP endpoints, as the page names them. */
export interface ConsoleEndpoints {
  readonly streamable: string;
  readonly simple?: string;
  readonly sse?: string;
  readonly sseMessages?: string;
}

/** What a page is built from. */
export interface ConsolePageInput {
  /** The endpoints of this server, for this request's prefix and version. */
  readonly endpoints: ConsoleEndpoints;
  /** The path the files are under: the page's own path + `/assets`. */
  readonly assetsPath: string;
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * A value escaped for an attribute quoted with `quote`: `&`, `<`, `>` and that quote (the other
 * quote stands for itself, so the JSON of a single-quoted attribute stays readable).
 */
export function escapeAttribute(value: string, quote: '"' | "'" = '"'): string {
  return value.replace(quote === '"' ? /[&<>"]/g : /[&<>']/g, (char) => ENTITIES[char]);
}

/** The page (see the file comment), as the console contract lays it out. */
export function consolePage({ endpoints, assetsPath }: ConsolePageInput): string {
  const listed = Object.fromEntries(Object.entries(endpoints).filter(([, path]) => path !== undefined));
  const asset = (file: string): string => escapeAttribute(`${assetsPath}/${file}`);
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    `<meta name="mcp-endpoint" content="${escapeAttribute(endpoints.streamable)}">\n` +
    `<meta name="mcp-endpoints" content='${escapeAttribute(JSON.stringify(listed), "'")}'>\n` +
    '<title>MCP console</title>\n' +
    `<link rel="icon" type="image/svg+xml" href="${asset('icon.svg')}">\n` +
    `<link rel="stylesheet" href="${asset('console.css')}">\n` +
    `<script type="module" src="${asset('app.js')}"></script>\n` +
    '</head><body><main id="app"><noscript>The MCP console needs JavaScript.</noscript></main></body></html>\n'
  );
}
