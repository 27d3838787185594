import { httpStatusForError } from './error-status';
import { ErrorCode } from './json-rpc';

describe('httpStatusForError', () => {
  describe('modern era (2026-07-28)', () => {
    it.each([
      ['MethodNotFound', ErrorCode.MethodNotFound, 404],
      ['ParseError', ErrorCode.ParseError, 400],
      ['InvalidRequest', ErrorCode.InvalidRequest, 400],
      ['InvalidParams', ErrorCode.InvalidParams, 400],
      ['HeaderMismatch', ErrorCode.HeaderMismatch, 400],
      ['MissingRequiredClientCapability', ErrorCode.MissingRequiredClientCapability, 400],
      ['UnsupportedProtocolVersion', ErrorCode.UnsupportedProtocolVersion, 400],
      ['InternalError', ErrorCode.InternalError, 200],
      ['ServerError', ErrorCode.ServerError, 200],
      ['ResourceNotFound', ErrorCode.ResourceNotFound, 200],
      ['UrlElicitationRequired', ErrorCode.UrlElicitationRequired, 200],
      ['InsufficientScope', ErrorCode.InsufficientScope, 403],
      ['an application code', 1234, 200],
      ['an unallocated MCP code', -32099, 200],
    ])('%s (%i) → HTTP %i', (_name, code, status) => {
      expect(httpStatusForError(code, 'modern')).toBe(status);
    });
  });

  describe('legacy era (2024-11-05 … 2025-11-25)', () => {
    it.each([
      ['ParseError', ErrorCode.ParseError, 400],
      ['InvalidRequest', ErrorCode.InvalidRequest, 400],
      ['MethodNotFound', ErrorCode.MethodNotFound, 200],
      ['InvalidParams', ErrorCode.InvalidParams, 200],
      ['InternalError', ErrorCode.InternalError, 200],
      ['ServerError', ErrorCode.ServerError, 200],
      ['ResourceNotFound', ErrorCode.ResourceNotFound, 200],
      ['UrlElicitationRequired', ErrorCode.UrlElicitationRequired, 200],
      ['HeaderMismatch', ErrorCode.HeaderMismatch, 200],
      ['MissingRequiredClientCapability', ErrorCode.MissingRequiredClientCapability, 200],
      ['UnsupportedProtocolVersion', ErrorCode.UnsupportedProtocolVersion, 200],
      ['InsufficientScope', ErrorCode.InsufficientScope, 403],
      ['an application code', 1234, 200],
    ])('%s (%i) → HTTP %i', (_name, code, status) => {
      expect(httpStatusForError(code, 'legacy')).toBe(status);
    });
  });

  it('uses the JSON-RPC codes of the specification', () => {
    expect(ErrorCode).toMatchObject({
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
