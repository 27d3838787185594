/**
 * Tasks through the testing kit, in both eras on Express and Fastify: start a call as a task,
 * poll it, wait for its result, answer its question, cancel it.
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { waitUntil } from '../support/waiting';
import { KIT_TOKENS, KitProbe } from './kit-fixture';
import { kitApp, PLATFORMS, REVISIONS } from './kit-app';

const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };
const TASK_ID = /^task_[0-9a-f]{32}$/;

describe.each(PLATFORMS)('tasks (%s)', (platform) => {
  let app: INestApplication;
  let probe: KitProbe;

  beforeAll(async () => {
    app = await kitApp(platform);
    probe = app.get(KitProbe);
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(REVISIONS)('speaking %s', (revision) => {
    let client: McpTestClient;

    beforeEach(async () => {
      client = await createMcpTestClient(app, {
        revision,
        headers: ADMIN,
        answers: { elicit: (params) => ({ action: 'accept', content: { name: `Ada (${String(params.message)})` } }) },
      });
    });

    afterEach(async () => {
      await client.close();
    });

    it('starts a call as a task, polls it and waits for its result', async () => {
      const label = `result-${platform}-${revision}`;
      const task = await client.startTask('slow_task', { label, ms: 200 });
      expect(task).toMatchObject({ taskId: expect.stringMatching(TASK_ID), status: 'working' });
      expect(await client.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'working' });
      const result = await client.taskResult(task.taskId);
      expect(result.content).toEqual([{ type: 'text', text: `done ${label}` }]);
      expect(await client.getTask(task.taskId)).toMatchObject({ status: 'completed' });
    });

    it('answers the question of a task from the answers, and records it', async () => {
      const label = `ask-${platform}-${revision}`;
      const task = await client.startTask('ask_in_task', { label, ms: 400 });
      expect(task.status).toBe('working');
      const result = await client.taskResult(task.taskId);
      expect(result.content).toEqual([{ type: 'text', text: `task ${label} name=Ada (Name for ${label}?)` }]);
      expect(client.questions).toEqual([
        expect.objectContaining({
          method: 'elicitation/create',
          params: expect.objectContaining({ message: `Name for ${label}?` }),
        }),
      ]);
    });

    it('cancels a task: its work is aborted and it ends cancelled', async () => {
      const label = `cancel-${platform}-${revision}`;
      const task = await client.startTask('slow_task', { label, ms: 5000 });
      await client.cancelTask(task.taskId);
      await waitUntil(() => probe.aborted.includes(label), `the abort of ${label}`);
      expect(await client.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
      await expect(client.taskResult(task.taskId)).rejects.toThrow();
    });
  });
});
