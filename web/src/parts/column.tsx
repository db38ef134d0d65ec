/**
 * One board column: its heading and `Add task`, then its cards as a list that draws only the rows in view (each
 * row the same height), so a column of thousands scrolls and re-renders as one of a dozen does. The cards are one
 * tab stop per column (a roving tab index); the arrow keys go from card to card, Shift+Left and Shift+Right move one.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Card } from '../views/board.tsx';
import { navigate } from '../router.ts';
import { ErrorText, describe } from './error.tsx';
import { PRIORITY_LABEL, TASK_STATUS_LABEL } from './labels.ts';
import type { Task } from '../types.ts';

type Status = Task['status'];

/** The card that is to have the focus, and whether it is to take it at the next render. */
export interface Focus {
  id: string | null;
  wanted: boolean;
}

/** The height of a card's row, in CSS pixels (styles.css gives `.card` this height less the gap). */
export const ROW = 84;
/** Rows drawn beyond the visible ones, above and below, so that a quick scroll shows no gap. */
const OVERSCAN = 6;

export interface ColumnProps {
  readonly status: Status;
  readonly cards: readonly Card[];
  readonly focus: Focus;
  readonly readOnly: boolean;
  readonly onMove: (card: Card, to: Status) => void;
  readonly onDrop: (id: string, to: Status) => void;
  readonly onAdd: (title: string) => Promise<void>;
  readonly onMenu: (card: Card) => void;
  readonly neighbour: (offset: -1 | 1) => { status: Status; cards: readonly Card[] } | undefined;
  readonly onFocusColumn: (to: Status, index: number) => void;
}

