import { useTitle } from '../parts/title.ts';

export function NotFound({ what = 'page' }: { what?: string }) {
  useTitle('Not found');
  return (
    <section class="view narrow">
      <h1>Not found</h1>
      <p>There is no such {what}. It may have been deleted.</p>
      <p>
        <a href="/projects">Back to the projects</a>
      </p>
    </section>
  );
}
