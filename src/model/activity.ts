import { Type, type Static } from 'typebox';
import { Id, Timestamp } from './schema.ts';

export const ActivityEntry = Type.Object({
  id: Id('act'),
  action: Type.String(),
  actor: Type.String(),
  resourceType: Type.String(),
  resourceId: Type.String(),
  summary: Type.String(),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  timestamp: Timestamp,
});
export type ActivityEntry = Static<typeof ActivityEntry>;