export function Column(props: ColumnProps) {
  const { status, cards, focus } = props;
  const label = TASK_STATUS_LABEL[status];
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  const [over, setOver] = useState(false);
  const [, rerender] = useState(0);

  useEffect(() => {
    const el = scroller.current!;
    const observer = new ResizeObserver(() => setView({ top: el.scrollTop, height: el.clientHeight }));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // The card that is to take the focus: scrolled into the drawn rows first if it is not among them.
  useLayoutEffect(() => {
    if (!focus.wanted || focus.id === null) return;
    const index = cards.findIndex((c) => c.id === focus.id);
    if (index < 0) return;
    const el = scroller.current!;
    const row = el.querySelector<HTMLElement>(`[data-id="${CSS.escape(focus.id)}"]`);
    if (row) {
      focus.wanted = false;
      row.focus();
    } else {
      el.scrollTop = Math.max(0, index * ROW - el.clientHeight / 2);
      setView({ top: el.scrollTop, height: el.clientHeight });
    }
  });

  const first = Math.max(0, Math.floor(view.top / ROW) - OVERSCAN);
  const last = Math.min(cards.length, Math.ceil((view.top + view.height) / ROW) + OVERSCAN);
  const tabbable = cards.some((c) => c.id === focus.id) ? focus.id : cards[0]?.id;

  const focusAt = (index: number) => {
    const card = cards[Math.max(0, Math.min(cards.length - 1, index))];
    if (!card) return;
    focus.id = card.id;
    focus.wanted = true;
    rerender((n) => n + 1);
  };

  const onKey = (event: KeyboardEvent, card: Card, index: number) => {
    const side = event.key === 'ArrowLeft' ? -1 : event.key === 'ArrowRight' ? 1 : 0;
    if (side !== 0) {
      const next = props.neighbour(side);
      if (!next) return;
      event.preventDefault();
      if (event.shiftKey) {
        if (props.readOnly) return;
        focus.id = card.id;
        focus.wanted = true;
        props.onMove(card, next.status);
      } else props.onFocusColumn(next.status, index);
      return;
    }
    const to =
      event.key === 'ArrowDown'
        ? index + 1
        : event.key === 'ArrowUp'
          ? index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? cards.length - 1
              : null;
    if (to !== null) {
      event.preventDefault();
      focusAt(to);
    } else if (event.key === 'Enter' && event.target === event.currentTarget) {
      event.preventDefault();
      navigate(`/tasks/${encodeURIComponent(card.id)}`);
    } else if ((event.key === 'm' || event.key === 'M' || event.key === 'ContextMenu') && !event.ctrlKey) {
      event.preventDefault();
      props.onMenu(card);
    }
  };

  return (
    <section
      class={over ? 'column drop-here' : 'column'}
      aria-labelledby={`col-${status}`}
      onDragOver={(e) => {
        if (props.readOnly) return;
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={(e) => {
        if (!(e.currentTarget as Element).contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const id = e.dataTransfer?.getData('text/plain');
        if (id) props.onDrop(id, status);
      }}
    >
      <div class="column-head">
        <h2 id={`col-${status}`}>
          {label} <span class="count">{cards.length}</span>
        </h2>
        <AddTask status={status} readOnly={props.readOnly} onAdd={props.onAdd} />
      </div>
      <div
        class="column-scroll"
        ref={scroller}
        onScroll={(e) => setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}
      >
        <ul aria-label={label} class="cards" style={{ height: `${cards.length * ROW}px` }}>
          {cards.slice(first, last).map((card, i) => {
            const index = first + i;
            return (
              <li
                key={card.id}
                data-id={card.id}
                class={`card priority-${card.priority}`}
                style={{ top: `${index * ROW}px` }}
                tabIndex={card.id === tabbable ? 0 : -1}
                aria-labelledby={`title-${card.id}`}
                aria-describedby={`meta-${card.id}`}
                aria-setsize={cards.length}
                aria-posinset={index + 1}
                draggable={!props.readOnly}
                onDragStart={(e) => {
                  e.dataTransfer?.setData('text/plain', card.id);
                  if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
                }}
                onFocus={() => {
                  focus.id = card.id;
                }}
                onKeyDown={(e) => onKey(e, card, index)}
              >
                <a
                  id={`title-${card.id}`}
                  class="card-title"
                  href={`/tasks/${encodeURIComponent(card.id)}`}
                  tabIndex={-1}
                >
                  {card.title}
                </a>
                <p id={`meta-${card.id}`} class="card-meta">
                  <span class={`badge priority-${card.priority}`}>{PRIORITY_LABEL[card.priority]}</span>
                  <span class="assignee">{card.assignee ?? 'Unassigned'}</span>
                </p>
                <button
                  type="button"
                  class="card-menu"
                  tabIndex={-1}
                  aria-label={`Actions for ${card.title}`}
                  aria-haspopup="dialog"
                  onClick={() => props.onMenu(card)}
                >
                  ⋯
                </button>
              </li>
            );
          })}
        </ul>
        {cards.length === 0 && <p class="empty muted">No tasks</p>}
      </div>
    </section>
  );
}

/** `Add task`: a box at the top of the column; Enter adds and keeps it open for the next, Escape closes it. */
function AddTask(props: { status: Status; readOnly: boolean; onAdd: (title: string) => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (open) box.current?.focus();
  }, [open]);
  const close = () => {
    setOpen(false);
    setError(null);
    setTitle('');
    requestAnimationFrame(() => button.current?.focus());
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await props.onAdd(title);
      setTitle('');
      setError(null);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
      box.current?.focus();
    }
  };
  const id = `add-${props.status}`;
  return (
    <>
      <button
        type="button"
        class="quiet add"
        ref={button}
        aria-expanded={open}
        aria-controls={id}
        data-shortcut={props.status === 'todo' ? 'new' : undefined}
        disabled={props.readOnly}
        title={props.readOnly ? 'Your token does not have the write scope' : undefined}
        onClick={() => (open ? close() : setOpen(true))}
      >
        Add task
      </button>
      {open && (
        <form id={id} class="add-form" onSubmit={(e) => void submit(e)} noValidate>
          <input
            ref={box}
            aria-label={`Title of the new task in ${TASK_STATUS_LABEL[props.status]}`}
            placeholder="Task title, then Enter"
            maxLength={200}
            value={title}
            readOnly={busy}
            aria-describedby={`${id}-error`}
            onInput={(e) => setTitle(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                close();
              }
            }}
          />
          <ErrorText id={`${id}-error`} error={error} />
        </form>
      )}
    </>
  );
}
