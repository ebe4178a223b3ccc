// The trading panel's sign-in form: a client id and secret exchanged once for a token (api.ts
// signIn); the secret is dropped at once and the token lives in this tab's memory only.
import { useState } from 'preact/hooks';
import { signedInAs, signIn } from './api.ts';
import { problem } from './problem.ts';
import { signedIn } from './state.ts';

export function SignIn() {
  const [id, setId] = useState('');
  const [secret, setSecret] = useState('');
  const [err, setErr] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErr(undefined);
    try {
      await signIn(id.trim(), secret.trim());
      setSecret('');
      signedIn.set(signedInAs());
    } catch (x) {
      setErr(problem(x));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="signin" onSubmit={submit}>
      <p class="hint">
        Sign in with a client id and secret (an operator creates them:{' '}
        <code>node bin/tickbook.js clients create</code>). The token stays in this tab's memory.
      </p>
      <label>
        Client id
        <input
          name="client_id"
          value={id}
          onInput={(e) => setId(e.currentTarget.value)}
          autocomplete="username"
          required
        />
      </label>
      <label>
        Client secret
        <input
          name="client_secret"
          type="password"
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
          autocomplete="current-password"
          required
        />
      </label>
      <button type="submit" disabled={busy}>
        Sign in
      </button>
      {err && (
        <p class="error" role="alert">
          {err}
        </p>
      )}
    </form>
  );
}
