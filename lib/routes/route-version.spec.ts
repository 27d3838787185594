import { VERSION_NEUTRAL, VersioningType } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { chosenVersion, versionRequest } from './route-version';

describe('route tool versions', () => {
  it("chooses the method's version, else the controller's, else the default; the first of a list", () => {
    expect(chosenVersion('2', '1', '0')).toBe('2');
    expect(chosenVersion(undefined, '1', '0')).toBe('1');
    expect(chosenVersion(undefined, undefined, '0')).toBe('0');
    expect(chosenVersion(['3', '2'], undefined, undefined)).toBe('3');
    expect(chosenVersion(VERSION_NEUTRAL, '1', '0')).toBe(VERSION_NEUTRAL);
    expect(chosenVersion([VERSION_NEUTRAL, '1'], undefined, undefined)).toBe(VERSION_NEUTRAL);
    expect(chosenVersion(undefined, undefined, undefined)).toBeUndefined();
  });

  it('puts the version where the versioning reads it', () => {
    expect(versionRequest({ type: VersioningType.URI }, '1', 'C.m')).toEqual({ uriSegment: 'v1', headers: {} });
    expect(versionRequest({ type: VersioningType.URI, prefix: false }, '1', 'C.m')).toEqual({
      uriSegment: '1',
      headers: {},
    });
    expect(versionRequest({ type: VersioningType.HEADER, header: 'X-API-Version' }, '2', 'C.m')).toEqual({
      headers: { 'x-api-version': '2' },
    });
    expect(versionRequest({ type: VersioningType.MEDIA_TYPE, key: 'v=' }, '3', 'C.m')).toEqual({
      headers: { accept: 'application/json;v=3' },
    });
    expect(versionRequest({ type: VersioningType.HEADER, header: 'x-v' }, VERSION_NEUTRAL, 'C.m')).toEqual({
      headers: {},
    });
    expect(versionRequest(undefined, '1', 'C.m')).toEqual({ headers: {} });
  });

  it('refuses a versioned route under CUSTOM versioning, naming it', () => {
    const custom = { type: VersioningType.CUSTOM, extractor: () => '1' } as const;
    expect(() => versionRequest(custom, '1', 'NotesController.list')).toThrow(McpConfigurationError);
    expect(() => versionRequest(custom, '1', 'NotesController.list')).toThrow(/NotesController\.list.*CUSTOM/);
    expect(versionRequest(custom, VERSION_NEUTRAL, 'C.m')).toEqual({ headers: {} });
  });
});
