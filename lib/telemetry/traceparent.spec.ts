import { formatTraceparent, parseTraceparent } from './traceparent';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

describe('traceparent', () => {
  it('formats a span context as W3C trace context version 00, flags in two hex digits', () => {
    expect(formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 })).toBe(
      `00-${TRACE_ID}-${SPAN_ID}-01`,
    );
    expect(formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 0 })).toBe(
      `00-${TRACE_ID}-${SPAN_ID}-00`,
    );
  });

  it('parses what it formats back into a remote span context', () => {
    const span = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 };
    expect(parseTraceparent(formatTraceparent(span))).toEqual({ ...span, isRemote: true });
  });

  it.each([
    undefined,
    '',
    `01-${TRACE_ID}-${SPAN_ID}-01`,
    `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`,
    `00-${TRACE_ID}-${SPAN_ID}`,
    `00-${TRACE_ID}-${SPAN_ID}-01-extra`,
    `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`,
  ])('refuses %o', (text) => {
    expect(parseTraceparent(text)).toBeUndefined();
  });
});
