import { McpStderrLogger } from './stderr.logger';

describe('McpStderrLogger', () => {
  let stdout: jest.SpyInstance;
  let stderr: jest.SpyInstance;

  beforeEach(() => {
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });

  afterEach(() => {
    stdout.mockRestore();
    stderr.mockRestore();
  });

  const written = (spy: jest.SpyInstance): string => spy.mock.calls.map(([chunk]) => String(chunk)).join('');

  it('writes every level to stderr and nothing to stdout', () => {
    const logger = new McpStderrLogger({ logLevels: ['log', 'error', 'warn', 'debug', 'verbose', 'fatal'] });
    logger.log('a log line', 'Ctx');
    logger.warn('a warning');
    logger.debug('a debug line');
    logger.verbose('a verbose line');
    logger.error('an error', 'Error: boom\n    at somewhere', 'Ctx');
    logger.fatal('a fatal line');
    expect(stdout).not.toHaveBeenCalled();
    const text = written(stderr);
    for (const line of ['a log line', 'a warning', 'a debug line', 'a verbose line', 'an error', 'a fatal line']) {
      expect(text).toContain(line);
    }
    expect(text).toContain('[Ctx]');
    expect(text).toContain('at somewhere');
  });

  it('keeps JSON mode, on stderr', () => {
    const logger = new McpStderrLogger({ json: true });
    logger.log('as json', 'Ctx');
    expect(stdout).not.toHaveBeenCalled();
    const record = JSON.parse(written(stderr)) as Record<string, unknown>;
    expect(record).toMatchObject({ level: 'log', message: 'as json', context: 'Ctx' });
  });

  it('honours the log levels it was given', () => {
    const logger = new McpStderrLogger({ logLevels: ['error'] });
    logger.log('hidden');
    logger.error('shown');
    expect(written(stderr)).not.toContain('hidden');
    expect(written(stderr)).toContain('shown');
    expect(stdout).not.toHaveBeenCalled();
  });
});
