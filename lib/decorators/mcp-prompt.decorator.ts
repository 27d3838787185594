import { SetMetadata } from '@nestjs/common';
import { MCP_PROMPT_METADATA } from '../mcp.constants';
import type { McpPromptOptions } from '../interfaces/mcp-definitions.interface';

/**
 * Makes a method an MCP prompt. Without parameter decorators the method receives
 * `(args, ctx)`. It may return a string (one user message), an array of messages, or a full
 * `GetPromptResult`.
 *
 * @publicApi
 */
export const McpPrompt = (options: McpPromptOptions = {}): MethodDecorator => SetMetadata(MCP_PROMPT_METADATA, options);
