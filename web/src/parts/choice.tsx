/** A `<select>` of one of the API's enumerations, worded by its labels (parts/labels.ts), in their order. */
export interface ChoiceProps<K extends string> {
  readonly id?: string;
  readonly value: K | '';
  readonly labels: Readonly<Record<K, string>>;
  readonly onChange: (value: K) => void;
  readonly disabled?: boolean;
  /** A first option meaning "any" or "none", whose value is `''`. */
  readonly empty?: string;
}

export function Choice<K extends string>({ id, value, labels, onChange, disabled, empty }: ChoiceProps<K>) {
  return (
    <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(e.currentTarget.value as K)}>
      {empty !== undefined && <option value="">{empty}</option>}
      {(Object.keys(labels) as K[]).map((key) => (
        <option key={key} value={key}>
          {labels[key]}
        </option>
      ))}
    </select>
  );
}
