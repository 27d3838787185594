/**
 * The RegExp engine of the module's ajv instances (`code.regExp`): every schema pattern runs on
 * the linear-time engine (`linear-pattern.ts`) but those the application lists in
 * `nativeSchemaPatterns`, which run on JavaScript's RegExp as ajv's default would.
 */
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import { LinearPattern, UnsupportedPatternError } from './linear-pattern';

/**
 * An engine for ajv, compiling each pattern once. `nativeWhenUnsupported`: a pattern the linear
 * engine cannot run runs on JavaScript's RegExp instead of being refused (for the schema a DTO or
 * a Standard Schema advertises, whose own validator has already run the same pattern on its own
 * RegExp, on the same value, before ajv checks it).
 */
export function createPatternEngine(
  nativePatterns: readonly string[] = [],
  nativeWhenUnsupported = false,
): RegExpEngine {
  const native = new Set(nativePatterns);
  const compiled = new Map<string, RegExpLike>();
  const engine = (source: string, flags: string): RegExpLike => {
    let pattern = compiled.get(source);
    if (pattern === undefined) {
      pattern = native.has(source) ? new RegExp(source, flags) : linear(source, flags, nativeWhenUnsupported);
      compiled.set(source, pattern);
    }
    return pattern;
  };
  // Only ajv's standalone code prints it; the module generates none with this engine.
  engine.code = 'linearPattern';
  return engine;
}

function linear(source: string, flags: string, nativeWhenUnsupported: boolean): RegExpLike {
  if (flags !== 'u') {
    // ajv's unicodeRegExp is on in every instance the module makes.
    throw new Error(`the linear pattern engine takes the "u" flag only, not "${flags}"`);
  }
  try {
    return new LinearPattern(source);
  } catch (error) {
    if (error instanceof UnsupportedPatternError) {
      if (nativeWhenUnsupported) {
        return new RegExp(source, flags);
      }
      throw new UnsupportedPatternError(
        `pattern "${source}" cannot be tested in linear time (it has ${error.message}); list it in the McpModule option "nativeSchemaPatterns" to test it with JavaScript's RegExp, which backtracks`,
      );
    }
    throw error;
  }
}
