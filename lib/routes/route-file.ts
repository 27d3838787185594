/**
 * A route's answer by its media type: JSON (as structured content and text), text (text only)
 * or a file (a `StreamableFile`, `res.sendFile`, a PDF, an image, bytes): an image content
 * block, an embedded resource with its bytes, or, when it is larger than the inline bound, a
 * resource link to the route itself. Pure.
 */
import type { CallToolResult, ContentBlock } from '../protocol/messages/mcp-types';
import type { JSONObject } from '../protocol/messages/json-rpc';

/** How a route's body is shown: JSON, text, or a file. */
export type RouteMedia = 'json' | 'text' | 'file';

/** The `_meta` key of a file's name (from `Content-Disposition`) on its content block. */
export const FILE_NAME_META = 'nest-mcp/fileName';

/** The media type of a `Content-Type` value, lower-cased, without parameters (`text/plain`). */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) {
    return undefined;
  }
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return essence === '' ? undefined : essence;
}

/**
 * How a body of this `Content-Type` is shown: `application/json` and `+json` types as JSON;
 * `text/*` as text; no type at all as JSON (read as JSON when it parses, else text, as Nest
 * answers `null`); any other type as a file.
 */
export function routeMediaOf(contentType: string | undefined): RouteMedia {
  const type = mediaTypeOf(contentType);
  if (type === undefined || type === 'application/json' || type.endsWith('+json')) {
    return 'json';
  }
  return type.startsWith('text/') ? 'text' : 'file';
}

/** The `charset` parameter of a `Content-Type`, lower-cased. */
function charsetOf(contentType: string | undefined): string | undefined {
  for (const part of (contentType ?? '').split(';').slice(1)) {
    const equals = part.indexOf('=');
    if (equals !== -1 && part.slice(0, equals).trim().toLowerCase() === 'charset') {
      return part
        .slice(equals + 1)
        .trim()
        .replace(/^"|"$/g, '')
        .toLowerCase();
    }
  }
  return undefined;
}

/** A body as text, in its `charset` when Node knows it, else UTF-8. */
export function bodyText(bytes: Buffer, contentType: string | undefined): string {
  const charset = charsetOf(contentType);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    try {
      return new TextDecoder(charset).decode(bytes);
    } catch {
      // An unknown charset: UTF-8, as for a body without one.
    }
  }
  return bytes.toString('utf8');
}

/** A file a route answered with. */
export interface RouteFile {
  /** Its media type, lower-cased; `application/octet-stream` when the route named none. */
  readonly mimeType: string;
  /** From `Content-Disposition`, made safe. */
  readonly fileName?: string;
  /** Its bytes; absent when it was larger than the inline bound and left unread. */
  readonly bytes?: Buffer;
  /** Its `Content-Length`, when the route gave one. */
  readonly size?: number;
}

/** Where a route's answer comes from (see `route-location.ts`). */
export interface RouteLocation {
  /** The `uri` of an embedded file: the route's URL, or `route:<path>` when it has none to fetch. */
  readonly uri: string;
  /** The route's URL for the client to fetch: GET routes called over HTTP only. */
  readonly link?: string;
}

function described(file: RouteFile, size: number | undefined): string {
  const facts = [file.mimeType, ...(size === undefined ? [] : [`${size} bytes`])].join(', ');
  return `File${file.fileName === undefined ? '' : ` ${file.fileName}`} (${facts})`;
}

function nameMeta(file: RouteFile): { _meta?: JSONObject } {
  return file.fileName === undefined ? {} : { _meta: { [FILE_NAME_META]: file.fileName } };
}

/** The last segment of a URL's path, decoded when it can be: a resource link's default name. */
function lastSegment(uri: string): string | undefined {
  const path = new URL(uri).pathname;
  const segment = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment) || undefined;
  } catch {
    return segment || undefined;
  }
}

/**
 * A file as a tool result. Read in full: an `image` block for `image/*` (every revision has
 * image content), else an embedded resource `{ uri, mimeType, blob }` (audio too: revisions
 * before 2025-03-26 have no audio content); the file name in `_meta['nest-mcp/fileName']`.
 * Left unread (larger than the inline bound): a `resource_link` to `location.link`. A text block
 * names the file in every case.
 *
 * @throws Error when a file was left unread without a link: the reader must not leave one so.
 */
export function fileResult(file: RouteFile, location: RouteLocation): CallToolResult {
  if (file.bytes === undefined) {
    if (location.link === undefined) {
      throw new Error('A route file was left unread without a link to give');
    }
    const link: ContentBlock = {
      type: 'resource_link',
      uri: location.link,
      name: file.fileName ?? lastSegment(location.link) ?? 'file',
      mimeType: file.mimeType,
      ...(file.size === undefined ? {} : { size: file.size }),
    };
    const text = `${described(file, file.size)} is too large to inline (routes.maxInlineBytes): fetch it from ${location.link}`;
    return { content: [link, { type: 'text', text }] };
  }
  const data = file.bytes.toString('base64');
  const block: ContentBlock = file.mimeType.startsWith('image/')
    ? { type: 'image', data, mimeType: file.mimeType, ...nameMeta(file) }
    : { type: 'resource', resource: { uri: location.uri, mimeType: file.mimeType, blob: data }, ...nameMeta(file) };
  return { content: [block, { type: 'text', text: described(file, file.bytes.length) }] };
}
