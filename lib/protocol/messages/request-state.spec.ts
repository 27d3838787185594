import { canonicalJson, RequestStateSealer, sealedTrace, type StateBinding } from './request-state';

const SECRET = 's'.repeat(32);
const BINDING: StateBinding = {
  principalId: 'alice',
  method: 'tools/call',
  params: { name: 'book', arguments: { city: 'Paris', nights: 2 } },
};
const ROUND = { answers: { confirm: { action: 'accept', content: { ok: true } } }, state: { step: 1 } };

function sealer(now = () => 1_000_000, secret: string | undefined = SECRET) {
  return new RequestStateSealer(secret, 60_000, now);
}

describe('canonicalJson', () => {
  it('gives the same text whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });

  it('keeps array order and drops undefined members', () => {
    expect(canonicalJson({ a: [2, 1], b: undefined })).toBe('{"a":[2,1]}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });
});

describe('RequestStateSealer', () => {
  it('opens what it sealed, with the answers and the handler state', () => {
    const seal = sealer();
    expect(seal.open(seal.seal(BINDING, ROUND), BINDING)).toEqual(ROUND);
  });

  it('ignores the per-round params and the order of keys', () => {
    const seal = sealer();
    const sealed = seal.seal(BINDING, ROUND);
    const retry: StateBinding = {
      ...BINDING,
      params: {
        arguments: { nights: 2, city: 'Paris' },
        name: 'book',
        _meta: { progressToken: 7 },
        inputResponses: { confirm: {} },
        requestState: sealed,
      },
    };
    expect(seal.open(sealed, retry)).toEqual(ROUND);
  });

  it.each([
    ['another principal', { ...BINDING, principalId: 'mallory' }],
    ['another method', { ...BINDING, method: 'prompts/get' }],
    ['other arguments', { ...BINDING, params: { name: 'book', arguments: { city: 'Rome', nights: 2 } } }],
    ['another tool', { ...BINDING, params: { name: 'cancel', arguments: { city: 'Paris', nights: 2 } } }],
  ])('refuses a state presented with %s', (_label, binding) => {
    const seal = sealer();
    expect(seal.open(seal.seal(BINDING, ROUND), binding as StateBinding)).toBeUndefined();
  });

  it('refuses an expired state', () => {
    let now = 1_000_000;
    const seal = sealer(() => now);
    const sealed = seal.seal(BINDING, ROUND);
    now += 60_001;
    expect(seal.open(sealed, BINDING)).toBeUndefined();
  });

  it('refuses a state signed with another key, and accepts one signed with the same key elsewhere', () => {
    const sealed = sealer().seal(BINDING, ROUND);
    expect(sealer(undefined, 't'.repeat(32)).open(sealed, BINDING)).toBeUndefined();
    expect(sealer(undefined, SECRET).open(sealed, BINDING)).toEqual(ROUND);
    // Without a secret every sealer has a random key of its own.
    const random = () => new RequestStateSealer(undefined, 60_000, () => 1_000_000);
    expect(random().open(random().seal(BINDING, ROUND), BINDING)).toBeUndefined();
  });

  it('refuses tampered states', () => {
    const seal = sealer();
    const sealed = seal.seal(BINDING, ROUND);
    const [version, payload, signature] = sealed.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), s: { step: 99 } }),
    ).toString('base64url');
    for (const tampered of [
      `${sealed}-TAMPERED`,
      `${version}.${forged}.${signature}`,
      `v2.${payload}.${signature}`,
      `${version}.${payload}`,
      `${version}.${payload}.${signature}.extra`,
      '',
      'x'.repeat(70_000),
    ]) {
      expect(seal.open(tampered, BINDING)).toBeUndefined();
    }
  });
});

describe('the trace a state carries', () => {
  const TRACE = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('is sealed with the round and opened with it', () => {
    const seal = sealer();
    expect(seal.open(seal.seal(BINDING, { ...ROUND, trace: TRACE }), BINDING)).toEqual({ ...ROUND, trace: TRACE });
  });

  it('a state without one (sealed before it existed) opens as before, without a trace', () => {
    const seal = sealer();
    const opened = seal.open(seal.seal(BINDING, ROUND), BINDING);
    expect(opened).toEqual(ROUND);
    expect(opened).not.toHaveProperty('trace');
  });

  it('sealedTrace reads it without the key, whatever the size of the state', () => {
    const big = { ...ROUND, state: { blob: 'x'.repeat(40_000) }, trace: TRACE };
    expect(sealedTrace(sealer().seal(BINDING, { ...ROUND, trace: TRACE }))).toBe(TRACE);
    expect(sealedTrace(sealer(undefined, 't'.repeat(32)).seal(BINDING, big))).toBe(TRACE);
  });

  it('sealedTrace trusts nothing: a forged trace reads back (the state is refused later), junk reads as none', () => {
    const sealed = sealer().seal(BINDING, { ...ROUND, trace: TRACE });
    const [version, payload, signature] = sealed.split('.');
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...body, t: 'forged' })).toString('base64url');
    expect(sealedTrace(`${version}.${forged}.${signature}`)).toBe('forged');
    for (const junk of [
      undefined,
      42,
      { t: TRACE },
      '',
      `v2.${payload}.${signature}`,
      `${version}.${Buffer.from(JSON.stringify({ e: 1, t: TRACE })).toString('base64url')}.${signature}`,
      `${version}.!!!.${signature}`,
      `${sealed}${'x'.repeat(70_000)}`,
      sealer().seal(BINDING, ROUND),
    ]) {
      expect(sealedTrace(junk)).toBeUndefined();
    }
  });

  it('a trace too long to be read back is not sealed; the state still is', () => {
    const seal = sealer();
    const sealed = seal.seal(BINDING, { ...ROUND, trace: 'x'.repeat(81) });
    expect(sealedTrace(sealed)).toBeUndefined();
    expect(seal.open(sealed, BINDING)).toEqual(ROUND);
    expect(sealedTrace(seal.seal(BINDING, { ...ROUND, trace: 'y'.repeat(80) }))).toBe('y'.repeat(80));
  });
});
