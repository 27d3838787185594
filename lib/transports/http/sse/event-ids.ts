/**
 * The ids of resumable SSE events: `<streamId>:<seq>`. A stream id is 16 hex digits, or, for a
 * request's stream when several instances serve the session, 24: the id of the instance that
 * runs the request, then 8 of its own, so that a resume on another instance finds where it runs.
 */
import { randomBytes } from 'node:crypto';

const EVENT_ID = /^([0-9a-f]{16}(?:[0-9a-f]{8})?):(0|[1-9][0-9]{0,14})$/;

/** Instance ids are 16 hex digits (`ClusterLink.instanceId`). */
const INSTANCE_ID_LENGTH = 16;

/** A position in a stream, read from an event id. */
export interface EventPosition {
  readonly streamId: string;
  readonly seq: number;
}

/**
 * The SSE event id of an event: `<streamId>:<seq>`. It names the stream, so that a resume
 * finds the stream the client was reading, and the position in it.
 */
export function formatEventId(streamId: string, seq: number): string {
  return `${streamId}:${seq}`;
}

/** Reads an event id of ours; `undefined` for anything else (a client's invention, another server's id). */
export function parseEventId(id: string): EventPosition | undefined {
  const match = EVENT_ID.exec(id.trim());
  return match === null ? undefined : { streamId: match[1], seq: Number(match[2]) };
}

/** A stream id unique within a session (64 random bits), and unguessable across sessions. */
export function newStreamId(): string {
  return randomBytes(8).toString('hex');
}

/** The id of a request's stream run by instance `instanceId`: the instance first. */
export function newInstanceStreamId(instanceId: string): string {
  return `${instanceId}${randomBytes(4).toString('hex')}`;
}

/** The instance a stream id names (a request's stream with several instances); `undefined` for others. */
export function streamInstance(streamId: string): string | undefined {
  return streamId.length === INSTANCE_ID_LENGTH + 8 ? streamId.slice(0, INSTANCE_ID_LENGTH) : undefined;
}
