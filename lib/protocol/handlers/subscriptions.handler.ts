/**
 * subscriptions/listen (2026-07-28): a long-lived request whose stream carries the change
 * notifications the client asked for, until the client closes it or the server ends it.
 */
import type { JsonObject } from '../json-rpc';
import { readSubscriptionFilter } from '../subscription-hub';
import type { McpEngine, ResolvedRequest } from '../engine';

export async function handleListen(engine: McpEngine, request: ResolvedRequest): Promise<JsonObject> {
  const { facts, scope } = request;
  // Reading the signal is what makes the scope listen to the transport's cancellation (the
  // client closing the stream); a listener that is already gone is never registered.
  const { signal } = scope;
  if (signal.aborted) {
    throw signal.reason;
  }
  facts.channel.hold?.();
  const subscription = engine.subscriptions.open(
    request.id,
    readSubscriptionFilter(request.params.notifications),
    facts.channel,
  );
  // The engine answers nothing to a cancelled request; removing the subscription right away
  // keeps nothing of a client that went away.
  signal.addEventListener('abort', () => subscription.cancel(), { once: true });
  await subscription.ended;
  return subscription.finalResult();
}
