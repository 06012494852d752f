// The app: sign-in check, the header, the routes (the board first; card detail, search, inbox and settings load as
// their own chunks), the keyboard shortcuts and the toasts.
import { useEffect } from 'preact/hooks'
import { ErrorBoundary, LocationProvider, Route, Router, lazy, useLocation } from 'preact-iso'
import { onUnauthorized } from '../api/client'
import { startFeed, stopFeed } from '../live/feed'
import { setNavigate, signInUrl } from '../store/nav'
import { loadSession, me, ready, sessionEnded } from '../store/session'
import { Header } from '../ui/header'
import { Help, installShortcuts } from '../ui/keys'
import { Toasts } from '../ui/toasts'
import { BoardRoute } from '../board/board-view'
import { Home } from './home'
import { LoginLink, SignIn } from './login'

const CardRoute = lazy(() => import('../card/card-route').then((m) => m.CardRoute))
const Search = lazy(() => import('./search').then((m) => m.Search))
const Inbox = lazy(() => import('./inbox').then((m) => m.Inbox))
const Settings = lazy(() => import('../settings/settings').then((m) => m.Settings))

function NotFound() {
  return (
    <main class="page">
      <h1>Not found</h1>
      <p>
        There is nothing at this address. <a href="/">Go to your boards</a>.
      </p>
    </main>
  )
}

/** Routes for a signed-in person; anyone else is sent to the sign-in page with the return URL. */
function Routes() {
  const loc = useLocation()
  useEffect(() => {
    setNavigate(loc.route)
    onUnauthorized(() => {
      stopFeed()
      sessionEnded()
      loc.route(signInUrl(), true)
    })
  }, [loc.route])
  const publicPage = loc.path === '/login' || loc.path.startsWith('/login/')
  useEffect(() => {
    if (!ready.value) void loadSession()
  }, [])
  useEffect(() => {
    if (ready.value && !me.value && !publicPage) loc.route(signInUrl(), true)
    if (me.value) void startFeed()
  }, [ready.value, me.value, publicPage])
  useEffect(() => installShortcuts(), [])

  if (!ready.value && !publicPage) return <p class="loading-page">Loading…</p>
  return (
    <>
      {me.value && !publicPage && <Header />}
      <ErrorBoundary>
        <Router>
          <Route path="/login" component={SignIn} />
          <Route path="/login/:token" component={LoginLink} />
          <Route path="/" component={me.value ? Home : Blank} />
          <Route path="/boards/:id" component={me.value ? BoardRoute : Blank} />
          <Route path="/cards/:cardKey" component={me.value ? CardRoute : Blank} />
          <Route path="/search" component={me.value ? Search : Blank} />
          <Route path="/inbox" component={me.value ? Inbox : Blank} />
          <Route path="/settings" component={me.value ? Settings : Blank} />
          <Route path="/settings/:section" component={me.value ? Settings : Blank} />
          <Route default component={NotFound} />
        </Router>
      </ErrorBoundary>
      <Help />
      <Toasts />
    </>
  )
}

const Blank = () => null

export function App() {
  return (
    <LocationProvider>
      <Routes />
    </LocationProvider>
  )
}
