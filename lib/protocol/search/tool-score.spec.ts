import { MAX_QUERY_TERMS, queryTerms, rankTools, toolWords, wordsOf } from './tool-score';

describe('wordsOf', () => {
  it.each([
    ['notes_find_one', ['notes', 'find', 'one']],
    ['findOrderById', ['find', 'order', 'by', 'id']],
    ['GET /api/v1/notes/:id', ['get', 'api', 'v1', 'notes', 'id']],
    ['Crée une facture', ['crée', 'une', 'facture']],
    ['  --  ', []],
  ])('%j → %j', (text, words) => {
    expect(wordsOf(text)).toEqual(words);
  });

  it('takes a long hostile text in one pass', () => {
    const text = `${'aA_'.repeat(50_000)}!`;
    const started = process.hrtime.bigint();
    expect(wordsOf(text)).toHaveLength(100_000);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2_000);
  });
});

describe('queryTerms', () => {
  it('drops stop words and repeats, lower-cased', () => {
    expect(queryTerms('Find the Invoice of the invoice customer')).toEqual(['find', 'invoice', 'customer']);
  });

  it(`keeps at most ${MAX_QUERY_TERMS} words`, () => {
    const query = Array.from({ length: 100 }, (_v, index) => `w${index}`).join(' ');
    expect(queryTerms(query)).toHaveLength(MAX_QUERY_TERMS);
  });
});

describe('toolWords', () => {
  it('weighs a word by the best field it appears in, parameters one level down included', () => {
    const words = toolWords({
      name: 'invoices_create',
      title: 'New invoice',
      description: 'Creates an invoice for a customer',
      inputSchema: {
        type: 'object',
        properties: {
          customerId: { type: 'string' },
          body: {
            type: 'object',
            properties: { amountCents: { type: 'integer' }, deep: { properties: { hidden: {} } } },
          },
        },
      },
    });
    expect(Object.fromEntries(words)).toMatchObject({
      invoices: 4,
      create: 4,
      new: 3,
      invoice: 3,
      creates: 1,
      customer: 2,
      id: 2,
      body: 2,
      amount: 1,
      cents: 1,
      deep: 1,
    });
    expect(words.has('hidden')).toBe(false);
  });
});

describe('rankTools', () => {
  const tools = [
    toolWords({ name: 'notes_list', description: 'Lists the notes, by tag' }),
    toolWords({ name: 'notes_find_one', description: 'One note by id', inputSchema: { properties: { id: {} } } }),
    toolWords({ name: 'invoices_list', description: 'Lists the invoices of a customer' }),
    toolWords({ name: 'customers_delete', description: 'Deletes a customer', inputSchema: { properties: { id: {} } } }),
  ];
  const names = ['notes_list', 'notes_find_one', 'invoices_list', 'customers_delete'];
  const rank = (query: string, limit = 10) =>
    rankTools(tools, queryTerms(query), limit).map((hit) => names[hit.position]);

  it('ranks the tool whose name holds the words first', () => {
    expect(rank('list notes')[0]).toBe('notes_list');
    expect(rank('delete customer')[0]).toBe('customers_delete');
  });

  it('finds by a description word and by a parameter name', () => {
    expect(rank('tag')).toEqual(['notes_list']);
    expect(rank('id')).toEqual(['notes_find_one', 'customers_delete']);
  });

  it('matches a word by its prefix, for less than an exact match', () => {
    expect(rank('invoice')).toEqual(['invoices_list']);
    const [exact, prefix] = [
      rankTools([toolWords({ name: 'note' })], ['note'], 1)[0].score,
      rankTools([toolWords({ name: 'notes' })], ['note'], 1)[0].score,
    ];
    expect(prefix).toBeLessThan(exact);
  });

  it('weighs a rare word above a common one', () => {
    // "notes" is in two tools, "one" in one: the tool with the rare word wins.
    expect(rank('notes one')[0]).toBe('notes_find_one');
  });

  it('answers nothing for no word, no match or no candidate, and at most limit', () => {
    expect(rank('the of')).toEqual([]);
    expect(rank('weather')).toEqual([]);
    expect(rankTools([], ['notes'], 5)).toEqual([]);
    expect(rank('list', 1)).toHaveLength(1);
  });

  it('keeps the candidates order between equal scores', () => {
    expect(rank('lists')).toEqual(['notes_list', 'invoices_list']);
  });
});
