import 'reflect-metadata';
import { type ArgumentsHost, Catch, Injectable, Logger, Module, UseFilters } from '@nestjs/common';
import { APP_FILTER, ExternalContextCreator } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import { MCP_CONTEXT_TYPE } from '../shared/mcp.constants';
import { FilterAnswer } from './filter-response.capture';
import { createQuietContextCreator } from './quiet-context-creator';

/** Writes every error to the response, as REST filters do. */
@Catch()
class WritingFilter {
  catch(_exception: unknown, host: ArgumentsHost): void {
    host
      .switchToHttp()
      .getResponse<{ status(code: number): { json(body: unknown): void } }>()
      .status(502)
      .json({ message: 'Upstream down' });
  }
}

class Recoverable extends Error {}

/** Answers instead of the handler: an RPC-style filter. */
@Catch(Recoverable)
class AnsweringFilter {
  catch(): string {
    return 'recovered';
  }
}

@Injectable()
class Handlers {
  fail(): never {
    throw new Error('boom');
  }

  @UseFilters(new AnsweringFilter())
  recover(): never {
    throw new Recoverable('recover me');
  }
}

@Module({ providers: [Handlers, { provide: APP_FILTER, useClass: WritingFilter }] })
class FiltersModule {}

/** A stand-in for the transport's response: it records what reaches it. */
function realResponse(): { written: string[]; status(code: number): unknown; json(body: unknown): unknown } {
  const written: string[] = [];
  const response = {
    written,
    status: (code: number) => (written.push(`status ${code}`), response),
    json: (body: unknown) => (written.push(`json ${JSON.stringify(body)}`), response),
  };
  return response;
}

describe('createQuietContextCreator: exception filters in MCP calls', () => {
  let app: TestingModule;
  let warn: jest.SpyInstance;

  beforeEach(async () => {
    app = await Test.createTestingModule({ imports: [FiltersModule] }).compile();
    await app.init();
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    warn.mockRestore();
    await app.close();
  });

  function pipelineOf(creator: ExternalContextCreator, method: 'fail' | 'recover') {
    const handlers = app.get(Handlers);
    return creator.create(
      handlers,
      handlers[method],
      method,
      undefined,
      undefined,
      undefined,
      undefined,
      { guards: true, interceptors: true, filters: true },
      MCP_CONTEXT_TYPE,
    ) as (...args: unknown[]) => Promise<unknown>;
  }

  const warnings = () => warn.mock.calls.map((call) => String(call[0]));

  it('keeps what a filter writes off the real response, hands it on as a FilterAnswer, and warns once naming the filter', async () => {
    const run = pipelineOf(createQuietContextCreator(app.get(ExternalContextCreator)), 'fail');
    for (let call = 0; call < 2; call += 1) {
      const response = realResponse();
      const error = await run({}, response, {}, {}).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(FilterAnswer);
      expect(error).toMatchObject({ status: 502, body: { message: 'Upstream down' }, exception: { message: 'boom' } });
      expect(response.written).toEqual([]);
    }
    expect(warnings()).toEqual([expect.stringMatching(/^WritingFilter wrote HTTP 502 to the response of an MCP call/)]);
  });

  it("a filter's returned value is still the handler's result", async () => {
    const run = pipelineOf(createQuietContextCreator(app.get(ExternalContextCreator)), 'recover');
    await expect(run({}, realResponse(), {}, {})).resolves.toBe('recovered');
    expect(warnings()).toEqual([]);
  });

  it("still protects the wire, without the filter's name, when Nest's filter instances are out of reach", async () => {
    const quiet = createQuietContextCreator(app.get(ExternalContextCreator));
    // As on a Nest whose filters wrapConcreteFilters cannot wrap: its own createConcreteContext again.
    const filters = (quiet as unknown as { filtersContextCreator: Record<string, unknown> }).filtersContextCreator;
    expect(delete filters.createConcreteContext).toBe(true);
    const response = realResponse();
    const error = await pipelineOf(quiet, 'fail')({}, response, {}, {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 502 });
    expect(response.written).toEqual([]);
    expect(warnings()).toEqual([expect.stringMatching(/^An exception filter wrote HTTP 502/)]);
  });
});
