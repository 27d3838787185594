import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { ConformancePrompts } from './conformance.prompts';
import { ConformanceResources } from './conformance.resources';
import { ConformanceTools } from './conformance.tools';
import { ConformanceInputTools } from './conformance.input';
import { ConformanceTaskTools } from './conformance.tasks';

/**
 * The fixture server the official MCP conformance suite runs against (see `.ci/run`). Every
 * revision is served on one endpoint, `/mcp`: the suite's 2025-11-25 requirement set runs with
 * `initialize` and a session, the 2026-07-28 set statelessly.
 */
@Module({
  imports: [
    McpModule.forRoot({
      name: 'nest-mcp-conformance',
      version: '0.1.0',
      title: 'nest-mcp conformance fixtures',
      description: 'The fixture surface of the MCP conformance suite, built with nest-mcp decorators',
    }),
  ],
  providers: [ConformanceTools, ConformanceInputTools, ConformanceTaskTools, ConformanceResources, ConformancePrompts],
})
export class ConformanceModule {}
