/**
 * The W3C `traceparent` of a span context, and back: what a multi round-trip request seals into
 * its `requestState` so that its next round continues its trace. Written by hand rather than
 * with the configured propagator: the sealed text must read back whatever propagator the
 * application chose (B3, Jaeger...), and it never leaves the server's own state.
 */
import type { SpanContext } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `00-{trace id}-{span id}-{flags}`. */
export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * The remote span context a `traceparent` names; `undefined` when it is not one (the ids'
 * validity, all zeros, is for the caller's `isSpanContextValid`).
 */
export function parseTraceparent(text: string | undefined): SpanContext | undefined {
  const parts = text === undefined ? null : TRACEPARENT.exec(text);
  if (parts === null) {
    return undefined;
  }
  return { traceId: parts[1], spanId: parts[2], traceFlags: parseInt(parts[3], 16), isRemote: true };
}
