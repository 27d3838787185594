/**
 * The errors of the test client, as values a test asserts on: a JSON-RPC error the server
 * answered, and an HTTP refusal made before any JSON-RPC (401 / 403 with its challenge...).
 */

/**
 * A JSON-RPC error the server answered: its `code`, `message` and `data`, and the HTTP status it
 * came with.
 *
 * @example
 * ```ts
 * await expect(client.callTool('missing')).rejects.toMatchObject({ code: -32602 });
 * ```
 * @publicApi
 */
export class McpTestError extends Error {
  /** The error's name, for stack traces and matchers. */
  override readonly name = 'McpTestError';

  constructor(
    /** The JSON-RPC error code (`-32602`, `-32004`...). */
    readonly code: number,
    message: string,
    /** The error's `data`, when it had one. */
    readonly data: unknown,
    /** The HTTP status of the answer that carried it. */
    readonly status: number,
    /** The JSON-RPC method of the request it answered. */
    readonly method: string,
  ) {
    super(message);
  }
}

/**
 * An HTTP answer that carried no JSON-RPC answer to the request, or a 401 / 403 refusal: its
 * status, headers (`www-authenticate`...) and body text.
 *
 * @example
 * ```ts
 * const refusal = await client.listTools().catch((error: McpHttpError) => error);
 * expect(refusal.status).toBe(401);
 * expect(refusal.headers['www-authenticate']).toContain('Bearer');
 * ```
 * @publicApi
 */
export class McpHttpError extends Error {
  /** The error's name, for stack traces and matchers. */
  override readonly name = 'McpHttpError';

  constructor(
    /** The HTTP status (401, 403, 404...). */
    readonly status: number,
    /** The response headers, by lower-case name. */
    readonly headers: Readonly<Record<string, string | string[] | undefined>>,
    /** The response body as text ('' when there was none). */
    readonly body: string,
    /** The JSON-RPC method of the request it refused (or the HTTP verb for a DELETE or GET). */
    readonly method: string,
  ) {
    super(`HTTP ${status} for ${method}${body === '' ? '' : `: ${body.slice(0, 200)}`}`);
  }

  /** The `WWW-Authenticate` challenge of a 401 / 403, when there was one. */
  get challenge(): string | undefined {
    const value = this.headers['www-authenticate'];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /** The body parsed as JSON, when it is JSON. */
  get json(): any {
    try {
      return JSON.parse(this.body);
    } catch {
      return undefined;
    }
  }

  /** The JSON-RPC error of the body, when the body is a JSON-RPC error (a 403 for a missing scope...). */
  get rpcError(): { code: number; message: string; data?: unknown } | undefined {
    const parsed = this.json as { jsonrpc?: string; error?: { code: number; message: string; data?: unknown } };
    return parsed?.jsonrpc === '2.0' ? parsed.error : undefined;
  }
}
