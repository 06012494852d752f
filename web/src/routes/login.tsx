// Signing in: with a password, or with a login link (`taskd user login-link EMAIL` prints `<address>/login/<token>`).
// The link's page POSTs the token only when the person presses the button, so a link preview that fetches the page
// uses nothing up.
import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { errorText } from '../api/client'
import { safeNext } from '../store/nav'
import { signIn } from '../store/session'

export function SignIn() {
  const loc = useLocation()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await signIn({ email, password })
      loc.route(safeNext(loc.query.next), true)
    } catch (err) {
      setError(errorText(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="signin">
      <form class="signin-box" onSubmit={(e) => void submit(e)}>
        <h1 class="brand-title">taskd</h1>
        <p class="muted">Sign in to your workspace.</p>
        <label>
          Email
          <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small">
          No password yet? Ask an admin for a login link, or run <code>taskd user login-link YOUR-EMAIL</code> on the server.
        </p>
      </form>
    </main>
  )
}

export function LoginLink({ token }: { token?: string }) {
  const loc = useLocation()
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const go = async () => {
    setBusy(true)
    setError(null)
    try {
      await signIn({ link_token: token ?? '' })
      loc.route('/', true)
    } catch (err) {
      setError(errorText(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="signin">
      <div class="signin-box">
        <h1 class="brand-title">taskd</h1>
        <p>This is a single-use sign-in link.</p>
        {error && (
          <p class="error" role="alert">
            {error} A link works once, for a few minutes: ask for a new one, or <a href="/login">sign in with a password</a>.
          </p>
        )}
        <button class="primary" type="button" disabled={busy} onClick={() => void go()}>
          {busy ? 'Signing in…' : 'Sign in with this link'}
        </button>
        <p class="muted small">After signing in, set a password under Settings → Account.</p>
      </div>
    </main>
  )
}
