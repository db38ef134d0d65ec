/**
 * The theme: the system's (light or dark, as it prefers), or one the user chose, kept in this browser
 * (`localStorage`) and applied as `data-theme` on the root element (styles.css picks its colours by it).
 */
import { signal } from '@preact/signals';

export type Theme = 'system' | 'light' | 'dark';
const KEY = 'pm-service.theme';
const LABEL: Record<Theme, string> = { system: 'System theme', light: 'Light', dark: 'Dark' };

const stored = localStorage.getItem(KEY);
export const theme = signal<Theme>(stored === 'light' || stored === 'dark' ? stored : 'system');

function apply(value: Theme): void {
  if (value === 'system') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.setAttribute('data-theme', value);
}
apply(theme.value);

export function setTheme(value: Theme): void {
  theme.value = value;
  if (value === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, value);
  apply(value);
}

/** The header's switch. */
export function ThemeSwitch() {
  return (
    <label class="theme">
      <span class="visually-hidden">Theme</span>
      <select value={theme.value} onChange={(e) => setTheme(e.currentTarget.value as Theme)}>
        {(Object.keys(LABEL) as Theme[]).map((key) => (
          <option key={key} value={key}>
            {LABEL[key]}
          </option>
        ))}
      </select>
    </label>
  );
}
