import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';

/** Turns a tool's text into a result whose `_meta` tells how long the call took. */
@Injectable()
export class TimingInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const started = process.hrtime.bigint();
    return next.handle().pipe(
      map((text: string) => ({
        content: [{ type: 'text', text }],
        _meta: { 'notes.example/elapsedMs': Number(process.hrtime.bigint() - started) / 1e6 },
      })),
    );
  }
}
