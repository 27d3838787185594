/**
 * Messages of configuration errors and log lines, in one place.
 */
export const DUPLICATE_ENTRY = (kind: string, key: string, first?: string, second?: string) =>
  `Duplicate MCP ${kind} "${key}"${first || second ? ` (declared by ${first ?? 'a runtime registration'} and ${second ?? 'a runtime registration'})` : ''}: each ${kind} needs a unique ${kind === 'resource' ? 'URI' : kind === 'resource template' ? 'URI template' : 'name'}.`;

export const INVALID_TOOL_NAME = (name: string) =>
  `Invalid MCP tool name "${name}": use 1 to 128 characters among A-Z, a-z, 0-9, "_", "-", "." and "/".`;

export const INVALID_ENTRY = (kind: string, key: string, reason: string) => `Invalid MCP ${kind} "${key}": ${reason}`;

export const INVALID_SCHEMA = (kind: string, key: string, which: 'input' | 'output', reason: string) =>
  `Invalid ${which} schema of MCP ${kind} "${key}": ${reason}`;

export const INVALID_OPTION = (option: string, reason: string) => `Invalid McpModule option "${option}": ${reason}`;

export const MISSING_PACKAGE = (packages: string, feature: string) =>
  `${feature} needs ${packages}. Install it with: npm install ${packages}`;

export const SCOPED_HANDLER_WITHOUT_REQUEST = (where: string) =>
  `${where} is request-scoped; it receives a fresh instance per call.`;

export const TYPED_TOOL_PARAMETERS = (where: string) =>
  `${where} is an @McpTypedTool: its first parameter receives the arguments and its second the call context; put other parameter decorators after them.`;

export const MULTIPLE_DECORATORS = (where: string) =>
  `${where} carries more than one of @McpTool, @McpResource, @McpResourceTemplate and @McpPrompt; use one per method.`;

/** What a client is told when the shared store (Redis) is away; the details go to the log. */
export const STORE_UNAVAILABLE = 'Service unavailable: the server state store cannot be reached; retry shortly';

/** The client's answer to a body over `http.maxBodyBytes`: the limit in force and the option that raises it. */
export const BODY_TOO_LARGE = (limit: number) =>
  `Request body exceeds ${limit} bytes, this server's limit (McpModule option http.maxBodyBytes)`;

/** The client's answer to a body nested deeper than `http.maxJsonDepth`. */
export const BODY_TOO_DEEP = (limit: number) =>
  `Request nesting exceeds ${limit} levels, this server's limit (McpModule option http.maxJsonDepth)`;

/** Health: discovery of decorated handlers has not finished (the application is still starting). */
export const HEALTH_DISCOVERY_PENDING = 'discovery of MCP handlers has not finished';

/** Health: the store did not answer its probe in time. */
export const HEALTH_STORE_TIMEOUT = (timeoutMs: number) => `Redis did not answer PING within ${timeoutMs} ms`;
