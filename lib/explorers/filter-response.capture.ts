/**
 * The response an application's exception filter gets in an MCP call. The real response carries
 * the call's JSON-RPC answer (or a stream of many), so a filter written for REST routes (the Nest
 * docs' catch-all `AllExceptionsFilter`, a `BaseExceptionFilter` subclass) must not write to it:
 * it writes here instead, and what it wrote becomes the call's JSON-RPC error (see
 * `translateHttpException`).
 *
 * It answers what Nest's adapters and the usual filter code call on a response: Express's
 * `status()`, `json()`, `send()`, `end()`, `set`/`get`/`header`/`setHeader`/`getHeader`,
 * `headersSent`, `statusCode`; Fastify's `code()`, `send()`, `header()`, `sent` and `raw` (the
 * `FastifyAdapter` takes anything with a `status` property for a reply, and reads `raw` for what
 * is sent). Headers are kept here and dropped with the rest.
 */
/** A filter's class (or, for a filter bound as a class with a static `catch`, that class). */
export type FilterClass = abstract new (...args: never[]) => unknown;

export class FilterResponseCapture {
  /** The status written, 200 until one is. */
  statusCode = 200;
  /** Whether the filter sent an answer (`send`, `json`, `end`...). */
  written = false;
  /** What it sent. */
  body: unknown = undefined;
  /** The class of the filter that ran, when it is known (see `wrapConcreteFilters`). */
  filterClass: FilterClass | undefined = undefined;
  private fields: Record<string, unknown> | undefined;

  get headersSent(): boolean {
    return this.written;
  }

  /** Fastify's name for `headersSent`. */
  get sent(): boolean {
    return this.written;
  }

  get writableEnded(): boolean {
    return this.written;
  }

  /** Fastify's raw response: this capture too, so that `reply.raw.end()` is kept here as well. */
  get raw(): this {
    return this;
  }

  /** The status of the answer; once one is sent, it stays as it was sent. */
  status(code: number): this {
    if (!this.written) {
      this.statusCode = code;
    }
    return this;
  }

  /** Fastify's `status`. */
  code(code: number): this {
    return this.status(code);
  }

  writeHead(code: number): this {
    return this.status(code);
  }

  sendStatus(code: number): this {
    return this.status(code).send(undefined);
  }

  json(body: unknown): this {
    return this.send(body);
  }

  send(body?: unknown): this {
    if (!this.written) {
      this.written = true;
      this.body = body;
    }
    return this;
  }

  /** Node's `end([chunk], [callback])`, after any `write`s. */
  end(chunk?: unknown): this {
    if (!this.written) {
      if (chunk !== undefined && typeof chunk !== 'function') {
        this.write(chunk);
      }
      this.written = true;
    }
    return this;
  }

  write(chunk: unknown): boolean {
    if (!this.written) {
      this.body = `${typeof this.body === 'string' ? this.body : ''}${String(chunk)}`;
    }
    return true;
  }

  setHeader(name: string, value: unknown): this {
    (this.fields ??= {})[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): unknown {
    return this.fields?.[name.toLowerCase()];
  }

  getHeaders(): Record<string, unknown> {
    return { ...this.fields };
  }

  hasHeader(name: string): boolean {
    return this.getHeader(name) !== undefined;
  }

  removeHeader(name: string): this {
    delete this.fields?.[name.toLowerCase()];
    return this;
  }

  /** Express's `set(name, value)` or `set({ name: value })`; Fastify's `header`. */
  set(name: string | Record<string, unknown>, value?: unknown): this {
    if (typeof name === 'string') {
      return this.setHeader(name, value);
    }
    for (const [key, each] of Object.entries(name)) {
      this.setHeader(key, each);
    }
    return this;
  }

  header(name: string | Record<string, unknown>, value?: unknown): this {
    return this.set(name, value);
  }

  /** Fastify's `headers({ name: value })`. */
  headers(values: Record<string, unknown>): this {
    return this.set(values);
  }

  get(name: string): unknown {
    return this.getHeader(name);
  }

  append(name: string, value: unknown): this {
    const current = this.getHeader(name);
    return this.setHeader(name, current === undefined ? value : [current, value].flat());
  }

  type(value: string): this {
    return this.setHeader('content-type', value);
  }

  contentType(value: string): this {
    return this.type(value);
  }
}

/**
 * What a filter wrote in an MCP call, on its way from the pipeline to the translator (which knows
 * the handler's kind and the era, and holds the table of codes). It never goes further than the
 * handler factory.
 */
export class FilterAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** The exception the filter caught. */
    readonly exception: unknown,
  ) {
    super(`An exception filter wrote HTTP ${status}`);
    this.name = 'FilterAnswer';
  }
}
