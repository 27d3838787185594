/** The `stdio` section of the module options, resolved (`MCP_STDIO_SETTINGS`). */
import type { McpStdioOptions } from '../../interfaces/mcp-stdio-options.interface';
import { integer, section } from '../../shared/option-checks';

/** The stdio transport's limits, with every default applied. */
export interface StdioSettings {
  maxFrameBytes: number;
  maxWorkers: number;
  maxQueue: number;
  maxSubscriptions: number;
  maxPendingNotifications: number;
}

/** Validates `stdio` and applies its defaults. */
export function resolveStdioSettings(options: McpStdioOptions | undefined): StdioSettings {
  const stdio = section(options, 'stdio');
  return {
    maxFrameBytes: integer(stdio.maxFrameBytes, 'stdio.maxFrameBytes', 16 * 1024 * 1024, 1024),
    maxWorkers: integer(stdio.maxWorkers, 'stdio.maxWorkers', 8, 1, 1_000),
    maxQueue: integer(stdio.maxQueue, 'stdio.maxQueue', 64, 0, 100_000),
    maxSubscriptions: integer(stdio.maxSubscriptions, 'stdio.maxSubscriptions', 32, 0, 10_000),
    maxPendingNotifications: integer(stdio.maxPendingNotifications, 'stdio.maxPendingNotifications', 256, 0, 100_000),
  };
}
