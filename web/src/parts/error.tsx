import { ApiError } from '../api.ts';

/** What went wrong, as the user is to read it: the service's message (with the fields it names), or the error's. */
export function describe(err: unknown): string {
  if (err instanceof ApiError) return err.text;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** An action's refusal, next to the action: announced as it appears. */
export function ErrorText({ error, id }: { error: string | null; id?: string }) {
  return (
    <p class="error" role="alert" id={id} hidden={!error}>
      {error}
    </p>
  );
}
