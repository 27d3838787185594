import {
  DEFAULT_LEGACY_HEADER_REVISION,
  eraOf,
  hasFeature,
  isAtLeast,
  isRevision,
  LATEST_LEGACY_REVISION,
  MCP_LATEST_REVISION,
  newestFirst,
  MCP_REVISIONS,
  revisionsOfEra,
  type McpRevision,
  type RevisionFeature,
} from './revisions';

const R2024_11 = '2024-11-05';
const R2025_03 = '2025-03-26';
const R2025_06 = '2025-06-18';
const R2025_11 = '2025-11-25';
const R2026_07 = '2026-07-28';

/** The revisions that define each feature, written out from the specification changelogs. */
const FEATURE_TABLE: Record<RevisionFeature, readonly McpRevision[]> = {
  batch: [R2024_11, R2025_03],
  audioContent: [R2025_03, R2025_06, R2025_11, R2026_07],
  toolAnnotations: [R2025_03, R2025_06, R2025_11, R2026_07],
  completionsCapability: [R2025_03, R2025_06, R2025_11, R2026_07],
  progressMessage: [R2025_03, R2025_06, R2025_11, R2026_07],
  title: [R2025_06, R2025_11, R2026_07],
  outputSchema: [R2025_06, R2025_11, R2026_07],
  resourceLinks: [R2025_06, R2025_11, R2026_07],
  elicitation: [R2025_06, R2025_11, R2026_07],
  protocolVersionHeader: [R2025_06, R2025_11, R2026_07],
  icons: [R2025_11, R2026_07],
  implementationDescription: [R2025_11, R2026_07],
  elicitationUrl: [R2025_11, R2026_07],
  samplingTools: [R2025_11, R2026_07],
  coreTasks: [R2025_11],
  ssePolling: [R2025_11],
  tasksExtension: [R2026_07],
  outputSchemaAnyRoot: [R2026_07],
  resultType: [R2026_07],
  cacheHints: [R2026_07],
};

const ALL_REVISIONS: McpRevision[] = [R2024_11, R2025_03, R2025_06, R2025_11, R2026_07];
const FEATURES = Object.keys(FEATURE_TABLE) as RevisionFeature[];

/** Features a client sees before any revision is negotiated: everything but batching and era-specific features. */
const ABSENT_WITHOUT_REVISION: readonly RevisionFeature[] = [
  'batch',
  'coreTasks',
  'ssePolling',
  'tasksExtension',
  'outputSchemaAnyRoot',
  'resultType',
  'cacheHints',
];

describe('revisions', () => {
  describe('MCP_REVISIONS and constants', () => {
    it('lists the five dated revisions oldest first', () => {
      expect([...MCP_REVISIONS]).toEqual(ALL_REVISIONS);
    });

    it('names the newest revision, the newest handshake revision and the header default', () => {
      expect(MCP_LATEST_REVISION).toBe(R2026_07);
      expect(LATEST_LEGACY_REVISION).toBe(R2025_11);
      expect(DEFAULT_LEGACY_HEADER_REVISION).toBe(R2025_03);
    });
  });

  describe('isRevision', () => {
    it.each(ALL_REVISIONS)('accepts %s', (revision) => {
      expect(isRevision(revision)).toBe(true);
    });

    it.each([
      ['an unknown date', '2099-01-01'],
      ['the draft label', 'draft'],
      ['an older SDK version', '2024-10-07'],
      ['an empty string', ''],
      ['a prototype key', 'toString'],
      ['__proto__', '__proto__'],
      ['a number', 20261128],
      ['undefined', undefined],
      ['null', null],
    ])('rejects %s', (_label, value) => {
      expect(isRevision(value)).toBe(false);
    });
  });

  describe('eraOf', () => {
    it.each([
      [R2024_11, 'legacy'],
      [R2025_03, 'legacy'],
      [R2025_06, 'legacy'],
      [R2025_11, 'legacy'],
      [R2026_07, 'modern'],
    ])('%s is %s', (revision, era) => {
      expect(eraOf(revision)).toBe(era);
    });

    it.each([['2099-01-01'], ['constructor'], [''], [undefined], [42], [{}]])('%p has no era', (value) => {
      expect(eraOf(value)).toBeUndefined();
    });
  });

  describe('revisionsOfEra', () => {
    it('splits the revisions by era, oldest first', () => {
      expect(revisionsOfEra('legacy')).toEqual([R2024_11, R2025_03, R2025_06, R2025_11]);
      expect(revisionsOfEra('modern')).toEqual([R2026_07]);
    });
  });

  describe('isAtLeast', () => {
    const pairs: Array<[McpRevision, McpRevision, boolean]> = [];
    ALL_REVISIONS.forEach((revision, revisionIndex) => {
      ALL_REVISIONS.forEach((minimum, minimumIndex) => {
        pairs.push([revision, minimum, revisionIndex >= minimumIndex]);
      });
    });

    it.each(pairs)('isAtLeast(%s, %s) is %s', (revision, minimum, expected) => {
      expect(isAtLeast(revision, minimum)).toBe(expected);
    });

    it.each([['2099-01-01'], ['2026-07-29'], ['9999-99-99'], [''], [undefined]])(
      'an unknown revision %p satisfies no minimum, not even the oldest',
      (revision) => {
        expect(isAtLeast(revision, R2024_11)).toBe(false);
      },
    );

    it('does not compare as strings: a later unknown date is not "newer"', () => {
      expect('2027-01-01' > R2026_07).toBe(true);
      expect(isAtLeast('2027-01-01', R2026_07)).toBe(false);
    });
  });

  describe('hasFeature', () => {
    const rows: Array<[RevisionFeature, McpRevision, boolean]> = [];
    for (const feature of FEATURES) {
      for (const revision of ALL_REVISIONS) {
        rows.push([feature, revision, FEATURE_TABLE[feature].includes(revision)]);
      }
    }

    it.each(rows)('%s at %s is %s', (feature, revision, expected) => {
      expect(hasFeature(revision, feature)).toBe(expected);
    });

    it.each(FEATURES)('an unknown revision has no %s', (feature) => {
      expect(hasFeature('2099-01-01', feature)).toBe(false);
      expect(hasFeature('', feature)).toBe(false);
    });

    it.each(FEATURES.map((feature) => [feature, !ABSENT_WITHOUT_REVISION.includes(feature)] as const))(
      'with no revision known yet, %s is %s',
      (feature, expected) => {
        expect(hasFeature(undefined, feature)).toBe(expected);
      },
    );
  });

  describe('newestFirst', () => {
    it('sorts newest first and drops duplicates', () => {
      expect(newestFirst([R2025_03, R2026_07, R2024_11, R2025_03, R2026_07])).toEqual([R2026_07, R2025_03, R2024_11]);
    });

    it('orders by the table, not by insertion', () => {
      expect(newestFirst([...ALL_REVISIONS])).toEqual([...ALL_REVISIONS].reverse());
      expect(newestFirst([R2025_11, R2025_06])).toEqual([R2025_11, R2025_06]);
      expect(newestFirst([R2025_06, R2025_11])).toEqual([R2025_11, R2025_06]);
    });

    it('leaves its input untouched and handles an empty list', () => {
      const input: McpRevision[] = [R2024_11, R2026_07];
      newestFirst(input);
      expect(input).toEqual([R2024_11, R2026_07]);
      expect(newestFirst([])).toEqual([]);
    });
  });
});
