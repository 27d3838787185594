import type { McpSessionCaps, McpSessionRecord, McpSessionStore } from '../../lib/interfaces/session-store.interface';

/** A session record with a full state; `overrides` replace top-level fields. */
export function sessionRecord(id: string, overrides: Partial<McpSessionRecord> = {}): McpSessionRecord {
  return {
    id,
    principalId: 'alice',
    createdAt: 1_000,
    lastActivity: 1_000,
    state: {
      protocolVersion: '2025-06-18',
      clientCapabilities: { sampling: {}, roots: { listChanged: true } },
      clientInfo: { name: 'contract-client', version: '1.2.3' },
      logLevel: 'warning',
      initialized: true,
    },
    ...overrides,
  };
}

function sorted(ids: string[]): string[] {
  return [...ids].sort();
}

/**
 * The behaviour every {@link McpSessionStore} shares. Whether `get` hands out the stored object or
 * a copy is left to each store (the memory store's service relies on the former).
 *
 * @param makeStore an empty store, made before each test.
 */
export function describeSessionStoreContract(name: string, makeStore: () => Promise<McpSessionStore>): void {
  describe(`${name} (McpSessionStore contract)`, () => {
    let store: McpSessionStore;

    beforeEach(async () => {
      store = await makeStore();
    });

    describe('create and get', () => {
      it('reads back what was created, state included; an unknown id reads as undefined', async () => {
        const record = sessionRecord('s1', { principalId: 'bob', createdAt: 5_000, lastActivity: 6_000 });
        await store.create(record);
        expect(await store.get('s1')).toEqual(record);
        expect(await store.get('s2')).toBeUndefined();
      });

      it('keeps a state without the optional keys as it is', async () => {
        const record = sessionRecord('s1', {
          state: { clientCapabilities: {}, logLevel: 'info', initialized: false },
        });
        await store.create(record);
        const read = await store.get('s1');
        expect(read).toEqual(record);
        expect(Object.keys(read!.state).sort()).toEqual(['clientCapabilities', 'initialized', 'logLevel']);
      });

      it('is not changed by later changes to the object it was created from', async () => {
        const record = sessionRecord('s1');
        await store.create(record);
        record.state.logLevel = 'debug';
        record.state = { ...record.state, initialized: false };
        expect(await store.get('s1')).toMatchObject({ state: { logLevel: 'warning', initialized: true } });
      });
    });

    describe('update', () => {
      it('merges the patch into the state, keeps the rest, and resolves the updated record', async () => {
        await store.create(sessionRecord('s1'));
        const updated = await store.update('s1', { logLevel: 'error', clientCapabilities: { elicitation: {} } });
        const expected = sessionRecord('s1');
        expected.state = { ...expected.state, logLevel: 'error', clientCapabilities: { elicitation: {} } };
        expect(updated).toEqual(expected);
        expect(await store.get('s1')).toEqual(expected);
      });

      it('removes a state key patched to undefined', async () => {
        await store.create(sessionRecord('s1'));
        await store.update('s1', { clientInfo: undefined, protocolVersion: '2025-11-25' });
        const state = (await store.get('s1'))!.state;
        expect(state.clientInfo).toBeUndefined();
        expect(state).toEqual({
          protocolVersion: '2025-11-25',
          clientCapabilities: { sampling: {}, roots: { listChanged: true } },
          logLevel: 'warning',
          initialized: true,
        });
      });

      it('applies successive patches in order', async () => {
        await store.create(
          sessionRecord('s1', { state: { clientCapabilities: {}, logLevel: 'info', initialized: false } }),
        );
        await store.update('s1', { initialized: true });
        await store.update('s1', { logLevel: 'debug' });
        await store.update('s1', { logLevel: 'notice' });
        expect(await store.get('s1')).toMatchObject({
          state: { clientCapabilities: {}, logLevel: 'notice', initialized: true },
        });
      });

      it('leaves lastActivity alone', async () => {
        await store.create(sessionRecord('s1', { lastActivity: 2_000 }));
        await store.update('s1', { logLevel: 'debug' });
        expect(await store.get('s1')).toMatchObject({ lastActivity: 2_000 });
        await expect(store.idleSince(2_001)).resolves.toEqual(['s1']);
      });

      it('resolves undefined for an unknown session and does not create it', async () => {
        await expect(store.update('ghost', { logLevel: 'debug' })).resolves.toBeUndefined();
        expect(await store.get('ghost')).toBeUndefined();
        await expect(store.count()).resolves.toBe(0);
      });

      it('does not bring a deleted session back', async () => {
        await store.create(sessionRecord('s1'));
        await store.delete('s1');
        await expect(store.update('s1', { initialized: false })).resolves.toBeUndefined();
        expect(await store.get('s1')).toBeUndefined();
        await expect(store.count()).resolves.toBe(0);
      });
    });

    describe('touch and idleSince', () => {
      it('raises lastActivity, never lowers it', async () => {
        await store.create(sessionRecord('s1', { lastActivity: 5_000 }));
        await store.touch('s1', 7_000);
        expect(await store.get('s1')).toMatchObject({ lastActivity: 7_000 });
        await store.touch('s1', 6_000);
        expect(await store.get('s1')).toMatchObject({ lastActivity: 7_000 });
        await expect(store.idleSince(7_000)).resolves.toEqual([]);
        await expect(store.idleSince(7_001)).resolves.toEqual(['s1']);
      });

      it('ignores an unknown session', async () => {
        await store.touch('ghost', 9_000);
        expect(await store.get('ghost')).toBeUndefined();
        await expect(store.count()).resolves.toBe(0);
        await expect(store.idleSince(10_000)).resolves.toEqual([]);
      });

      it('lists the sessions whose last activity is strictly before the cutoff', async () => {
        await store.create(sessionRecord('early', { lastActivity: 1_000 }));
        await store.create(sessionRecord('middle', { lastActivity: 2_000 }));
        await store.create(sessionRecord('late', { lastActivity: 3_000 }));
        await expect(store.idleSince(1_000)).resolves.toEqual([]);
        await expect(store.idleSince(2_000)).resolves.toEqual(['early']);
        expect(sorted(await store.idleSince(3_001))).toEqual(['early', 'late', 'middle']);

        await store.touch('early', 4_000);
        expect(sorted(await store.idleSince(3_001))).toEqual(['late', 'middle']);
      });
    });

    describe('delete and count', () => {
      it('counts the sessions', async () => {
        await expect(store.count()).resolves.toBe(0);
        await store.create(sessionRecord('s1'));
        await store.create(sessionRecord('s2'));
        await expect(store.count()).resolves.toBe(2);
        await store.delete('s1');
        await expect(store.count()).resolves.toBe(1);
      });

      it('says whether the session existed', async () => {
        await store.create(sessionRecord('s1'));
        await expect(store.delete('s1')).resolves.toBe(true);
        await expect(store.delete('s1')).resolves.toBe(false);
        await expect(store.delete('never')).resolves.toBe(false);
      });

      it('answers true to exactly one of two deletes at once', async () => {
        await store.create(sessionRecord('s1'));
        const answers = await Promise.all([store.delete('s1'), store.delete('s1')]);
        expect(answers.filter(Boolean)).toHaveLength(1);
      });

      it('removes the session from reads, the idle list and its subscriptions, and leaves the others', async () => {
        await store.create(sessionRecord('s1', { lastActivity: 1_000 }));
        await store.create(sessionRecord('s2', { lastActivity: 1_000 }));
        await store.subscribe('s1', 'file:///a');
        await store.subscribe('s1', 'file:///b');
        await store.subscribe('s2', 'file:///a');
        await store.delete('s1');
        expect(await store.get('s1')).toBeUndefined();
        await expect(store.idleSince(5_000)).resolves.toEqual(['s2']);
        await expect(store.subscribers('file:///a')).resolves.toEqual(['s2']);
        await expect(store.subscribers('file:///b')).resolves.toEqual([]);
        expect(await store.get('s2')).toEqual(sessionRecord('s2', { lastActivity: 1_000 }));
      });

      it('lets a new session take a deleted id without its old subscriptions', async () => {
        await store.create(sessionRecord('s1'));
        await store.subscribe('s1', 'file:///a');
        await store.delete('s1');
        await store.create(sessionRecord('s1', { principalId: 'carol' }));
        await expect(store.subscribers('file:///a')).resolves.toEqual([]);
        expect(await store.get('s1')).toMatchObject({ principalId: 'carol' });
      });
    });

    describe('subscriptions', () => {
      it('lists the sessions subscribed to a uri, each once', async () => {
        await store.create(sessionRecord('s1'));
        await store.create(sessionRecord('s2'));
        await store.create(sessionRecord('s3'));
        await store.subscribe('s1', 'file:///a');
        await store.subscribe('s2', 'file:///a');
        await store.subscribe('s2', 'file:///a');
        await store.subscribe('s3', 'file:///other');
        expect(sorted(await store.subscribers('file:///a'))).toEqual(['s1', 's2']);
        await expect(store.subscribers('file:///other')).resolves.toEqual(['s3']);
        await expect(store.subscribers('file:///nobody')).resolves.toEqual([]);
      });

      it('ends one subscription on unsubscribe and ignores unknown ones', async () => {
        await store.create(sessionRecord('s1'));
        await store.create(sessionRecord('s2'));
        await store.subscribe('s1', 'file:///a');
        await store.subscribe('s1', 'file:///b');
        await store.subscribe('s2', 'file:///a');
        await store.unsubscribe('s1', 'file:///a');
        await store.unsubscribe('s1', 'file:///never');
        await store.unsubscribe('ghost', 'file:///a');
        await expect(store.subscribers('file:///a')).resolves.toEqual(['s2']);
        await expect(store.subscribers('file:///b')).resolves.toEqual(['s1']);
      });

      it('ignores a subscription of an unknown session', async () => {
        await store.subscribe('ghost', 'file:///a');
        await expect(store.subscribers('file:///a')).resolves.toEqual([]);
        expect(await store.get('ghost')).toBeUndefined();
      });

      it('keeps subscriptions through touches and state updates', async () => {
        await store.create(sessionRecord('s1'));
        await store.subscribe('s1', 'file:///a');
        await store.touch('s1', 50_000);
        await store.update('s1', { logLevel: 'debug' });
        await expect(store.subscribers('file:///a')).resolves.toEqual(['s1']);
      });

      it('takes uris with any characters', async () => {
        await store.create(sessionRecord('s1'));
        const uri = 'custom://host:8080/a b/ü?x=1&y=:subs#frag';
        await store.subscribe('s1', uri);
        await expect(store.subscribers(uri)).resolves.toEqual(['s1']);
        await store.delete('s1');
        await expect(store.subscribers(uri)).resolves.toEqual([]);
      });
    });

    describe('createWithin (the session caps)', () => {
      const caps = (overrides: Partial<McpSessionCaps> = {}): McpSessionCaps => ({
        maxSessions: 100,
        maxPerPrincipal: 3,
        candidates: 2,
        ...overrides,
      });
      const of = (id: string, quotaKey: string, lastActivity = 1_000): McpSessionRecord =>
        sessionRecord(id, { principalId: 'anonymous', quotaKey, lastActivity });

      it('creates a session under both caps and reads it back with its quota key', async () => {
        await expect(store.createWithin!(of('s1', 'anonymous@10.0.0.1'), caps())).resolves.toEqual({
          outcome: 'created',
        });
        expect(await store.get('s1')).toEqual(of('s1', 'anonymous@10.0.0.1'));
        await expect(store.count()).resolves.toBe(1);
      });

      it('refuses a quota key at its cap, naming its longest idle sessions first, and serves another key', async () => {
        await store.createWithin!(of('a1', 'anonymous@10.0.0.1', 3_000), caps());
        await store.createWithin!(of('a2', 'anonymous@10.0.0.1', 1_000), caps());
        await store.createWithin!(of('a3', 'anonymous@10.0.0.1', 2_000), caps());
        await expect(store.createWithin!(of('a4', 'anonymous@10.0.0.1'), caps())).resolves.toEqual({
          outcome: 'principal-full',
          idlest: ['a2', 'a3'],
        });
        expect(await store.get('a4')).toBeUndefined();
        await expect(store.count()).resolves.toBe(3);
        // The same principal at another address is another quota key.
        await expect(store.createWithin!(of('b1', 'anonymous@10.0.0.2'), caps())).resolves.toEqual({
          outcome: 'created',
        });
      });

      it('counts a record without a quota key under its principal', async () => {
        await store.createWithin!(sessionRecord('s1', { principalId: 'bob' }), caps({ maxPerPrincipal: 1 }));
        await expect(
          store.createWithin!(sessionRecord('s2', { principalId: 'bob' }), caps({ maxPerPrincipal: 1 })),
        ).resolves.toMatchObject({ outcome: 'principal-full', idlest: ['s1'] });
        await expect(
          store.createWithin!(sessionRecord('s3', { principalId: 'carol' }), caps({ maxPerPrincipal: 1 })),
        ).resolves.toEqual({ outcome: 'created' });
      });

      it('follows touches in the idle order, and frees a place on delete', async () => {
        await store.createWithin!(of('a1', 'k', 1_000), caps({ maxPerPrincipal: 2 }));
        await store.createWithin!(of('a2', 'k', 2_000), caps({ maxPerPrincipal: 2 }));
        await store.touch('a1', 5_000);
        await expect(store.createWithin!(of('a3', 'k'), caps({ maxPerPrincipal: 2 }))).resolves.toEqual({
          outcome: 'principal-full',
          idlest: ['a2', 'a1'],
        });
        await store.delete('a2');
        await expect(store.createWithin!(of('a3', 'k'), caps({ maxPerPrincipal: 2 }))).resolves.toEqual({
          outcome: 'created',
        });
      });

      it("refuses the server's cap when the key has room; the key's cap is checked first", async () => {
        await store.createWithin!(of('a1', 'k1'), caps({ maxSessions: 2, maxPerPrincipal: 1 }));
        await store.createWithin!(of('b1', 'k2'), caps({ maxSessions: 2, maxPerPrincipal: 1 }));
        await expect(
          store.createWithin!(of('c1', 'k3'), caps({ maxSessions: 2, maxPerPrincipal: 1 })),
        ).resolves.toEqual({ outcome: 'server-full' });
        await expect(
          store.createWithin!(of('a2', 'k1'), caps({ maxSessions: 2, maxPerPrincipal: 1 })),
        ).resolves.toEqual({ outcome: 'principal-full', idlest: ['a1'] });
        await expect(store.count()).resolves.toBe(2);
      });

      it('lets no more than the caps through when many create at once', async () => {
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, index) =>
            store.createWithin!(of(`s${index}`, index % 2 === 0 ? 'even' : 'odd'), caps({ maxSessions: 5 })),
          ),
        );
        expect(answers.filter((answer) => answer.outcome === 'created')).toHaveLength(5);
        await expect(store.count()).resolves.toBe(5);
      });
    });

    describe('subscribeWithin (the subscription cap)', () => {
      it('subscribes up to the cap and refuses the next uri', async () => {
        await store.create(sessionRecord('s1'));
        await expect(store.subscribeWithin!('s1', 'file:///a', 2)).resolves.toBe(true);
        await expect(store.subscribeWithin!('s1', 'file:///b', 2)).resolves.toBe(true);
        await expect(store.subscribeWithin!('s1', 'file:///c', 2)).resolves.toBe(false);
        await expect(store.subscribers('file:///c')).resolves.toEqual([]);
        await expect(store.subscribers('file:///a')).resolves.toEqual(['s1']);
      });

      it('accepts a uri held already without counting it twice, and frees a place on unsubscribe', async () => {
        await store.create(sessionRecord('s1'));
        await store.subscribeWithin!('s1', 'file:///a', 1);
        await expect(store.subscribeWithin!('s1', 'file:///a', 1)).resolves.toBe(true);
        await expect(store.subscribeWithin!('s1', 'file:///b', 1)).resolves.toBe(false);
        await store.unsubscribe('s1', 'file:///a');
        await expect(store.subscribeWithin!('s1', 'file:///b', 1)).resolves.toBe(true);
        await expect(store.subscribers('file:///b')).resolves.toEqual(['s1']);
      });

      it('counts per session, and ignores an unknown session', async () => {
        await store.create(sessionRecord('s1'));
        await store.create(sessionRecord('s2'));
        await store.subscribeWithin!('s1', 'file:///a', 1);
        await expect(store.subscribeWithin!('s2', 'file:///b', 1)).resolves.toBe(true);
        await expect(store.subscribeWithin!('ghost', 'file:///a', 1)).resolves.toBe(true);
        await expect(store.subscribers('file:///a')).resolves.toEqual(['s1']);
      });

      it('lets no more than the cap through when many subscribe at once', async () => {
        await store.create(sessionRecord('s1'));
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, index) => store.subscribeWithin!('s1', `file:///${index}`, 3)),
        );
        expect(answers.filter(Boolean)).toHaveLength(3);
      });
    });
  });
}
