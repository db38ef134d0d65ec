/**
 * The keyboard shortcuts: `?` lists them, `g` then a letter goes to a section, `/` finds the page's search box,
 * `c` adds a task on a board, Ctrl+K (⌘K) opens the command palette. None acts while the focus is in a text field
 * (but Ctrl+K), with another modifier held, or while a dialog is open.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { navigate, place } from '../router.ts';
import type { Project, Task } from '../types.ts';
import { Dialog } from './dialog.tsx';
import { describe, ErrorText } from './error.tsx';

/** The shortcuts as the help dialog lists them: keys, then what they do. */
export const SHORTCUTS: readonly (readonly [string, string])[] = [
  ['?', 'Show this list'],
  ['Ctrl+K or ⌘K', 'Find a project or a task by name'],
  ['g then p', 'Go to the projects'],
  ['g then b', 'Go to the board (in a project)'],
  ['g then t', 'Go to the teams'],
  ['g then a', 'Go to the activity'],
  ['g then n', 'Go to the notifications'],
  ['/', 'Search: the board’s titles'],
  ['c', 'New task (on a board: in To do)'],
  ['↑ ↓ ← →', 'On a board: go from card to card'],
  ['Shift+← Shift+→', 'On a board: move the focused card to the previous or next column'],
  ['Enter', 'On a card: open the task'],
  ['M', 'On a card: its menu (move, open, delete)'],
  ['Escape', 'Close a dialog or the Add task box'],
];

const SECTIONS: Record<string, string> = { p: '/projects', t: '/teams', a: '/activity', n: '/notifications' };
const SEQUENCE_MS = 1_500;

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/** The listener and the two dialogs it opens; rendered once, by the app's frame. */
export function Shortcuts() {
  const [open, setOpen] = useState<'help' | 'palette' | null>(null);
  const pending = useRef<{ key: string; at: number } | null>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setOpen('palette');
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      if (document.querySelector('dialog[open]')) return;
      const before = pending.current;
      pending.current = null;
      if (before?.key === 'g' && performance.now() - before.at < SEQUENCE_MS) {
        const project = /^\/projects\/([^/]+)/.exec(place.value.path)?.[1];
        const to = event.key === 'b' ? (project ? `/projects/${project}` : null) : SECTIONS[event.key];
        if (to) {
          event.preventDefault();
          navigate(to);
        }
        return;
      }
      if (event.key === 'g') pending.current = { key: 'g', at: performance.now() };
      else if (event.key === '?') {
        event.preventDefault();
        setOpen('help');
      } else if (event.key === '/' || event.key === 'c') {
        const target = document.querySelector<HTMLElement>(`[data-shortcut="${event.key === '/' ? 'search' : 'new'}"]`);
        if (!target) return;
        event.preventDefault();
        if (target instanceof HTMLInputElement) target.focus();
        else target.click();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  if (open === 'help') return <Help onClose={() => setOpen(null)} />;
  if (open === 'palette') return <Palette onClose={() => setOpen(null)} />;
  return null;
}

function Help({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <table class="shortcuts">
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Does</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map(([keys, does]) => (
            <tr key={keys}>
              <td>
                <kbd>{keys}</kbd>
              </td>
              <td>{does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted small">Shortcuts wait while you type in a field.</p>
      <div class="buttons">
        <button type="button" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}

interface Hit {
  readonly id: string;
  readonly label: string;
  readonly kind: 'Project' | 'Task';
  readonly href: string;
}

const DEBOUNCE_MS = 150;

/** Ctrl+K: a box that finds projects and tasks by the words of their names (the API's `q`); Enter opens one. */
function Palette({ onClose }: { onClose: () => void }) {
  const [text, setText] = useState('');
  const [hits, setHits] = useState<Hit[]>([]);
  const [active, setActive] = useState(0);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const q = text.trim();
    if (q === '') {
      setHits([]);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      Promise.all([
        api<{ data: Project[] }>('GET', `/api/projects${query({ q, limit: 5 })}`, { signal: controller.signal }),
        api<{ data: Task[] }>('GET', `/api/tasks${query({ q, limit: 8 })}`, { signal: controller.signal }),
      ]).then(
        ([projects, tasks]) => {
          setHits([
            ...projects.data.data.map((p): Hit => ({
              id: p.id,
              label: p.name,
              kind: 'Project',
              href: `/projects/${encodeURIComponent(p.id)}`,
            })),
            ...tasks.data.data.map((t): Hit => ({
              id: t.id,
              label: t.title,
              kind: 'Task',
              href: `/tasks/${encodeURIComponent(t.id)}`,
            })),
          ]);
          setActive(0);
          setError(null);
        },
        (err: unknown) => controller.signal.aborted || setError(describe(err)),
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [text]);
  const go = (hit: Hit | undefined) => {
    if (!hit) return;
    onClose();
    navigate(hit.href);
  };
  return (
    <Dialog title="Go to a project or task" onClose={onClose}>
      <input
        role="combobox"
        aria-label="Find by name"
        aria-expanded={hits.length > 0}
        aria-controls="palette-hits"
        aria-autocomplete="list"
        aria-activedescendant={hits[active] ? `hit-${hits[active]!.id}` : undefined}
        autoFocus
        value={text}
        placeholder="Words of a project's or a task's name"
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            const step = e.key === 'ArrowDown' ? 1 : -1;
            setActive((i) => (hits.length === 0 ? 0 : (i + step + hits.length) % hits.length));
          } else if (e.key === 'Enter') {
            e.preventDefault();
            go(hits[active]);
          }
        }}
      />
      <ErrorText error={error} />
      <ul id="palette-hits" role="listbox" aria-label="Results" class="palette">
        {hits.map((hit, i) => (
          <li key={hit.id} id={`hit-${hit.id}`} role="option" aria-selected={i === active} onClick={() => go(hit)}>
            <span class="badge">{hit.kind}</span> {hit.label}
          </li>
        ))}
      </ul>
      {text.trim() !== '' && hits.length === 0 && !error && <p class="muted">No project or task has these words.</p>}
    </Dialog>
  );
}
