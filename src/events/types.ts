/** The kinds of record the service keeps, as they appear in `resourceType` and event names. */
export type ResourceType =
  'project' | 'task' | 'team' | 'comment' | 'milestone' | 'time_entry' | 'webhook' | 'activity' | 'notification';

export type ChangeKind = 'created' | 'updated' | 'deleted';

/**
 * One change made through the interface (or by a cascade), published in the transaction that writes it (bus.ts).
 * `previous` is the record before an update or delete; `changed` names the fields an update altered, and
 * `previousValues` holds their values before it (what a webhook's `previous` carries).
 */
export interface DomainEvent<T = unknown> {
  readonly id: string;
  readonly type: `${ResourceType}.${ChangeKind}`;
  readonly resourceType: ResourceType;
  readonly kind: ChangeKind;
  readonly record: T;
  readonly previous?: T;
  readonly changed?: readonly string[];
  /** For an update: the old value of each field `changed` names, as `previous` shows it; nothing else. */
  readonly previousValues?: Readonly<Record<string, unknown>>;
  /** Who caused it: the `X-Actor` header, else `system`. */
  readonly actor: string;
  readonly at: string;
  /** For a change a cascade made: the id of the record whose delete the client asked for, and its kind. */
  readonly cascadeOf?: string;
  readonly cascadeOfType?: ResourceType;
}

/** Who is making a request, as the services see it. */
export interface RequestContext {
  /** The `X-Actor` header, when sent. */
  readonly actor?: string;
  /** The `If-Match` header, when sent: the write happens only if the record's current ETag is among these. */
  readonly ifMatch?: string;
}
