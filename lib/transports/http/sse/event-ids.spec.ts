import { formatEventId, newInstanceStreamId, newStreamId, parseEventId, streamInstance } from './event-ids';

describe('event ids', () => {
  it('round-trips `<streamId>:<seq>`', () => {
    const id = formatEventId('0123456789abcdef', 42);
    expect(id).toBe('0123456789abcdef:42');
    expect(parseEventId(id)).toEqual({ streamId: '0123456789abcdef', seq: 42 });
    expect(parseEventId(` ${id} `)).toEqual({ streamId: '0123456789abcdef', seq: 42 });
  });

  it.each(['', 'abc', '0123456789abcdef', '0123456789abcdef:', '0123456789abcdef:-1', '0123456789abcdef:01', 'XYZ:1'])(
    'rejects %p',
    (id) => {
      expect(parseEventId(id)).toBeUndefined();
    },
  );
});

describe('stream ids', () => {
  it('makes 16 hex digits for a stream of one instance', () => {
    const id = newStreamId();
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(streamInstance(id)).toBeUndefined();
    expect(parseEventId(formatEventId(id, 0))).toEqual({ streamId: id, seq: 0 });
  });

  it('names the instance first in a request stream of several instances, and reads it back', () => {
    const instanceId = '0123456789abcdef';
    const id = newInstanceStreamId(instanceId);
    expect(id).toMatch(/^0123456789abcdef[0-9a-f]{8}$/);
    expect(streamInstance(id)).toBe(instanceId);
    expect(parseEventId(formatEventId(id, 7))).toEqual({ streamId: id, seq: 7 });
    expect(newInstanceStreamId(instanceId)).not.toBe(id);
  });
});
