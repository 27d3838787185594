import { userPrincipal } from './user-principal';

describe('userPrincipal (the user an app guard left on the request)', () => {
  it.each<[string, unknown, string | undefined]>([
    ['sub first', { sub: 's', id: 'i', userId: 'u', username: 'n' }, 's'],
    ['then id', { id: 'i', userId: 'u', username: 'n' }, 'i'],
    ['then userId', { userId: 'u', username: 'n' }, 'u'],
    ['then username', { username: 'n' }, 'n'],
    ['a null field is skipped', { sub: null, id: 'i' }, 'i'],
    ['a number as a string', { id: 42 }, '42'],
    ['a bigint as a string', { id: 9007199254740993n }, '9007199254740993'],
    ['an empty id is no id', { sub: '' }, undefined],
    ['the first present field decides: an object is no id', { sub: { value: 'x' }, id: 'i' }, undefined],
    ['a boolean is no id', { id: true }, undefined],
    ['no id field', { name: 'Ann' }, undefined],
    ['a string user is its own id', 'ann', 'ann'],
    ['a number user is its own id', 7, '7'],
    ['an empty string user', '', undefined],
  ])('%s', (_title, user, id) => {
    expect(userPrincipal(user)?.id).toBe(id);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['scopes, a list', { sub: 's', scopes: ['a', 'b'] }, ['a', 'b']],
    ['scopes, non-strings and empty ones dropped', { sub: 's', scopes: ['a', 1, '', null, 'b'] }, ['a', 'b']],
    ['scope, space-separated', { sub: 's', scope: 'a  b c' }, ['a', 'b', 'c']],
    ['scopes wins over scope', { sub: 's', scopes: ['x'], scope: 'a b' }, ['x']],
    ['scope not a string', { sub: 's', scope: ['a'] }, []],
    ['none', { sub: 's' }, []],
  ])('scopes from %s', (_title, user, scopes) => {
    expect(userPrincipal(user)?.scopes).toEqual(scopes);
  });

  it('keeps the user as the claims', () => {
    const user = { sub: 's', scope: 'a', name: 'Ann' };
    expect(userPrincipal(user)).toEqual({ id: 's', scopes: ['a'], claims: user });
  });

  it('a primitive user has no claims or scopes', () => {
    expect(userPrincipal('ann')).toEqual({ id: 'ann' });
  });
});
