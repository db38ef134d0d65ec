/** `'time entry'` → `'time_entry'`: a kind's name as `resourceType` and event types spell it. */
export type Snake<S extends string> = S extends `${infer A} ${infer B}` ? `${A}_${Snake<B>}` : S;

/** Every spelling of one kind of record, derived from its name in words (`'time entry'`). */
export interface KindNames<T extends string = string> {
  /** `time_entry`: the `resourceType` of its events and activity entries, and their type prefix. */
  readonly type: T;
  /** `time entry`: the noun in sentences (summaries, messages). */
  readonly noun: string;
  /** `time entries`. */
  readonly nouns: string;
  /** `Time entry`: the name error messages give a record (`Time entry 'te_1' was not found`). */
  readonly label: string;
  /** `Time entries`: the OpenAPI tag. */
  readonly tag: string;
  /** `/api/time-entries`: the collection path. */
  readonly path: string;
  /** `timeEntries`: the store's collection. */
  readonly storeKey: string;
  /** `TimeEntry`: the record's component in the OpenAPI document. */
  readonly component: string;
  /** `TimeEntries`: with `component`, the operationIds (`listTimeEntries`, `getTimeEntry`, …). */
  readonly components: string;
}

/** The plural of an English noun as the kinds need it: `entry` → `entries`, `task` → `tasks`. */
export function pluralOf(noun: string): string {
  return /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const pascal = (words: string) => words.split(' ').map(capital).join('');

/** The names of a kind, from its name in lower-case words and, when not regular, its plural. */
export function kindNames<const S extends string>(noun: S, nouns = pluralOf(noun)): KindNames<Snake<S>> {
  const components = pascal(nouns);
  return {
    type: noun.replaceAll(' ', '_') as Snake<S>,
    noun,
    nouns,
    label: capital(noun),
    tag: capital(nouns),
    path: `/api/${nouns.replaceAll(' ', '-')}`,
    storeKey: components.charAt(0).toLowerCase() + components.slice(1),
    component: pascal(noun),
    components,
  };
}
