/**
 * A confirmation before an action that cannot be undone (a delete, a revoke): says what goes with it, and offers the
 * action and Cancel, Cancel focused. While the action runs its button is disabled; a refusal is shown in the dialog.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from './dialog.tsx';
import { ErrorText, describe } from './error.tsx';

export interface ConfirmProps {
  readonly title: string;
  /** The action's button (`Delete project`). */
  readonly action: string;
  /** What the action does and removes. */
  readonly children: ComponentChildren;
  /** Runs the action; the dialog's owner closes it when it succeeds. */
  readonly onConfirm: () => Promise<unknown>;
  readonly onClose: () => void;
  /** False while what the dialog says is still being read (counts): the action waits. */
  readonly ready?: boolean;
}

export function Confirm({ title, action, children, onConfirm, onClose, ready = true }: ConfirmProps) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title={title} onClose={onClose}>
      <div id="confirm-what">{children}</div>
      <ErrorText error={error} />
      <div class="buttons">
        <button
          type="button"
          class="danger"
          disabled={busy || !ready}
          aria-describedby="confirm-what"
          onClick={() => void run()}
        >
          {action}
        </button>
        <button type="button" class="quiet" onClick={onClose} autoFocus>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
