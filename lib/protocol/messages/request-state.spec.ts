import { canonicalJson, RequestStateSealer, type StateBinding } from './request-state';

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
