/**
 * The API tokens (for the `admin` scope): each with its user, scopes, description, expiry and last use; issue one (its
 * value shown once) and revoke one. Without AUTH=token the service asks for no token, but an admin may still issue
 * them ahead of switching it on, as the API allows.
 */
import { Confirm } from '../parts/confirm.tsx';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Dialog } from '../parts/dialog.tsx';
import { ErrorText, describe } from '../parts/error.tsx';
import { authMode, type Scope } from '../session.ts';
import type { Token, TokenWithValue } from '../types.ts';
import { AdminOnly, ShownOnce } from './webhooks.tsx';
import { when } from '../parts/time.ts';

const SCOPE_LABEL: Readonly<Record<Scope, string>> = {
  read: 'read: sees everything but the tokens',
  write: 'write: read, and every change but those of webhooks and tokens',
  admin: 'admin: everything, tokens and webhooks included',
};
const SCOPES = Object.keys(SCOPE_LABEL) as Scope[];

const whenOr = (at: string | null, none: string) => (at ? when(at) : none);

export function Tokens() {
  return (
    <AdminOnly title="Tokens" what="Issuing and revoking API tokens">
      <TokenList />
    </AdminOnly>
  );
}

function TokenList() {
  const [tokens, setTokens] = useState<Token[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<Token | null>(null);

  const load = useCallback(async () => {
    try {
      const answer = await api<{ data: Token[] }>('GET', '/api/tokens');
      setTokens(answer.data.data);
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  }, []);
  useEffect(() => void load(), [load]);

  return (
    <section class="view">
      <div class="view-head">
        <h1>Tokens</h1>
        <button type="button" onClick={() => setCreating(true)}>
          New token
        </button>
      </div>
      {authMode !== 'token' && (
        <p class="notice">
          Tokens matter only when the service runs with <code>AUTH=token</code>. It does not now: anyone who can reach
          it uses the app and the API without one. Tokens issued here work once it does.
        </p>
      )}
      <ErrorText error={error} />
      {tokens === null && !error && <p aria-busy="true">Loading the tokens…</p>}
      {tokens?.length === 0 && <p>No tokens issued yet.</p>}
      {tokens && tokens.length > 0 && (
        <div class="table-scroll">
          <table class="log tokens">
            <caption class="visually-hidden">API tokens</caption>
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Scopes</th>
                <th scope="col">Description</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id}>
                  <th scope="row">{t.username}</th>
                  <td>{t.scopes.join(', ')}</td>
                  <td>{t.description}</td>
                  <td>{whenOr(t.expiresAt, 'Never')}</td>
                  <td>{whenOr(t.lastUsedAt, 'Not yet')}</td>
                  <td>
                    <button
                      type="button"
                      class="quiet small danger"
                      aria-label={`Revoke ${t.username}'s token${t.description ? ` (${t.description})` : ''}`}
                      onClick={() => setRevoking(t)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && (
        <TokenForm
          onClose={() => setCreating(false)}
          onCreated={(token) => setTokens((list) => [...(list ?? []), token])}
        />
      )}
      {revoking && (
        <RevokeToken
          token={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={(id) => {
            setRevoking(null);
            setTokens((list) => list && list.filter((t) => t.id !== id));
          }}
        />
      )}
    </section>
  );
}

/** A new token: who it acts for, its scopes, a description, an optional last day; its value then shown once. */
function TokenForm(props: { onClose: () => void; onCreated: (token: Token) => void }) {
  const [username, setUsername] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [description, setDescription] = useState('');
  const [expires, setExpires] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [issued, setIssued] = useState<TokenWithValue | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      // The token works through the day chosen, by the user's clock.
      const expiresAt = expires === '' ? null : new Date(`${expires}T23:59:59.999`).toISOString();
      const answer = await api<{ data: TokenWithValue }>('POST', '/api/tokens', {
        body: { username: username.trim(), scopes, description, expiresAt },
      });
      const { token: value, ...token } = answer.data.data;
      setIssued({ ...token, token: value });
      props.onCreated(token);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  if (issued)
    return (
      <Dialog title="Token issued" onClose={props.onClose}>
        <p>
          For <strong>{issued.username}</strong> ({issued.scopes.join(', ')}). Hand it over privately: whoever has it
          acts as {issued.username}.
        </p>
        <ShownOnce id="token-value" label="API token" value={issued.token} />
        <div class="buttons">
          <button type="button" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );

  return (
    <Dialog title="New token" onClose={props.onClose}>
      <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
        <label for="token-username">Username</label>
        <input
          id="token-username"
          maxLength={100}
          autoComplete="off"
          autoFocus
          value={username}
          onInput={(e) => setUsername(e.currentTarget.value)}
        />
        <fieldset class="events-picker">
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} class="check">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) =>
                  setScopes(
                    e.currentTarget.checked
                      ? [...scopes.filter((s) => s !== scope), scope]
                      : scopes.filter((s) => s !== scope),
                  )
                }
              />
              {SCOPE_LABEL[scope]}
            </label>
          ))}
        </fieldset>
        <label for="token-description">Description</label>
        <input
          id="token-description"
          placeholder="What it is for (a CI pipeline, a laptop…)"
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <label for="token-expires">Expires after (optional)</label>
        <input
          id="token-expires"
          type="date"
          aria-describedby="token-expires-hint"
          value={expires}
          onInput={(e) => setExpires(e.currentTarget.value)}
        />
        <p id="token-expires-hint" class="muted small">
          The token works through that day; left empty, it never expires.
        </p>
        <ErrorText error={error} />
        <div class="buttons">
          <button type="submit" disabled={busy}>
            Issue token
          </button>
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RevokeToken(props: { token: Token; onClose: () => void; onRevoked: (id: string) => void }) {
  const { token } = props;
  return (
    <Confirm
      title={`Revoke ${token.username}'s token?`}
      action="Revoke token"
      onClose={props.onClose}
      onConfirm={async () => {
        await api('DELETE', `/api/tokens/${encodeURIComponent(token.id)}`);
        props.onRevoked(token.id);
      }}
    >
      <p>
        {token.description ? `The token "${token.description}"` : 'The token'} stops working at once: the next request
        made with it is refused, and whoever uses it is signed out. This cannot be undone: issue a new token if needed.
      </p>
    </Confirm>
  );
}
