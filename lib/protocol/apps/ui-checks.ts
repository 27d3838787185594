/**
 * The checks of what an application declares for MCP Apps, run once at startup: a view's
 * `ui://` URI, its `_meta.ui` (CSP origins, permissions, domain, border), and a tool's link to
 * its view. Each returns where the declaration is wrong and why, for the caller to name the
 * option or the entry; none ever sees a client's input.
 */
import { isJsonObject } from '../messages/json-rpc';
import { UI_SCHEME } from './apps';

/** Where a declaration is wrong (`.csp.connectDomains[1]`, `''` for the value itself) and why. */
export interface UiProblem {
  readonly at: string;
  readonly reason: string;
}

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
const VISIBILITIES = ['model', 'app'] as const;
const ORIGIN_SCHEMES = new Set(['https:', 'http:', 'wss:', 'ws:']);
const WILDCARD = '*.';

/** Why `uri` is not a UI resource URI (`ui://` and something after it, no spaces), or `undefined`. */
export function uiUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !uri.startsWith(UI_SCHEME) || uri.length === UI_SCHEME.length || /\s/.test(uri)) {
    return `must be a ui:// URI such as "ui://notes/note-card" (got ${JSON.stringify(uri)})`;
  }
  return undefined;
}

/**
 * Why `value` is not an origin a CSP list may name, or `undefined`: a scheme (https, http, wss,
 * ws) and a host, an optional port, nothing after (no path, query or credentials), written as a
 * URL parser writes it back, so that what the host is told is what was meant. A leading `*.` in
 * the host stands for any subdomain; no other wildcard is taken.
 */
export function originProblem(value: unknown): string | undefined {
  const expected = 'must be an origin such as "https://api.example.com" or "https://*.example.com"';
  if (typeof value !== 'string' || value.length === 0) {
    return `${expected} (got ${JSON.stringify(value)})`;
  }
  const scheme = value.indexOf('://');
  const hostStart = scheme + 3;
  const wildcard = scheme > 0 && value.startsWith(WILDCARD, hostStart);
  // The wildcard label stands in as a plain one for the parser; any other `*` is refused.
  const candidate = wildcard ? `${value.slice(0, hostStart)}x${value.slice(hostStart + 1)}` : value;
  if (candidate.includes('*')) {
    return `${expected}: a wildcard may only be a leading "*." of the host (got ${JSON.stringify(value)})`;
  }
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return `${expected} (got ${JSON.stringify(value)})`;
  }
  if (!ORIGIN_SCHEMES.has(url.protocol) || url.hostname.length === 0 || url.origin !== candidate) {
    return `${expected}, without path or trailing slash, in lower case (got ${JSON.stringify(value)})`;
  }
  return undefined;
}

function cspProblem(csp: unknown): UiProblem | undefined {
  if (!isJsonObject(csp)) {
    return { at: '.csp', reason: `must be an object of ${CSP_KEYS.join(', ')}` };
  }
  for (const [key, domains] of Object.entries(csp)) {
    if (!(CSP_KEYS as readonly string[]).includes(key)) {
      return { at: `.csp.${key}`, reason: `is not a CSP list of MCP Apps (${CSP_KEYS.join(', ')})` };
    }
    if (domains === undefined) {
      continue;
    }
    if (!Array.isArray(domains)) {
      return { at: `.csp.${key}`, reason: 'must be an array of origins' };
    }
    for (const [index, domain] of domains.entries()) {
      const reason = originProblem(domain);
      if (reason !== undefined) {
        return { at: `.csp.${key}[${index}]`, reason };
      }
    }
  }
  return undefined;
}

function permissionsProblem(permissions: unknown): UiProblem | undefined {
  if (!isJsonObject(permissions)) {
    return { at: '.permissions', reason: `must be an object of ${PERMISSION_KEYS.join(', ')}` };
  }
  for (const [key, granted] of Object.entries(permissions)) {
    if (!(PERMISSION_KEYS as readonly string[]).includes(key)) {
      return { at: `.permissions.${key}`, reason: `is not a permission of MCP Apps (${PERMISSION_KEYS.join(', ')})` };
    }
    const asked =
      granted === undefined || granted === true || (isJsonObject(granted) && Object.keys(granted).length === 0);
    if (!asked) {
      return { at: `.permissions.${key}`, reason: 'must be {} or true' };
    }
  }
  return undefined;
}

/** What is wrong with a view's rendering settings (`csp`, `permissions`, `domain`, `prefersBorder`). */
export function uiResourceMetaProblem(meta: {
  readonly csp?: unknown;
  readonly permissions?: unknown;
  readonly domain?: unknown;
  readonly prefersBorder?: unknown;
}): UiProblem | undefined {
  if (meta.csp !== undefined) {
    const problem = cspProblem(meta.csp);
    if (problem !== undefined) {
      return problem;
    }
  }
  if (meta.permissions !== undefined) {
    const problem = permissionsProblem(meta.permissions);
    if (problem !== undefined) {
      return problem;
    }
  }
  if (
    meta.domain !== undefined &&
    (typeof meta.domain !== 'string' || meta.domain.length === 0 || /\s/.test(meta.domain))
  ) {
    return { at: '.domain', reason: 'must be a non-empty string without spaces' };
  }
  if (meta.prefersBorder !== undefined && typeof meta.prefersBorder !== 'boolean') {
    return { at: '.prefersBorder', reason: 'must be a boolean' };
  }
  return undefined;
}

/** What is wrong with a tool's link to its view (`{ resourceUri?, visibility? }`). */
export function toolUiProblem(ui: unknown): UiProblem | undefined {
  if (!isJsonObject(ui)) {
    return { at: '', reason: 'must be an object { resourceUri?, visibility? }' };
  }
  const { resourceUri, visibility } = ui;
  // Both are optional in the extension's text, but one must be there for `ui` to say anything.
  if (resourceUri === undefined && visibility === undefined) {
    return { at: '', reason: 'must name a view (resourceUri), who may use the tool (visibility), or both' };
  }
  const uriProblem = resourceUri === undefined ? undefined : uiUriProblem(resourceUri);
  if (uriProblem !== undefined) {
    return { at: '.resourceUri', reason: uriProblem };
  }
  if (
    visibility !== undefined &&
    !(
      Array.isArray(visibility) &&
      visibility.length > 0 &&
      visibility.every((item) => (VISIBILITIES as readonly unknown[]).includes(item)) &&
      new Set(visibility).size === visibility.length
    )
  ) {
    return { at: '.visibility', reason: `must be a non-empty array of ${VISIBILITIES.join(', ')}, each once` };
  }
  return undefined;
}
