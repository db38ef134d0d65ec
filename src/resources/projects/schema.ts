import { Type, type Static } from 'typebox';
import { Body, Description, Id, Name, Nullable, Query, StringEnum } from '../../schemas/common.ts';
import { PROJECT_STATUSES } from '../../model/project.ts';

const Status = StringEnum(PROJECT_STATUSES);

/** Create and replace (PUT) take the same body: omitted fields take their defaults. */
export const ProjectInput = Body({
  name: Name,
  description: Type.Optional({ ...Description, default: '' }),
  status: Type.Optional(StringEnum(PROJECT_STATUSES, { default: 'planned' })),
  teamId: Type.Optional({ ...Nullable(Id('team')), default: null }),
});
export type ProjectInput = Static<typeof ProjectInput>;

export const ProjectQuery = Query({ status: Type.Optional(Status) });
export type ProjectQuery = Static<typeof ProjectQuery>;
