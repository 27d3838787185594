/**
 * Client-supplied values as they may enter a log line: a request id, a method, a tool or prompt
 * name, a URI, a session id, a header value. A newline in one would let a client write a line
 * of its own into the log (`1\n[Nest] 1 - ERROR ...`), and a terminal control sequence would
 * act on the operator's terminal; a value of megabytes would flood the log.
 */
import { messageOf } from '../messages/mcp-error';

/** Characters a log line never carries raw: C0 controls, DEL, C1 controls, the line and paragraph separators. */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- the same, every one of them
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** The short escapes JSON has; every other unsafe character is written `\uXXXX`. */
const SHORT: Readonly<Record<string, string>> = {
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};

/** How many characters of a client-supplied value (an id, a name, a URI, a header) a log line keeps, by default. */
export const LOG_TEXT_MAX_LENGTH = 256;

/** How many characters of an error's message a log line keeps: messages quote what they failed on. */
export const LOG_MESSAGE_MAX_LENGTH = 4096;

function escapeChar(char: string): string {
  return SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `value` made safe for one log line: control characters (C0, DEL, C1) and U+2028/U+2029
 * escaped as JSON escapes them (`\n`, `\u001b`...), and a value longer than `maxLength`
 * characters cut there with an ellipsis (`…`) after it, never inside a surrogate pair. Anything
 * but a string is written as `String()` writes it. A value with nothing to escape and within
 * the length is returned as it is (no copy).
 */
export function logText(value: unknown, maxLength: number = LOG_TEXT_MAX_LENGTH): string {
  let text = typeof value === 'string' ? value : String(value);
  let cut = false;
  if (text.length > maxLength) {
    let end = maxLength;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      end -= 1;
    }
    text = text.slice(0, end);
    cut = true;
  }
  if (UNSAFE.test(text)) {
    text = text.replace(UNSAFE_ALL, escapeChar);
  }
  return cut ? `${text}…` : text;
}

/** The message of `error` (anything thrown) for a log line: escaped, cut at LOG_MESSAGE_MAX_LENGTH. */
export function logMessage(error: unknown): string {
  return logText(messageOf(error), LOG_MESSAGE_MAX_LENGTH);
}

/**
 * The stack of `error` for a log line's trace, its first line (`Name: message`, which carries
 * the message, and so whatever client value the message quotes) made safe with {@link logText};
 * the frames after it are the program's own. `undefined` for anything but an `Error`.
 */
export function logStack(error: unknown): string | undefined {
  if (!(error instanceof Error) || typeof error.stack !== 'string') {
    return undefined;
  }
  const { stack } = error;
  const head = `${error.name}: ${error.message}`;
  if (error.message !== '' && stack.startsWith(head)) {
    return `${error.name}: ${logText(error.message, LOG_MESSAGE_MAX_LENGTH)}${stack.slice(head.length)}`;
  }
  return stack;
}

/**
 * The first `max` of `items` for one log line, and how many more there are: a line that reports
 * what a sweep did stays one line of bounded length however much it did.
 */
export function logList(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
