import type { ComponentChildren } from 'preact';

/**
 * A list view's records (projects, teams, webhooks): "Loading…" until they are read, a line when there are none,
 * else a list named `label`, one `RecordRow` each.
 */
export function RecordList<T extends { id: string }>(props: {
  label: string;
  rows: readonly T[] | null;
  /** The load's refusal, shown by the view: no "Loading…" then. */
  error: string | null;
  loading: string;
  empty: string;
  row: (record: T) => ComponentChildren;
}) {
  const { rows } = props;
  if (rows === null) return props.error ? null : <p aria-busy="true">{props.loading}</p>;
  if (rows.length === 0) return <p>{props.empty}</p>;
  return (
    <ul class="projects" aria-label={props.label}>
      {rows.map(props.row)}
    </ul>
  );
}

/** One record of a `RecordList`: its name linking to its view, its description, its facts, its actions. */
export function RecordRow(props: {
  /** Classes beside `project-row`. */
  class?: string;
  href: string;
  name: string;
  /** Classes beside `project-name`. */
  nameClass?: string;
  description?: string | null;
  facts: readonly { label: string; value: ComponentChildren }[];
  children?: ComponentChildren;
}) {
  return (
    <li class={props.class ? `project-row ${props.class}` : 'project-row'}>
      <div class="project-main">
        <a class={props.nameClass ? `project-name ${props.nameClass}` : 'project-name'} href={props.href}>
          {props.name}
        </a>
        {props.description && <p class="muted clamp">{props.description}</p>}
      </div>
      <dl class="facts">
        {props.facts.map((fact) => (
          <div key={fact.label}>
            <dt>{fact.label}</dt>
            <dd>{fact.value}</dd>
          </div>
        ))}
      </dl>
      {props.children}
    </li>
  );
}

/** A row's action button, named for its record (`Edit Website Redesign`); `refused`: why it cannot be used now. */
export function RowAction(props: {
  label: string;
  name: string;
  danger?: boolean;
  refused?: string | null;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      class={props.danger ? 'quiet danger' : 'quiet'}
      aria-label={`${props.label} ${props.name}`}
      disabled={!!props.refused}
      title={props.refused ?? undefined}
      onClick={props.onClick}
    >
      {props.label}
    </button>
  );
}
