/** The question the app asks once: a name (`AUTH=none`) or an API token (`AUTH=token`). */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ErrorText, describe } from '../parts/error.tsx';
import { useTitle } from '../parts/title.ts';
import { useMembers } from '../parts/members.ts';
import { authMode, signedOutBecause, signInAs, signInWithToken } from '../session.ts';

export function SignIn() {
  return authMode === 'token' ? <TokenForm /> : <NameForm />;
}

function NameForm() {
  useTitle('Who are you?');
  const name = useSignal('');
  const error = useSignal<string | null>(null);
  const members = useMembers();
  const submit = (event: Event) => {
    event.preventDefault();
    const value = name.value.trim();
    if (value === '') error.value = 'Type your username';
    else if (value.length > 100) error.value = 'A username is at most 100 characters';
    else signInAs(value);
  };
  return (
    <section class="view narrow">
      <h1>Who are you?</h1>
      <p>
        Your name goes with every change you make, so that the activity log and the notifications name the right person.
        This service runs without sign-in: anyone who can reach it may use any name.
      </p>
      <form onSubmit={submit} class="stack" noValidate>
        <label for="username">Username</label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          list="known-members"
          maxLength={100}
          autoFocus
          aria-describedby="username-error"
          value={name.value}
          onInput={(e) => (name.value = e.currentTarget.value)}
        />
        <datalist id="known-members">
          {members.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <ErrorText id="username-error" error={error.value} />
        <button type="submit">Continue</button>
      </form>
    </section>
  );
}

function TokenForm() {
  useTitle('Sign in');
  const token = useSignal('');
  const error = useSignal<string | null>(signedOutBecause.value);
  const busy = useSignal(false);
  useEffect(() => {
    error.value = signedOutBecause.value;
  }, [signedOutBecause.value]);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (token.value.trim() === '') {
      error.value = 'Paste your API token';
      return;
    }
    busy.value = true;
    try {
      await signInWithToken(token.value);
    } catch (err) {
      error.value = describe(err);
    } finally {
      busy.value = false;
    }
  };
  return (
    <section class="view narrow">
      <h1>Sign in</h1>
      <p>
        This service asks for an API token. An administrator issues one for you (<code>POST /api/tokens</code>). It is
        kept in this tab only, until you sign out or close it.
      </p>
      <form onSubmit={(e) => void submit(e)} class="stack" noValidate>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellcheck={false}
          autoFocus
          aria-describedby="token-error"
          value={token.value}
          onInput={(e) => (token.value = e.currentTarget.value)}
        />
        <ErrorText id="token-error" error={error.value} />
        <button type="submit" disabled={busy.value}>
          Sign in
        </button>
      </form>
    </section>
  );
}
