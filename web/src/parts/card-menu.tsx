/**
 * A card's menu, a dialog: move the task to another column without dragging (touch and screen-reader users),
 * open it, or delete it (asked twice).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Card } from '../views/board.tsx';
import type { Task } from '../types.ts';
import { Dialog } from './dialog.tsx';
import { ErrorText, describe } from './error.tsx';
import { TASK_STATUSES, TASK_STATUS_LABEL } from './labels.ts';

export interface CardMenuProps {
  readonly card: Card;
  /** Why the user may not change the task, or null. */
  readonly readOnly: string | null;
  readonly onClose: () => void;
  readonly onMove: (to: Task['status']) => void;
  readonly onDeleted: (id: string) => void;
}

export function CardMenu({ card, readOnly, onClose, onMove, onDeleted }: CardMenuProps) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    try {
      await api('DELETE', `/api/tasks/${encodeURIComponent(card.id)}`);
      onDeleted(card.id);
    } catch (err) {
      setError(describe(err));
    }
  };
  return (
    <Dialog title={card.title} onClose={onClose}>
      <fieldset class="move-to">
        <legend>Move to</legend>
        {TASK_STATUSES.map((status) => (
          <button
            key={status}
            type="button"
            aria-pressed={card.status === status}
            disabled={!!readOnly}
            title={readOnly ?? undefined}
            onClick={() => (card.status === status ? onClose() : onMove(status))}
          >
            {TASK_STATUS_LABEL[status]}
          </button>
        ))}
      </fieldset>
      {readOnly && <p class="muted">{readOnly}.</p>}
      <ErrorText error={error} />
      <div class="buttons">
        <a class="button" href={`/tasks/${encodeURIComponent(card.id)}`} onClick={onClose}>
          Open task
        </a>
        {confirming ? (
          <button type="button" class="danger" onClick={() => void remove()}>
            Yes, delete it and its comments and time entries
          </button>
        ) : (
          <button type="button" class="quiet danger" disabled={!!readOnly} onClick={() => setConfirming(true)}>
            Delete task
          </button>
        )}
        <button type="button" class="quiet" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
