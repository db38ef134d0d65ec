/**
 * The page for a record that does not exist, or one deleted while it was open (said as such). A view that hears of
 * its record's delete calls `deletedHere()` before it shows this.
 */
import { signal } from '@preact/signals';
import { useTitle } from '../parts/title.ts';
import { place } from '../router.ts';

const deletedAt = signal<string | null>(null);

/** Notes that the record the current page shows was deleted while it was open. */
export function deletedHere(): void {
  deletedAt.value = place.value.path;
}

export function NotFound({ what = 'page' }: { what?: string }) {
  const deleted = deletedAt.value === place.value.path;
  useTitle(deleted ? 'Deleted' : 'Not found');
  return (
    <section class="view narrow">
      {deleted ? (
        <>
          <h1>Deleted</h1>
          <p>This {what} was deleted while you had it open, here or by someone else.</p>
        </>
      ) : (
        <>
          <h1>Not found</h1>
          <p>There is no such {what}: the link may be wrong, or it was deleted.</p>
        </>
      )}
      <p>
        <a href="/projects">Back to the projects</a>
      </p>
    </section>
  );
}
