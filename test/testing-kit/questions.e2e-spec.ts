/**
 * The server's questions answered by the test (`answers`), in both eras on Express and Fastify:
 * the modern era's input_required rounds (the client retries with the answers) and the legacy
 * stream's requests (the client POSTs the answers), fixed values and functions, each question
 * recorded; and a question the test has no answer for.
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient } from 'nest-mcp/testing';
import { KIT_TOKENS } from './kit-fixture';
import { kitApp, PLATFORMS, REVISIONS } from './kit-app';

const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };

describe.each(PLATFORMS)('the server’s questions (%s)', (platform) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await kitApp(platform);
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(REVISIONS)('speaking %s', (revision) => {
    const via = revision === '2026-07-28' ? 'input_required' : 'stream';

    it('answers an elicitation with a fixed value and records the question', async () => {
      const client = await createMcpTestClient(app, {
        revision,
        headers: ADMIN,
        answers: { elicit: { action: 'accept', content: { name: 'Ada' } } },
      });
      try {
        const result = await client.callTool('ask_name');
        expect(result.content).toEqual([{ type: 'text', text: 'action=accept name=Ada' }]);
        expect(client.questions).toEqual([
          {
            method: 'elicitation/create',
            params: expect.objectContaining({ message: 'What is your name?' }),
            via,
            answer: { action: 'accept', content: { name: 'Ada' } },
          },
        ]);
      } finally {
        await client.close();
      }
    });

    it('answers sampling and roots with functions of the question', async () => {
      const client = await createMcpTestClient(app, {
        revision,
        headers: ADMIN,
        answers: {
          sample: (params) => ({
            role: 'assistant',
            model: 'test-model',
            content: { type: 'text', text: `hi (${params.maxTokens})` },
          }),
          roots: async () => ({ roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] }),
        },
      });
      try {
        expect((await client.callTool('ask_model')).content).toEqual([
          { type: 'text', text: 'model=test-model text=hi (10)' },
        ]);
        expect((await client.callTool('ask_roots')).content).toEqual([{ type: 'text', text: 'file:///a,file:///b' }]);
        expect(client.questions.map((question) => [question.method, question.via])).toEqual([
          ['sampling/createMessage', via],
          ['roots/list', via],
        ]);
      } finally {
        await client.close();
      }
    });

    it('declares no capability it has no answer for: the server refuses the question (-32021)', async () => {
      const client = await createMcpTestClient(app, { revision, headers: ADMIN });
      try {
        await expect(client.callTool('ask_name')).rejects.toMatchObject({
          name: 'McpTestError',
          code: -32021,
          data: { requiredCapabilities: { elicitation: {} } },
        });
        expect(client.questions).toEqual([]);
      } finally {
        await client.close();
      }
    });

    it('records a question it has no answer for, and the call fails', async () => {
      const client = await createMcpTestClient(app, {
        revision,
        headers: ADMIN,
        clientCapabilities: { elicitation: {} },
      });
      try {
        const outcome = await client.callTool('ask_name').then(
          (result) => (result.isError === true ? 'isError' : 'answered'),
          (error: Error) => error.message,
        );
        expect(outcome).not.toBe('answered');
        expect(client.questions).toEqual([{ method: 'elicitation/create', params: expect.any(Object), via }]);
      } finally {
        await client.close();
      }
    });
  });
});
