/**
 * A modal dialog on the platform's `<dialog>`: opened with `showModal()`, so the page behind it is inert and focus
 * stays inside; Escape closes it; on closing, focus goes back to what had it before.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface DialogProps {
  readonly title: string;
  readonly onClose: () => void;
  readonly children: ComponentChildren;
}

export function Dialog({ title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const dialog = ref.current!;
    const before = document.activeElement as HTMLElement | null;
    dialog.showModal();
    const onCancel = (event: Event) => {
      event.preventDefault();
      close.current();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      dialog.close();
      if (before?.isConnected) before.focus();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" class="dialog">
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}
