/**
 * The MCP revisions this server knows, the era each belongs to, and the features each one
 * defines. Revisions are looked up in this table and ordered by their index in it; they are
 * never compared as strings.
 */

/** The protocol revisions, oldest first. */
export const MCP_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** A protocol revision this server implements. */
export type McpRevision = (typeof MCP_REVISIONS)[number];

/**
 * The two eras of MCP: `legacy` revisions open with an `initialize` handshake and may keep a
 * session; `modern` revisions are stateless and carry their version in every request's `_meta`.
 */
export type McpEra = 'legacy' | 'modern';

/** Features whose presence depends on the revision. */
export type RevisionFeature =
  | 'batch'
  | 'audioContent'
  | 'toolAnnotations'
  | 'completionsCapability'
  | 'progressMessage'
  | 'title'
  | 'outputSchema'
  | 'resourceLinks'
  | 'elicitation'
  | 'protocolVersionHeader'
  | 'icons'
  | 'implementationDescription'
  | 'elicitationUrl'
  | 'samplingTools'
  | 'coreTasks'
  /** SEP-1699: SSE streams open with a priming event and a `retry` field; the server may close a connection mid-call. */
  | 'ssePolling'
  | 'tasksExtension'
  | 'outputSchemaAnyRoot'
  | 'resultType'
  | 'cacheHints';

interface RevisionInfo {
  readonly era: McpEra;
  readonly features: ReadonlySet<RevisionFeature>;
}

const BASE_2025_03: RevisionFeature[] = ['audioContent', 'toolAnnotations', 'completionsCapability', 'progressMessage'];
const BASE_2025_06: RevisionFeature[] = [
  ...BASE_2025_03,
  'title',
  'outputSchema',
  'resourceLinks',
  'elicitation',
  'protocolVersionHeader',
];
const BASE_2025_11: RevisionFeature[] = [
  ...BASE_2025_06,
  'icons',
  'implementationDescription',
  'elicitationUrl',
  'samplingTools',
];

/** The feature table: one row per revision. */
const TABLE: Readonly<Record<McpRevision, RevisionInfo>> = {
  '2024-11-05': { era: 'legacy', features: new Set<RevisionFeature>(['batch']) },
  '2025-03-26': { era: 'legacy', features: new Set<RevisionFeature>(['batch', ...BASE_2025_03]) },
  '2025-06-18': { era: 'legacy', features: new Set<RevisionFeature>(BASE_2025_06) },
  '2025-11-25': { era: 'legacy', features: new Set<RevisionFeature>([...BASE_2025_11, 'coreTasks', 'ssePolling']) },
  '2026-07-28': {
    era: 'modern',
    features: new Set<RevisionFeature>([
      ...BASE_2025_11,
      'tasksExtension',
      'outputSchemaAnyRoot',
      'resultType',
      'cacheHints',
    ]),
  },
};

/** The newest revision. */
export const MCP_LATEST_REVISION: McpRevision = '2026-07-28';
/** The newest handshake revision: the counter-offer of `initialize` when the client's is unknown. */
export const LATEST_LEGACY_REVISION: McpRevision = '2025-11-25';
/**
 * The revision assumed for a legacy request that carries no `MCP-Protocol-Version` header and
 * has no negotiated version to fall back on (the transport rule of 2025-06-18).
 */
export const DEFAULT_LEGACY_HEADER_REVISION: McpRevision = '2025-03-26';

/** Whether `value` names a revision this server implements. */
export function isRevision(value: unknown): value is McpRevision {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(TABLE, value);
}

/** The era of a revision, or `undefined` when the value is not a known revision. */
export function eraOf(value: unknown): McpEra | undefined {
  return isRevision(value) ? TABLE[value].era : undefined;
}

/** The position of a revision in {@link MCP_REVISIONS}; used for ordering. */
function indexOf(revision: McpRevision): number {
  return MCP_REVISIONS.indexOf(revision);
}

/**
 * Whether `revision` is `minimum` or newer. An unknown revision satisfies no minimum.
 */
export function isAtLeast(revision: string | undefined, minimum: McpRevision): boolean {
  return isRevision(revision) && indexOf(revision) >= indexOf(minimum);
}

/**
 * Whether a revision defines a feature. When no revision is known yet (a legacy request
 * before `initialize`), every feature counts as present except batching and the era-specific
 * ones, so that a probe does not see a poorer server than the one it will talk to.
 */
export function hasFeature(revision: string | undefined, feature: RevisionFeature): boolean {
  if (revision === undefined) {
    return !UNNEGOTIATED_ABSENT.has(feature);
  }
  return isRevision(revision) && TABLE[revision].features.has(feature);
}

const UNNEGOTIATED_ABSENT: ReadonlySet<RevisionFeature> = new Set<RevisionFeature>([
  'batch',
  'coreTasks',
  // Older clients may choke on a priming event's empty data: none until a revision says so.
  'ssePolling',
  'tasksExtension',
  'outputSchemaAnyRoot',
  'resultType',
  'cacheHints',
]);

/** The revisions of one era, oldest first. */
export function revisionsOfEra(era: McpEra): McpRevision[] {
  return MCP_REVISIONS.filter((revision) => TABLE[revision].era === era);
}

/** Sorts revisions newest first, dropping duplicates. */
export function newestFirst(revisions: readonly McpRevision[]): McpRevision[] {
  return [...new Set(revisions)].sort((a, b) => indexOf(b) - indexOf(a));
}

/**
 * Reads the `MCP-Protocol-Version` header of a legacy request against the legacy revisions the
 * server accepts: the revision it names, `undefined` without a header, or the message of the
 * 400 a bad value gets.
 */
export function legacyHeaderRevision(
  headerVersion: string | undefined,
  supported: readonly McpRevision[],
): { readonly revision: McpRevision | undefined } | { readonly error: string } {
  if (headerVersion === undefined) {
    return { revision: undefined };
  }
  if (!isRevision(headerVersion) || eraOf(headerVersion) !== 'legacy' || !supported.includes(headerVersion)) {
    return {
      error: `Bad Request: unsupported MCP-Protocol-Version ${headerVersion}; supported: ${supported.join(', ')}`,
    };
  }
  return { revision: headerVersion };
}
