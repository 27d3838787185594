/**
 * Discovery mistakes stop the application at startup with an McpConfigurationError that says
 * what and where: duplicate tool names, two MCP decorators on one method, invalid tool names,
 * unusable schemas.
 */
import type { Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createMcpTestClient } from 'nest-mcp/testing';
import { McpConfigurationError, McpModule } from '../lib';
import {
  BadlyNamedTools,
  BrokenSchemaTools,
  DoubleDecoratedTools,
  LegacyStockController,
  NonObjectSchemaTools,
  OverlongNameTools,
  StoreTools,
  ToolAndResource,
  UndecoratedDtoTools,
  WarehouseTools,
} from './fixtures/pipeline-invalid';
import { startupError } from './fixtures/pipeline-app';

const mcp = () => McpModule.forRoot({ name: 'discovery', version: '1.0.0' });

async function failureWith(providers: Type[], controllers: Type[] = []): Promise<Error> {
  const error = await startupError({ imports: [mcp()], providers, controllers });
  expect(error).toBeInstanceOf(McpConfigurationError);
  expect(error.name).toBe('McpConfigurationError');
  return error;
}

describe('discovery errors stop the application at startup', () => {
  it('control: one declaration of check_stock starts and serves', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [mcp()], providers: [WarehouseTools] }).compile();
    const client = await createMcpTestClient(moduleRef, { revision: '2025-06-18' });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['check_stock']);
    await client.close();
  });

  it('the same tool name on two providers fails, naming the tool and both declarations', async () => {
    const error = await failureWith([WarehouseTools, StoreTools]);
    expect(error.message).toContain('"check_stock"');
    expect(error.message).toContain('WarehouseTools.checkStock');
    expect(error.message).toContain('StoreTools.lookup');
  });

  it('a default name (the method name) colliding with an explicit one on a controller fails, naming both', async () => {
    const error = await failureWith([WarehouseTools], [LegacyStockController]);
    expect(error.message).toContain('"check_stock"');
    expect(error.message).toContain('WarehouseTools.checkStock');
    expect(error.message).toContain('LegacyStockController.check_stock');
  });

  it('@McpTool and @McpPrompt on one method fail, naming the method', async () => {
    const error = await failureWith([DoubleDecoratedTools]);
    expect(error.message).toContain('DoubleDecoratedTools.summarize');
    expect(error.message).toContain('more than one of @McpTool');
  });

  it('@McpTool and @McpResource on one method fail, naming the method', async () => {
    const error = await failureWith([ToolAndResource]);
    expect(error.message).toContain('ToolAndResource.daily_report');
  });

  it('an invalid tool name fails, quoting the name and the method', async () => {
    const error = await failureWith([BadlyNamedTools]);
    expect(error.message).toContain('Invalid MCP tool name "check stock!"');
    expect(error.message).toContain('BadlyNamedTools.checkStock');
  });

  it('a tool name over 128 characters fails', async () => {
    const error = await failureWith([OverlongNameTools]);
    expect(error.message).toContain('Invalid MCP tool name');
    expect(error.message).toContain('OverlongNameTools.tooLong');
  });

  it('an input schema whose root is not an object fails', async () => {
    const error = await failureWith([NonObjectSchemaTools]);
    expect(error.message).toContain('input schema of MCP tool "list_things"');
    expect(error.message).toContain('root must be an object');
  });

  it('an input schema that is not valid JSON Schema fails', async () => {
    const error = await failureWith([BrokenSchemaTools]);
    expect(error.message).toContain('input schema of MCP tool "counter"');
    expect(error.message).toContain('BrokenSchemaTools.counter');
  });

  it('a DTO without class-validator decorators fails', async () => {
    const error = await failureWith([UndecoratedDtoTools]);
    expect(error.message).toContain('UndecoratedDto has no class-validator decorators');
    expect(error.message).toContain('UndecoratedDtoTools.undecorated');
  });
});
