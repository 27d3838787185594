/**
 * The file name a route's `Content-Disposition` header gives (RFC 6266, with the RFC 8187
 * `filename*` form), made safe to show: a plain name without directories or control
 * characters. A linear scan, no regular expression on the header.
 */

/** Longer headers are not read: a file name is not worth more. */
const MAX_HEADER_LENGTH = 4096;
/** The longest name kept (most file systems' limit). */
const MAX_NAME_LENGTH = 255;
const HEX_PAIR = /^[0-9a-f]{2}$/i;

/** The parameters of the header, names lower-cased, the first of each name kept. */
function parameters(header: string): Map<string, string> {
  const found = new Map<string, string>();
  let at = header.indexOf(';');
  while (at !== -1 && at < header.length) {
    at += 1;
    const equals = header.indexOf('=', at);
    const semicolon = header.indexOf(';', at);
    if (equals === -1 || (semicolon !== -1 && semicolon < equals)) {
      at = semicolon;
      continue;
    }
    const name = header.slice(at, equals).trim().toLowerCase();
    let value = '';
    let next = equals + 1;
    while (next < header.length && (header[next] === ' ' || header[next] === '\t')) {
      next += 1;
    }
    if (header[next] === '"') {
      next += 1;
      while (next < header.length && header[next] !== '"') {
        if (header[next] === '\\' && next + 1 < header.length) {
          next += 1;
        }
        value += header[next];
        next += 1;
      }
      at = header.indexOf(';', next);
    } else {
      const end = header.indexOf(';', next);
      value = header.slice(next, end === -1 ? undefined : end).trim();
      at = end;
    }
    if (name !== '' && !found.has(name)) {
      found.set(name, value);
    }
  }
  return found;
}

/** `UTF-8''r%C3%A9sum%C3%A9.pdf` → `résumé.pdf` (UTF-8 and ISO-8859-1, the two RFC 8187 requires). */
function extendedValue(value: string): string | undefined {
  const first = value.indexOf("'");
  const second = first === -1 ? -1 : value.indexOf("'", first + 1);
  if (second === -1) {
    return undefined;
  }
  const charset = value.slice(0, first).toLowerCase();
  const encoded = value.slice(second + 1);
  if (charset === 'utf-8') {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
  }
  if (charset === 'iso-8859-1') {
    const bytes: number[] = [];
    for (let index = 0; index < encoded.length; index += 1) {
      const hex = encoded.slice(index + 1, index + 3);
      if (encoded[index] === '%' && HEX_PAIR.test(hex)) {
        bytes.push(Number.parseInt(hex, 16));
        index += 2;
      } else {
        bytes.push(encoded.charCodeAt(index) & 0xff);
      }
    }
    return Buffer.from(bytes).toString('latin1');
  }
  return undefined;
}

/** The last segment of a path, without control characters, bounded; `undefined` when nothing is left. */
export function safeFileName(name: string): string | undefined {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  let clean = '';
  for (const char of base) {
    const code = char.codePointAt(0)!;
    if (code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code < 0xa0)) {
      clean += char;
    }
  }
  clean = clean.trim();
  if (clean === '' || clean === '.' || clean === '..') {
    return undefined;
  }
  return [...clean].slice(0, MAX_NAME_LENGTH).join('');
}

/**
 * The file name of a `Content-Disposition` header (`attachment; filename="report.pdf"`):
 * `filename*` over `filename`, without directories or control characters; `undefined` when the
 * header names none.
 */
export function dispositionFileName(header: string | undefined): string | undefined {
  if (header === undefined || header.length > MAX_HEADER_LENGTH) {
    return undefined;
  }
  const found = parameters(header);
  const extended = found.get('filename*');
  const name = (extended === undefined ? undefined : extendedValue(extended)) ?? found.get('filename');
  return name === undefined ? undefined : safeFileName(name);
}
