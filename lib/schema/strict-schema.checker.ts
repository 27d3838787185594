/**
 * What ajv's strict mode refuses in a schema, found without compiling it.
 *
 * Compiling a schema with ajv costs about a millisecond (code generation and V8 parsing the
 * generated function); a catalog of 1,000 tools paid a second and a half at startup for
 * validators most of which no call would ever use. A validator is compiled on its first use
 * instead, but a bad schema must still stop the registration: this check finds, at
 * registration, every refusal that compiling would bring, with ajv's own words.
 *
 * It is exact by construction rather than by imitation: it walks only the keywords whose
 * compile-time checks it repeats (the applicators, assertions and annotations of the two
 * dialects), with the keyword table and formats of the module's ajv instances (generated with
 * the meta-schema validators, lib/schema/meta), so that it needs no ajv instance at all. A
 * schema using anything else (references, identifiers and anchors, `$defs`, `nullable`,
 * `$async`, keywords added later) is answered `compile-now`, and ajv itself compiles it at
 * registration as before.
 * `strict-schema.checker.spec.ts` holds both to the same verdicts and messages.
 */

/** Vendor extensions: annotations any schema may carry (`x-mcp-header`, OpenAPI's `x-*`...). */
export const VENDOR_KEYWORD = /^x-/;

/** `checked`: compiling it later will not refuse it. `compile-now`: only ajv can tell. */
export type StrictCheckVerdict = 'checked' | 'compile-now';

/** What the ajv instance the schema will be compiled on knows. */
export interface StrictCheckOptions {
  /** 2020-12 semantics (ajv's `next`: `minContains` and `maxContains` count). */
  readonly next: boolean;
  /** Every keyword the instance knows (ajv's `RULES.keywords`). */
  readonly keywords: ReadonlySet<string>;
  /** The formats the instance asserts; `undefined` when it takes `format` as an annotation. */
  readonly formats: ReadonlySet<string> | undefined;
  /**
   * Compiles a pattern as the instance's `code.regExp` will, throwing as it would; ajv's default
   * (`new RegExp(source, 'u')`) when absent.
   */
  readonly compilePattern?: (source: string) => unknown;
}

/** Keywords whose value is one subschema. */
const SUBSCHEMA = [
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const;

/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

/** Keywords whose value maps names to subschemas (`dependencies` also holds property lists). */
const SUBSCHEMA_MAP = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies'] as const;

/**
 * Every keyword this check models; any other keyword ajv knows means `compile-now`. The data
 * keywords (`enum`, `const`, `default`, `examples`) are never walked into, nor is
 * `contentSchema`, which ajv takes as an annotation and does not compile either.
 */
const MODELLED = new Set<string>([
  ...SUBSCHEMA,
  ...SUBSCHEMA_LIST,
  ...SUBSCHEMA_MAP,
  'items',
  'additionalItems',
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'maxItems',
  'minItems',
  'uniqueItems',
  'minContains',
  'maxContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
]);

/** A JSON pointer segment as ajv writes it in an error's schema path. */
function fragment(segment: string | number): string {
  return typeof segment === 'number'
    ? String(segment)
    : encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks `schema`, already checked against its meta-schema (`checkMetaSchema`), as ajv's strict
 * mode would when compiling it: unknown keywords (a vendor extension `x-*` is an annotation, which
 * the compiler declares to ajv when it compiles), unknown formats, keywords strict mode calls
 * meaningless and patterns that are not regular expressions.
 *
 * @throws Error with the message ajv's compile would throw.
 */
export function checkStrictSchema(schema: Record<string, unknown>, options: StrictCheckOptions): StrictCheckVerdict {
  const { keywords, formats } = options;
  // As ajv builds it (`unicodeRegExp` is on by default): a bad one throws its SyntaxError.
  const compilePattern = options.compilePattern ?? ((source: string) => new RegExp(source, 'u'));

  const pattern = (source: unknown): void => {
    if (typeof source === 'string') {
      compilePattern(source);
    }
  };

  /** False when a keyword of `node` or below is one only ajv can judge. */
  const walk = (node: unknown, path: string, root: boolean): boolean => {
    if (!isSchemaObject(node)) {
      return true; // a boolean schema: the meta-schema allows nothing else here
    }
    for (const keyword in node) {
      if (!keywords.has(keyword)) {
        if (!VENDOR_KEYWORD.test(keyword)) {
          throw new Error(`strict mode: unknown keyword: "${keyword}"`);
        }
      } else if (!MODELLED.has(keyword) && !(root && keyword === '$schema')) {
        return false;
      }
    }
    checkMeaningless(node, options);
    pattern(node.pattern);
    if (formats !== undefined && typeof node.format === 'string' && !formats.has(node.format)) {
      throw new Error(`unknown format "${node.format}" ignored in schema at path "${path}"`);
    }
    const walkList = (list: unknown, listPath: string): boolean =>
      !Array.isArray(list) || list.every((item, index) => walk(item, `${listPath}/${index}`, false));
    for (const keyword of SUBSCHEMA) {
      if (!walk(node[keyword], `${path}/${keyword}`, false)) {
        return false;
      }
    }
    for (const keyword of SUBSCHEMA_LIST) {
      if (!walkList(node[keyword], `${path}/${keyword}`)) {
        return false;
      }
    }
    for (const keyword of SUBSCHEMA_MAP) {
      const map = node[keyword];
      if (isSchemaObject(map)) {
        for (const name of Object.keys(map)) {
          if (keyword === 'patternProperties') {
            pattern(name);
          }
          if (!walk(map[name], `${path}/${keyword}/${fragment(name)}`, false)) {
            return false;
          }
        }
      }
    }
    const { items } = node;
    if (!Array.isArray(items)) {
      return walk(items, `${path}/items`, false);
    }
    // ajv compiles `additionalItems` only beside a list of items (checkMeaningless refused the rest).
    return walkList(items, `${path}/items`) && walk(node.additionalItems, `${path}/additionalItems`, false);
  };

  return walk(schema, '#', true) ? 'checked' : 'compile-now';
}

/** The keywords ajv's strict mode refuses as having no effect where they stand. */
function checkMeaningless(node: Record<string, unknown>, options: StrictCheckOptions): void {
  const refuse = (message: string): never => {
    throw new Error(`strict mode: ${message}`);
  };
  if (node.if !== undefined && node.then === undefined && node.else === undefined) {
    refuse('"if" without "then" and "else" is ignored');
  }
  for (const keyword of ['then', 'else'] as const) {
    if (node[keyword] !== undefined && node.if === undefined) {
      refuse(`"${keyword}" without "if" is ignored`);
    }
  }
  for (const keyword of ['maxContains', 'minContains'] as const) {
    if (node[keyword] !== undefined && node.contains === undefined) {
      refuse(`"${keyword}" without "contains" is ignored`);
    }
  }
  if (node.contains !== undefined && options.next) {
    const min = node.minContains === undefined ? 1 : node.minContains;
    const max = node.maxContains;
    if (max === undefined && min === 0) {
      refuse('"minContains" == 0 without "maxContains": "contains" keyword ignored');
    }
    if (typeof max === 'number' && typeof min === 'number' && min > max) {
      refuse('"minContains" > "maxContains" is always invalid');
    }
  }
  if (node.additionalItems !== undefined && !Array.isArray(node.items)) {
    refuse('"additionalItems" is ignored when "items" is not an array of schemas');
  }
}
