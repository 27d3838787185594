/**
 * A mistake in how the module, a tool, a resource or a prompt is configured. Thrown while the
 * application starts (or when registering at runtime), never while serving a client.
 *
 * @publicApi
 */
export class McpConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpConfigurationError';
  }
}
