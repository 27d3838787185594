import { Inject, Injectable, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { McpTool } from 'nest-mcp';

/** A request-scoped provider: a fresh instance per call, with the HTTP request as REQUEST. */
@Injectable({ scope: Scope.REQUEST })
export class RequestInfoTool {
  private readonly instanceId = randomUUID();

  constructor(
    @Inject(REQUEST) private readonly request: { headers?: Record<string, string | undefined> } | undefined,
  ) {}

  @McpTool({ description: 'Tells which client is calling, from the HTTP request', annotations: { readOnlyHint: true } })
  whoami() {
    return {
      content: [{ type: 'text', text: `user-agent: ${this.request?.headers?.['user-agent'] ?? 'unknown'}` }],
      _meta: { 'notes.example/instance': this.instanceId },
    };
  }
}
