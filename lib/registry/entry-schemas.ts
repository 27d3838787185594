/**
 * The schemas of registry entries: compiled (or, for ajv's validators, checked and then compiled
 * on first use) when an entry is added, so that a bad schema fails there and not at call time, with a root every served revision can take.
 */
import type { McpCompiledSchema } from '../protocol/calls/catalog';
import type { McpSchema, McpValidatorOptions } from '../interfaces/mcp-schema.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_SCHEMA } from '../shared/mcp.messages';

/** Turns a schema of any supported kind into JSON Schema and a validator. */
export interface SchemaCompiler {
  /** `validatorOptions`: the tool's own class-validator options, for DTO schemas. */
  compile(
    schema: McpSchema | undefined,
    role: 'input' | 'output',
    validatorOptions?: McpValidatorOptions,
  ): McpCompiledSchema;
}

/** What the registry's checks depend on in the server's configuration. */
export interface RegistrySettings {
  /**
   * Whether a revision the server serves takes output schemas of any root (2026-07-28); up to
   * 2025-11-25 an output schema is an object schema.
   */
  readonly outputSchemaAnyRoot: boolean;
  /** The search tool's name in search mode (`toolSearch`): no tool may take it. */
  readonly searchToolName?: string;
}

/** Arguments are an object: an input schema typed otherwise can never be met. */
function inputRootRefusal(compiled: McpCompiledSchema): string | undefined {
  const { type } = compiled.jsonSchema;
  return type !== undefined && type !== 'object' ? 'the root must be an object schema' : undefined;
}

/**
 * Why an output schema's root can never be served, if it cannot: a string or null result is
 * sent as text (or as nothing), never as structured content, so every call would fail; any
 * other root than an object needs 2026-07-28 (SEP-2106), which this server may not serve.
 * An untyped root (`$ref`, `anyOf`...) may still describe objects.
 */
function outputRootRefusal(compiled: McpCompiledSchema, settings: RegistrySettings): string | undefined {
  const { type } = compiled.jsonSchema;
  const types: unknown[] = Array.isArray(type) ? type : type === undefined ? [] : [type];
  if (types.length > 0 && types.every((one) => one === 'string' || one === 'null')) {
    return 'the root cannot be a string or null schema: a string or null result is sent as text, never as structured content, so every call would fail';
  }
  if (type !== undefined && type !== 'object' && !settings.outputSchemaAnyRoot) {
    return 'the root must be an object schema: the revisions this server serves need one (2026-07-28 takes any)';
  }
  return undefined;
}

/** Compiles the input and output schemas of entries, and checks their roots. */
export class EntrySchemas {
  constructor(
    private readonly compiler: SchemaCompiler,
    private readonly settings: RegistrySettings,
  ) {}

  /** @throws McpConfigurationError naming the entry, for a schema that cannot compile or be served. */
  compile(
    kind: string,
    key: string,
    schema: McpSchema | undefined,
    role: 'input' | 'output',
    validatorOptions?: McpValidatorOptions,
  ): McpCompiledSchema {
    let compiled: McpCompiledSchema;
    try {
      compiled = this.compiler.compile(schema, role, validatorOptions);
    } catch (error) {
      if (error instanceof McpConfigurationError) {
        throw new McpConfigurationError(INVALID_SCHEMA(kind, key, role, error.message));
      }
      throw error;
    }
    const refusal = role === 'input' ? inputRootRefusal(compiled) : outputRootRefusal(compiled, this.settings);
    if (refusal !== undefined) {
      throw new McpConfigurationError(INVALID_SCHEMA(kind, key, role, refusal));
    }
    return compiled;
  }
}
