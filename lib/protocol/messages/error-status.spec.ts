import { httpStatusForError } from './error-status';
import { McpErrorCode } from './json-rpc';

describe('httpStatusForError', () => {
  describe('modern era (2026-07-28)', () => {
    it.each([
      ['MethodNotFound', McpErrorCode.MethodNotFound, 404],
      ['ParseError', McpErrorCode.ParseError, 400],
      ['InvalidRequest', McpErrorCode.InvalidRequest, 400],
      ['InvalidParams', McpErrorCode.InvalidParams, 400],
      ['HeaderMismatch', McpErrorCode.HeaderMismatch, 400],
      ['MissingRequiredClientCapability', McpErrorCode.MissingRequiredClientCapability, 400],
      ['UnsupportedProtocolVersion', McpErrorCode.UnsupportedProtocolVersion, 400],
      ['InternalError', McpErrorCode.InternalError, 200],
      ['ServerError', McpErrorCode.ServerError, 200],
      ['ResourceNotFound', McpErrorCode.ResourceNotFound, 200],
      ['UrlElicitationRequired', McpErrorCode.UrlElicitationRequired, 200],
      ['InsufficientScope', McpErrorCode.InsufficientScope, 403],
      ['an application code', 1234, 200],
      ['an unallocated MCP code', -32099, 200],
    ])('%s (%i) → HTTP %i', (_name, code, status) => {
      expect(httpStatusForError(code, 'modern')).toBe(status);
    });
  });

  describe('legacy era (2024-11-05 … 2025-11-25)', () => {
    it.each([
      ['ParseError', McpErrorCode.ParseError, 400],
      ['InvalidRequest', McpErrorCode.InvalidRequest, 400],
      ['MethodNotFound', McpErrorCode.MethodNotFound, 200],
      ['InvalidParams', McpErrorCode.InvalidParams, 200],
      ['InternalError', McpErrorCode.InternalError, 200],
      ['ServerError', McpErrorCode.ServerError, 200],
      ['ResourceNotFound', McpErrorCode.ResourceNotFound, 200],
      ['UrlElicitationRequired', McpErrorCode.UrlElicitationRequired, 200],
      ['HeaderMismatch', McpErrorCode.HeaderMismatch, 200],
      ['MissingRequiredClientCapability', McpErrorCode.MissingRequiredClientCapability, 200],
      ['UnsupportedProtocolVersion', McpErrorCode.UnsupportedProtocolVersion, 200],
      ['InsufficientScope', McpErrorCode.InsufficientScope, 403],
      ['an application code', 1234, 200],
    ])('%s (%i) → HTTP %i', (_name, code, status) => {
      expect(httpStatusForError(code, 'legacy')).toBe(status);
    });
  });

  it('uses the JSON-RPC codes of the specification', () => {
    expect(McpErrorCode).toMatchObject({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
    });
  });
});
