import { useEffect } from 'preact/hooks';

/** The document's title names the view, as a tab and a screen reader's announcement of the page show it. */
export function useTitle(view: string | undefined): void {
  useEffect(() => {
    document.title = view ? `${view} · pm-service` : 'pm-service';
  }, [view]);
}
