import { conformingResult } from './route-output';

const NUMBER_ID = (value: unknown) =>
  typeof (value as { id?: unknown }).id === 'number'
    ? { ok: true as const, value }
    : { ok: false as const, message: '/id must be number' };

describe('conformingResult', () => {
  it('passes a body that meets the output schema as it is', async () => {
    const result = { content: [{ type: 'text' as const, text: '{"id":1}' }], structuredContent: { id: 1 } };
    const told: string[] = [];
    expect(await conformingResult(result, 200, NUMBER_ID, (why) => told.push(why))).toBe(result);
    expect(told).toEqual([]);
  });

  it('says the route ran when its body breaks the schema, with the body after, and tells the log', async () => {
    const told: string[] = [];
    const result = await conformingResult(
      { content: [{ type: 'text', text: '{"id":"x"}' }], structuredContent: { id: 'x' } },
      201,
      NUMBER_ID,
      (why) => told.push(why),
    );
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'HTTP 201: the route ran and answered, but its response does not match its outputSchema (/id must be number). Its body follows as it came.',
        },
        { type: 'text', text: '{"id":"x"}' },
      ],
    });
    expect(told).toEqual(['does not match its outputSchema (/id must be number)']);
  });

  it('says so for a body that is no JSON object (an empty 204, an array)', async () => {
    const result = await conformingResult({ content: [{ type: 'text', text: 'HTTP 204' }] }, 204, NUMBER_ID, () => {});
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining('HTTP 204: the route ran') });
  });

  it("leaves the route's own errors alone", async () => {
    const error = { isError: true, content: [{ type: 'text' as const, text: 'HTTP 404: gone' }] };
    expect(await conformingResult(error, 404, NUMBER_ID, () => {})).toBe(error);
  });
});
