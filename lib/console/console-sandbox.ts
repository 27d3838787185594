/**
 * The sandbox proxy of the console's MCP Apps host (the Apps extension, `io.modelcontextprotocol/ui`,
 * 2026-01-26, "Sandbox proxy"): `GET <console>/sandbox?csp=<json>` answers a small page the
 * console frames with `sandbox="allow-scripts"` (an opaque origin, never the console's), whose
 * inline script (console-ui/sandbox-proxy.js) loads the view's HTML into an inner `srcdoc` frame and
 * relays the `ui/*` messages between it and the console.
 *
 * The page's Content-Security-Policy is the view's, built here from the resource's declared
 * domains (`_meta.ui.csp`, which the console passes in `csp`): a `srcdoc` document inherits the
 * policy of the page that holds it, so the view runs under exactly this policy, the restrictive
 * default of the extension when nothing is declared, and never anything the resource did not
 * declare. Every declared source is checked to be an origin (scheme, host, optional port and
 * path) before it goes into the header: a quote, a semicolon or a keyword is refused, and so
 * would be any way to widen the policy.
 */

/** The domains an MCP App's resource declares in `_meta.ui.csp` (2026-01-26). */
export interface McpAppCsp {
  /** Origins for fetch/XHR/WebSocket (`connect-src`). */
  readonly connectDomains?: readonly string[];
  /** Origins for scripts, styles, images, fonts and media. */
  readonly resourceDomains?: readonly string[];
  /** Origins for nested frames (`frame-src`). */
  readonly frameDomains?: readonly string[];
  /** Allowed base URIs (`base-uri`). */
  readonly baseUriDomains?: readonly string[];
}

/** The console's file that the sandbox page holds inline. */
export const SANDBOX_PROXY_SCRIPT = 'sandbox-proxy.js';

/** The fields of {@link McpAppCsp}, in the order the policy lists them. */
const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

/** The longest `csp` query value read (the JSON, URL-decoded), in characters. */
export const MAX_SANDBOX_CSP_LENGTH = 8192;
/** The most sources one field of `csp` may list. */
export const MAX_SANDBOX_CSP_SOURCES = 64;
/** The longest source read. */
const MAX_SOURCE_LENGTH = 512;

/**
 * One CSP host-source the console accepts from a resource: an http(s) or ws(s) origin, its host
 * optionally `*.`-prefixed, an optional port (or `*`) and an optional path of plain characters.
 * Linear: every repeated group starts with a character the one before it cannot hold.
 */
const SOURCE = /^(?:https?|wss?):\/\/(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:\d{1,5}|\*))?(?:\/[a-z0-9._~%/-]*)?$/i;

/** Why a `csp` query value was refused (the sandbox answers 400 with this message). */
export class SandboxCspError extends Error {}

/**
 * The declared domains of a `csp` query value (JSON of {@link McpAppCsp}); an empty object when
 * there is none. Throws {@link SandboxCspError} for anything else: too long, not JSON, an
 * unknown field, too many sources or a source that is not an origin.
 */
export function parseSandboxCsp(raw: string | null | undefined): McpAppCsp {
  if (raw === null || raw === undefined || raw === '') {
    return {};
  }
  if (raw.length > MAX_SANDBOX_CSP_LENGTH) {
    throw new SandboxCspError(`csp is longer than ${MAX_SANDBOX_CSP_LENGTH} characters`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new SandboxCspError('csp is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SandboxCspError('csp is not an object');
  }
  const csp: Record<string, readonly string[]> = {};
  for (const [field, sources] of Object.entries(value)) {
    if (!(CSP_FIELDS as readonly string[]).includes(field)) {
      throw new SandboxCspError(`csp has an unknown field ${JSON.stringify(field.slice(0, 64))}`);
    }
    if (!Array.isArray(sources) || sources.length > MAX_SANDBOX_CSP_SOURCES) {
      throw new SandboxCspError(`csp.${field} is not a list of at most ${MAX_SANDBOX_CSP_SOURCES} origins`);
    }
    for (const source of sources as unknown[]) {
      if (typeof source !== 'string' || source.length > MAX_SOURCE_LENGTH || !SOURCE.test(source)) {
        throw new SandboxCspError(`csp.${field} holds ${JSON.stringify(String(source).slice(0, 64))}, not an origin`);
      }
    }
    csp[field] = sources as string[];
  }
  return csp;
}

/**
 * The Content-Security-Policy of a view that declared `csp`: the extension's restrictive default
 * (no connection, no frame, scripts and styles of its own document only), widened by exactly the
 * declared origins, with `object-src 'none'` and no form submission. `connect-src` lists the
 * declared origins only (not `'self'`, the console's origin: a view talks to its server through
 * the host, never to the console's endpoint).
 */
export function appViewCsp(csp: McpAppCsp = {}): string {
  const list = (sources: readonly string[] | undefined): string =>
    sources === undefined || sources.length === 0 ? '' : ` ${sources.join(' ')}`;
  const resources = list(csp.resourceDomains);
  const connect = list(csp.connectDomains);
  const frames = list(csp.frameDomains);
  const bases = list(csp.baseUriDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${resources}`,
    `style-src 'self' 'unsafe-inline'${resources}`,
    `img-src 'self' data:${resources}`,
    `font-src 'self'${resources}`,
    `media-src 'self' data:${resources}`,
    connect === '' ? "connect-src 'none'" : `connect-src${connect}`,
    frames === '' ? "frame-src 'none'" : `frame-src${frames}`,
    "object-src 'none'",
    bases === '' ? "base-uri 'self'" : `base-uri${bases}`,
    "form-action 'none'",
  ].join('; ');
}

/**
 * The headers of the sandbox page: the view's policy, and framed by the console only
 * (`frame-ancestors 'self'`; the console's own page may frame it, no other site).
 */
export function sandboxHeaders(csp: McpAppCsp = {}): Record<string, string> {
  return {
    'content-security-policy': `${appViewCsp(csp)}; frame-ancestors 'self'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'SAMEORIGIN',
    'cache-control': 'no-store',
  };
}

/**
 * The sandbox page: console-ui/sandbox-proxy.js inline, and nothing else. Inline, because the
 * page runs in an opaque origin, whose requests carry `Origin: null`, which the console's Origin
 * check refuses; the view's policy allows inline scripts anyway (its own are).
 */
export function sandboxPage(script: string): string {
  if (/<\/script/i.test(script)) {
    throw new Error('The sandbox proxy script holds "</script": it cannot be inlined');
  }
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>MCP App sandbox</title>\n' +
    '<style>html,body{margin:0;height:100%;overflow:hidden;background:transparent}' +
    'iframe{display:block;border:0;width:100%;height:100%}</style>\n' +
    `<script>${script}</script>\n` +
    '</head><body></body></html>\n'
  );
}
