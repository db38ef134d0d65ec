import { useEffect } from 'preact/hooks';

/**
 * The document's title names the view, as a tab and a screen reader's announcement of the page show it. `null`:
 * the view leaves it to what it shows instead (the not-found page).
 */
export function useTitle(view: string | null | undefined): void {
  useEffect(() => {
    if (view !== null) document.title = view ? `${view} · pm-service` : 'pm-service';
  }, [view]);
}
