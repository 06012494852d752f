// Who is signed in: the session's CSRF token and the user, read at start (GET /v1/sessions/current, /v1/users/me).
import { signal } from '@preact/signals'
import { api, ok, setCsrfToken, type User } from '../api/client'
import { closeBoard } from './board'

export const me = signal<User | null>(null)
/** True once the start-up check has answered (signed in or not). */
export const ready = signal(false)

/**
 * Whether this browser signed in last time (a hint in localStorage, nothing secret: the cookie itself is HttpOnly).
 * Without it the app goes straight to the sign-in page instead of asking the API and getting a 401.
 */
const HINT = 'taskd-signed-in'
const hinted = () => localStorage.getItem(HINT) === '1'
const hint = (on: boolean) => (on ? localStorage.setItem(HINT, '1') : localStorage.removeItem(HINT))

/** Reads the current session; false when there is none (the caller shows the sign-in page). */
export async function loadSession(): Promise<boolean> {
  try {
    if (!hinted()) throw new Error('not signed in here')
    const session = await ok(api.GET('/v1/sessions/current'), { quiet401: true })
    setCsrfToken(session.csrf_token)
    me.value = (await ok(api.GET('/v1/users/me'), { quiet401: true })).user
    return true
  } catch {
    hint(false)
    me.value = null
    return false
  } finally {
    ready.value = true
  }
}

/** Signs in with a password or a login link's token. */
export async function signIn(body: { email: string; password: string } | { link_token: string }): Promise<void> {
  const made = await ok(api.POST('/v1/sessions', { body }), { quiet401: true })
  setCsrfToken(made.csrf_token)
  hint(true)
  me.value = (await ok(api.GET('/v1/users/me'))).user
}

export async function signOut(): Promise<void> {
  try {
    await ok(api.DELETE('/v1/sessions/current'), { quiet401: true })
  } finally {
    setCsrfToken(null)
    hint(false)
    closeBoard()
    me.value = null
  }
}

export const isAdmin = (): boolean => me.value?.role === 'owner' || me.value?.role === 'admin'

/** The session ended elsewhere (a 401): forget it here too. */
export function sessionEnded(): void {
  hint(false)
  setCsrfToken(null)
  closeBoard()
  me.value = null
}
