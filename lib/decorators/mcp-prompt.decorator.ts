import { applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_PROMPT_METADATA } from '../shared/mcp.constants';
import type { McpPromptOptions } from '../interfaces/mcp-definitions.interface';
import { McpDefaultParams } from './mcp-params.decorator';

/** The metadata of `@McpPrompt()`, typed for `Reflector.get`. @internal */
export const McpPromptMetadata = Reflector.createDecorator<McpPromptOptions>({ key: MCP_PROMPT_METADATA });

/**
 * Makes a method an MCP prompt. Without parameter decorators the method receives
 * `(args, ctx)`. It may return a string (one user message), an array of messages, or a full
 * `GetPromptResult`.
 *
 * @publicApi
 */
export const McpPrompt = (options: McpPromptOptions = {}): MethodDecorator =>
  applyDecorators(McpPromptMetadata(options), McpDefaultParams());
