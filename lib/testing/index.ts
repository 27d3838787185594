/**
 * nest-mcp/testing: an MCP client for tests that drives a Nest application's MCP server
 * in-process, without a port, through the real HTTP stack and the real Nest pipeline, or a real
 * URL with the same API.
 */
export { createMcpTestClient } from './create-mcp-test-client';
export { McpTestClient } from './mcp-test-client';
export { McpTestError, McpHttpError } from './mcp-test.errors';
export { MCP_TEST_MODERN_REVISION } from './mcp-test.types';
export type {
  McpTestAnswer,
  McpTestAnswers,
  McpTestCall,
  McpTestListenFilter,
  McpTestSubscription,
  McpTestTask,
  McpTestTaskWaitOptions,
  McpTestTarget,
  McpTestingModuleLike,
  McpTestCallOptions,
  McpTestClientOptions,
  McpTestDtoProperties,
  McpTestMessage,
  McpTestNotification,
  McpTestPrompt,
  McpTestQuestion,
  McpTestReport,
  McpTestResource,
  McpTestResourceTemplate,
  McpTestResult,
  McpTestServerInfo,
  McpTestTool,
  McpTestToolArgs,
} from './mcp-test.types';
