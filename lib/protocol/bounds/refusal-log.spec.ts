import { RefusalLog } from './refusal-log';

describe('RefusalLog', () => {
  function make() {
    const lines: Array<[string, string]> = [];
    let now = 1_000_000;
    const log = new RefusalLog(
      { warn: (message) => lines.push(['warn', message]), debug: (message) => lines.push(['debug', message]) },
      60_000,
      () => now,
    );
    return { log, lines, advance: (ms: number) => (now += ms) };
  }

  it('warns once a minute per reason, the others at debug level, then says how many were left out', () => {
    const { log, lines, advance } = make();
    log.warn('too-large', 'first');
    log.warn('too-large', 'second');
    advance(59_999);
    log.warn('too-large', 'third');
    advance(1);
    log.warn('too-large', 'fourth');
    expect(lines).toEqual([
      ['warn', 'first'],
      ['debug', 'second'],
      ['debug', 'third'],
      ['warn', 'fourth (and 2 more like it since the last warning)'],
    ]);
  });

  it('keeps one clock per reason', () => {
    const { log, lines } = make();
    log.warn('too-large', 'a body');
    log.warn('forbidden-host', 'a host');
    log.warn('too-large', 'another body');
    expect(lines).toEqual([
      ['warn', 'a body'],
      ['warn', 'a host'],
      ['debug', 'another body'],
    ]);
  });

  it('keeps every line one line, whatever the refused value holds', () => {
    const { log, lines } = make();
    log.warn('streams', 'Refused (caller evil\n[Nest] 1 - ERROR forged)');
    log.debug('Refused id 1\r\nforged');
    expect(lines).toEqual([
      ['warn', 'Refused (caller evil\\n[Nest] 1 - ERROR forged)'],
      ['debug', 'Refused id 1\\r\\nforged'],
    ]);
  });
});
