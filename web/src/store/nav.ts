// Navigation from outside components (the 401 hook, keyboard shortcuts): the router's route() once the app has mounted.
let go: (url: string, replace?: boolean) => void = (url) => location.assign(url)

export const setNavigate = (fn: (url: string, replace?: boolean) => void): void => {
  go = fn
}
export const navigate = (url: string, replace = false): void => go(url, replace)

/** The sign-in page's address with the current page as the return URL. */
export function signInUrl(): string {
  const here = location.pathname + location.search
  return here.startsWith('/login') ? '/login' : `/login?next=${encodeURIComponent(here)}`
}

/** A return URL only when it is a path on this origin (never `//host` or a scheme). */
export const safeNext = (next: string | undefined): string => (next && /^\/(?![/\\])/.test(next) ? next : '/')
