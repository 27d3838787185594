/**
 * The version a route tool's request asks for, and where it goes (the path, a header, the
 * `Accept` media type), after the application's versioning. One rule for routes of several
 * versions: the first one listed. Pure.
 */
import { VERSION_NEUTRAL, type VersioningOptions, VersioningType } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';

/** What `@Version()` / `@Controller({ version })` / `defaultVersion` hold. */
export type DeclaredVersion = string | symbol | ReadonlyArray<string | symbol> | undefined;

/** How the request of a route tool carries the route's version. */
export interface VersionRequest {
  /** The URI segment (`v1`), under URI versioning. */
  readonly uriSegment?: string;
  /** Headers to send: the version header, or `accept` with the media type's version. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The version of a route as Nest reads it (the method's, else the controller's, else the
 * application's `defaultVersion`), reduced to one: the first of a list. `VERSION_NEUTRAL` when
 * that one is neutral; `undefined` for an unversioned route.
 */
export function chosenVersion(
  method: DeclaredVersion,
  controller: DeclaredVersion,
  fallback: DeclaredVersion,
): string | typeof VERSION_NEUTRAL | undefined {
  // Nest: `methodVersion || controllerVersion`, the controller's falling back to the default.
  const version = method || (controller ?? fallback);
  const first = Array.isArray(version) ? (version as ReadonlyArray<string | symbol>)[0] : version;
  if (first === VERSION_NEUTRAL) {
    return VERSION_NEUTRAL;
  }
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/**
 * Where the chosen version goes under `versioning`: nothing for an unversioned or neutral
 * route (Nest serves it without a version), else the URI segment, the header, or the `Accept`
 * media type `application/json;<key><version>`.
 * @throws McpConfigurationError naming the route for a versioned route under CUSTOM versioning:
 * its extractor is the application's function, and what it reads cannot be known
 */
export function versionRequest(
  versioning: VersioningOptions | undefined,
  version: string | typeof VERSION_NEUTRAL | undefined,
  where: string,
): VersionRequest {
  if (versioning === undefined || version === undefined || version === VERSION_NEUTRAL) {
    return { headers: {} };
  }
  switch (versioning.type) {
    case VersioningType.URI: {
      const prefix = versioning.prefix === false ? '' : (versioning.prefix ?? 'v');
      return { uriSegment: `${prefix}${version}`, headers: {} };
    }
    case VersioningType.HEADER:
      return { headers: { [versioning.header.toLowerCase()]: version } };
    case VersioningType.MEDIA_TYPE:
      return { headers: { accept: `application/json;${versioning.key}${version}` } };
    default:
      throw new McpConfigurationError(
        `${where} is a route of version "${version}" and the application versions its routes with a CUSTOM ` +
          'extractor: a route tool cannot know what that function reads. Make the route VERSION_NEUTRAL or ' +
          'unversioned, version by URI, HEADER or MEDIA_TYPE, or write an @McpTool that calls the service.',
      );
  }
}

/** The header the application's versioning reads (lower case), whatever the route's version. */
export function versioningHeader(versioning: VersioningOptions | undefined): string | undefined {
  if (versioning?.type === VersioningType.HEADER) {
    return versioning.header.toLowerCase();
  }
  return versioning?.type === VersioningType.MEDIA_TYPE ? 'accept' : undefined;
}
