import { Logger } from '@nestjs/common';
import { MemoryClusterLink } from '../stores/memory/memory-cluster.link';
import { MemoryReplayStore } from '../stores/memory/memory-replay.store';
import { MemorySessionStore } from '../stores/memory/memory-session.store';
import { McpSessionService } from './mcp-session.service';
import { SessionChannels } from './session-channels';
import { resolveSessionSettings } from './session-settings';

const IDLE_MS = 1_000;

/** A clock an hour behind this machine's: by the system clock every session would be long idle. */
function hourBehind(): { now(): number; at: number } {
  return {
    at: Date.now() - 3_600_000,
    now() {
      return this.at;
    },
  };
}

function setup(clock: { now(): number }) {
  const link = new MemoryClusterLink();
  const sessions = new McpSessionService(
    resolveSessionSettings({ idleTimeoutMs: IDLE_MS }),
    { defaultLogLevel: 'info' },
    new MemorySessionStore(),
    new SessionChannels(link, new MemoryReplayStore(16)),
    link,
    clock,
  );
  const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  return { sessions, log };
}

const ALICE = { id: 'alice', scopes: [] };

describe('McpSessionService: its clock and its sweep', () => {
  afterEach(() => jest.restoreAllMocks());

  it('reads activity and idleness from the clock it is given', async () => {
    const clock = hourBehind();
    const { sessions } = setup(clock);
    const opened = clock.at;
    const session = await sessions.open(ALICE);
    expect(session).toMatchObject({ createdAt: opened, lastActivity: opened });

    clock.at = opened + 500;
    await sessions.touch(session.id);
    clock.at = opened + 500 + IDLE_MS;
    await expect(sessions.sweep()).resolves.toBe(0);
    await expect(sessions.find(session.id, ALICE)).resolves.toBeDefined();

    clock.at += 1;
    await expect(sessions.sweep()).resolves.toBe(1);
    await expect(sessions.find(session.id, ALICE)).resolves.toBeUndefined();
  });

  it('a sweep that ends sessions says which in one line, naming five at most and since when they were idle', async () => {
    const clock = hourBehind();
    const { sessions, log } = setup(clock);
    const ids: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      ids.push((await sessions.open(ALICE)).id);
    }
    const since = new Date(clock.at).toISOString();
    clock.at += IDLE_MS + 1;

    await expect(sessions.sweep()).resolves.toBe(7);
    const lines = log.mock.calls.map(([message]) => String(message)).filter((line) => line.includes('idle'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Ended 7 idle sessions \(no activity for sessions\.idleTimeoutMs = 1000 ms\): .* and 2 more$/,
    );
    expect(ids.filter((id) => lines[0].includes(`${id} (idle since ${since})`))).toHaveLength(5);

    // A sweep that ends nothing says nothing.
    await expect(sessions.sweep()).resolves.toBe(0);
    expect(log.mock.calls.filter(([message]) => String(message).includes('idle'))).toHaveLength(1);
  });
});
