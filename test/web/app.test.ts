// The web app in a real browser: Debian's Chromium, or with TASKD_TEST_BROWSER=firefox Debian's Firefox ESR (over
// WebDriver BiDi; `npm run test:firefox`), driven by playwright-core (no browser download), against `taskd serve` on
// 127.0.0.1 with a fresh database. One browser for the file, a context per test. Every test fails on a request to
// another origin (aborted), a console error, an uncaught page error or a Content-Security-Policy violation; axe-core
// checks the sign-in page, a board, the card detail and a settings page (serious and critical findings fail).
// Screenshots of the views go to dist/web-screenshots/<browser>/ (TASKD_WEB_SCREENSHOTS=DIR for another folder).
// Without the browser the file skips with a notice, or fails where TASKD_TEST_REQUIRE_BROWSER=1 (CI).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { runCli } from '../helpers/cli.js'
import { cleanEnv, ROOT, serve, type Served } from '../helpers/serve.js'
import { until } from '../helpers/until.js'

const FIREFOX = process.env.TASKD_TEST_BROWSER === 'firefox'
const BROWSER = FIREFOX ? 'firefox' : 'chromium'
const NAME = FIREFOX ? 'Firefox' : 'Chromium'
const EXECUTABLE = FIREFOX ? (process.env.TASKD_TEST_FIREFOX ?? '/usr/bin/firefox-esr') : (process.env.TASKD_TEST_CHROMIUM ?? '/usr/bin/chromium')
const PACKAGE = FIREFOX ? 'firefox-esr' : 'chromium'
const haveBrowser = fs.existsSync(EXECUTABLE)
if (!haveBrowser && process.env.TASKD_TEST_REQUIRE_BROWSER === '1') {
  test(`${NAME} is installed for the web app tests`, () => assert.fail(`no ${NAME} at ${EXECUTABLE} (apt-get install ${PACKAGE})`))
}
if (!haveBrowser) {
  const variable = FIREFOX ? 'TASKD_TEST_FIREFOX' : 'TASKD_TEST_CHROMIUM'
  console.log(`# web app browser tests SKIPPED: no ${NAME} at ${EXECUTABLE} (apt-get install ${PACKAGE}, or set ${variable})`)
}

const SHOTS = path.join(process.env.TASKD_WEB_SCREENSHOTS ?? path.join(ROOT, 'dist/web-screenshots'), BROWSER)
const EMAIL = 'owner@localhost'
const PASSWORD = 'a long test passphrase'
// Playwright hides the text caret for a screenshot with a <style> it adds to the page, which the app's
// Content-Security-Policy refuses in Firefox (a violation, failing the test): the caret is left as it is.
const SHOT = { caret: 'initial' } as const
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 360, height: 740 }

/**
 * playwright-core 1.65 sends WebDriver BiDi's `emulation.setMediaFeaturesOverride` (the colour scheme) as it makes every
 * context, and Firefox ESR 153 does not have that command yet ("unknown command"), so no context could be made. The
 * tests use the default colour scheme, so that one command is answered here instead of being sent: a shim on the
 * BiDi session of playwright-core's in-process server (reached as its own tests reach it). It fails loudly if those
 * internals change, rather than hiding anything else.
 */
function withoutMediaOverride(b: Browser): void {
  type Send = (method: string, params: unknown) => Promise<unknown>
  const impl = (b as unknown as { _connection?: { toImpl?: (x: unknown) => { _browserSession?: { send: Send } } } })._connection?.toImpl?.(b)
  const session = impl?._browserSession
  if (!session) throw new Error('playwright-core internals changed: no BiDi browser session to shim')
  const proto = Object.getPrototypeOf(session) as { send: Send; shimmed?: true }
  if (proto.shimmed) return
  const send = proto.send
  proto.send = function (this: unknown, method: string, params: unknown) {
    return method === 'emulation.setMediaFeaturesOverride' ? Promise.resolve({}) : send.call(this, method, params)
  }
  proto.shimmed = true
}

/**
 * Before a screenshot, playwright-core's WebDriver BiDi driver adds `<style>body {}</style>` to the page to restart its
 * animations in step, which the app's Content-Security-Policy refuses (a violation, failing the test). The app has no
 * animations to keep in step, so the driver is told not to (another shim on playwright-core's in-process server).
 */
function withoutStyleToggle(p: Page): void {
  const impl = (p as unknown as { _connection?: { toImpl?: (x: unknown) => { delegate?: object } } })._connection?.toImpl?.(p)
  const delegate = impl?.delegate as { shouldToggleStyleSheetToSyncAnimations?: () => boolean } | undefined
  if (!delegate?.shouldToggleStyleSheetToSyncAnimations) throw new Error('playwright-core internals changed: no BiDi page to shim')
  Object.getPrototypeOf(delegate).shouldToggleStyleSheetToSyncAnimations = () => false
}

describe(`the web app in ${NAME}`, { skip: !haveBrowser }, () => {
  let dir: string
  let server: Served
  let browser: Browser
  let token: string
  let boardId: string
  const lists: Record<string, string> = {}
  const cardIds: Record<string, string> = {}

  const callAs = async (as: string, method: string, p: string, body?: unknown): Promise<any> => {
    const res = await fetch(server.url + p, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    assert.ok(res.ok, `${method} ${p}: ${res.status} ${text}`)
    return text ? JSON.parse(text) : undefined
  }
  const call = (method: string, p: string, body?: unknown): Promise<any> => callAs(token, method, p, body)
  const card = async (title: string) => (await call('GET', `/v1/cards/${cardIds[title]}`)).card

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-web-'))
    server = await serve(path.join(dir, 'taskd.db'), { TASKD_SIGNIN_ATTEMPTS_PER_MINUTE: '0', TASKD_ALLOW_PRIVATE_TARGETS: 'true' })
    token = server.token!
    // A first password is set on the server (or from a browser signed in by a login link), not with a token.
    const set = execFile(process.execPath, [path.join(ROOT, 'bin/taskd.js'), 'user', 'set-password', EMAIL, '--db', path.join(dir, 'taskd.db')], {
      env: cleanEnv,
    })
    set.stdin!.end(`${PASSWORD}\n`)
    assert.equal(await new Promise((resolve) => set.once('exit', resolve)), 0)
    const folder = (await call('POST', '/v1/folders', { name: 'Product' })).folder
    const made = await call('POST', '/v1/boards', { name: 'Launch', key_prefix: 'LCH', folder: folder.id })
    boardId = made.board.id
    for (const l of made.lists) lists[l.name] = l.id
    await call('POST', '/v1/boards', { name: 'Side project', key_prefix: 'SIDE' })
    const tag = (await call('POST', '/v1/tags', { board: boardId, name: 'bug', color: '#e03131' })).tag
    for (const [title, extra] of [
      ['Write the launch post', { description: 'Draft **bold** claims and a [link](https://example.com/post).', priority: 2 }],
      ['Fix the login bug', { tags: [tag.id], priority: 4, due_date: '2026-12-01' }],
      ['Design the logo', {}],
      ['Plan the keynote', {}],
      ['Move me on a phone', {}],
      ['Edit me in detail', { description: 'Old text' }],
    ] as const) {
      cardIds[title] = (await call('POST', '/v1/cards', { board: boardId, list: lists['To do'], title, ...extra })).card.id
    }
    const { chromium, firefox } = await import('playwright-core')
    browser = FIREFOX
      ? await firefox.launch({ channel: 'moz-firefox', executablePath: EXECUTABLE })
      : await chromium.launch({ executablePath: EXECUTABLE, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
    if (FIREFOX) withoutMediaOverride(browser)
    fs.mkdirSync(SHOTS, { recursive: true })
  })

  after(async () => {
    // Each closes even when the one before it throws.
    try {
      await browser?.close()
    } finally {
      try {
        await server?.stop()
      } finally {
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  })

  interface Opened {
    context: BrowserContext
    page: Page
    /** Throws when anything went wrong in the page (called by the test before closing). */
    check(): void
  }

  /** A fresh context (a new browser profile) with the guards; `allow` lists console errors a test expects (a 400 it causes). */
  async function open(viewport = DESKTOP, allow: RegExp[] = [], options: BrowserContextOptions = {}): Promise<Opened> {
    const context = await browser.newContext({ viewport, ...options })
    const problems: string[] = []
    const origin = new URL(server.url).origin
    await context.route('**/*', async (route) => {
      const url = route.request().url()
      if (new URL(url).origin === origin) return route.continue()
      problems.push(`request to another origin: ${url}`)
      return route.abort()
    })
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`))
    })
    const page = await context.newPage()
    if (FIREFOX) withoutStyleToggle(page)
    page.on('console', (m) => {
      if (m.type() !== 'error') return
      const where = m.location().url ?? ''
      if (allow.some((re) => re.test(`${m.text()} ${where}`))) return
      problems.push(`console error: ${m.text()} ${where}`)
    })
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    return {
      context,
      page,
      check: () => assert.deepEqual(problems, [], problems.join('\n')),
    }
  }

  /** Signs the context in as the web app would (POST /v1/sessions), without going through the sign-in page each time. */
  async function signIn(context: BrowserContext): Promise<void> {
    const res = await fetch(`${server.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    })
    assert.equal(res.status, 201)
    const value = /taskd_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]
    await context.addCookies([{ name: 'taskd_session', value, url: server.url, httpOnly: true, sameSite: 'Strict' }])
    // Also run in the first about:blank, whose storage Firefox refuses ("The operation is insecure").
    await context.addInitScript(() => {
      try {
        localStorage.setItem('taskd-signed-in', '1')
      } catch {
        // not the app's page
      }
    })
  }

  /** Runs `fn` in a signed-in context at `viewport`, checks the guards, closes the context. */
  async function inBrowser(fn: (page: Page) => Promise<void>, viewport = DESKTOP, allow: RegExp[] = [], options: BrowserContextOptions = {}): Promise<void> {
    const o = await open(viewport, allow, options)
    try {
      await signIn(o.context)
      await fn(o.page)
      o.check()
    } finally {
      await o.context.close()
    }
  }

  const openBoard = async (page: Page, query = '') => {
    await page.goto(`${server.url}/boards/${boardId}${query}`)
    await page.waitForSelector('.column .card')
  }
  const column = (page: Page, name: string) => page.locator('section.column', { has: page.locator(`h2:text-is("${name}")`) })
  const tile = (page: Page, title: string) => page.locator('.card', { hasText: title })

  let axeSource: string | undefined
  /**
   * axe-core's findings on the page as it is now; serious and critical ones fail the test. Its source is evaluated by
   * the driver (not loaded by the page), so the app's Content-Security-Policy stays exactly as users get it.
   */
  async function accessible(page: Page, view: string): Promise<void> {
    axeSource ??= fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
    const found = await page.evaluate(async () => {
      interface Finding {
        id: string
        impact: string | null
        help: string
        nodes: { target: unknown[] }[]
      }
      const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Finding[] }> } }).axe
      const { violations } = await axe.run(document, { resultTypes: ['violations'] })
      return violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)
    })
    assert.deepEqual(found, [], `axe on ${view} in ${NAME}:\n${found.join('\n')}`)
  }

  test('signs in with a password, shows boards by folder, signs out', async () => {
    const o = await open()
    try {
      const { page } = o
      await page.goto(`${server.url}/boards/${boardId}`)
      await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('next') === `/boards/${boardId}`)
      await page.screenshot({ path: path.join(SHOTS, 'sign-in-1280.png'), ...SHOT })
      await accessible(page, 'the sign-in page')
      await page.fill('input[name=email]', EMAIL)
      await page.fill('input[name=password]', PASSWORD)
      await page.click('button[type=submit]')
      // Back at the page asked for first.
      await page.waitForSelector('.column .card')
      await page.click('a.brand')
      await page.locator('section.folder[aria-label="Product"] .board-tile', { hasText: 'Launch' }).waitFor()
      await page.locator('section.folder[aria-label="Not in a folder"] .board-tile', { hasText: 'Side project' }).waitFor()
      await page.screenshot({ path: path.join(SHOTS, 'boards-1280.png'), ...SHOT })
      await page.click('text=Sign out')
      await page.waitForURL(/\/login$/)
      // The session has ended: the app asks to sign in again.
      await page.goto(`${server.url}/inbox`)
      await page.waitForURL(/\/login\?next=%2Finbox$/)
      o.check()
    } finally {
      await o.context.close()
    }
  })

  test('a login link signs in only when its page is submitted (a preview fetching it uses nothing)', async () => {
    const made = await runCli(['user', 'login-link', EMAIL, '--db', path.join(dir, 'taskd.db')])
    assert.equal(made.status, 0, made.stderr)
    const link = made.stdout.trim()
    const linkPath = new URL(link).pathname
    assert.match(linkPath, /^\/login\/\S+$/)
    // A link preview: a plain GET of the page, as a chat's preview bot makes it.
    const preview = await fetch(server.url + linkPath, { headers: { accept: 'text/html,*/*;q=0.8', 'user-agent': 'Slackbot-LinkExpanding 1.0' } })
    assert.equal(preview.status, 200)
    assert.match(await preview.text(), /<div id="app">/)
    const o = await open()
    try {
      await o.page.goto(server.url + linkPath)
      await o.page.click('text=Sign in with this link')
      await o.page.waitForSelector('.board-tile')
      o.check()
    } finally {
      await o.context.close()
    }
  })

  test('renders a board at 1280 px and at 360 px', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await inBrowser(async (page) => {
        await openBoard(page)
        assert.deepEqual(await page.locator('.column-head h2').allTextContents(), ['To do', 'In progress', 'Done'])
        await tile(page, 'Fix the login bug').locator('.tag', { hasText: 'bug' }).waitFor()
        await tile(page, 'Fix the login bug').locator('.prio', { hasText: 'urgent' }).waitFor()
        // Nothing sticks out sideways but the board's own scroller.
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the page scrolls sideways')
        await page.screenshot({ path: path.join(SHOTS, `board-${viewport.width}.png`), ...SHOT })
        await accessible(page, `a board at ${viewport.width} px`)
      }, viewport)
    }
  })

  test('moves a card by dragging it with the mouse', async () => {
    await inBrowser(async (page) => {
      await openBoard(page)
      const from = await tile(page, 'Design the logo').boundingBox()
      const to = await column(page, 'In progress').locator('.cards').boundingBox()
      assert.ok(from && to)
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
      await page.mouse.down()
      await page.mouse.move(from.x + from.width / 2 + 20, from.y + from.height / 2, { steps: 3 })
      await page.mouse.move(to.x + to.width / 2, to.y + 20, { steps: 8 })
      await page.locator('.column.drop-over .drop-gap').waitFor()
      await page.screenshot({ path: path.join(SHOTS, 'drag-1280.png'), ...SHOT })
      await page.mouse.up()
      await column(page, 'In progress').locator('.card', { hasText: 'Design the logo' }).waitFor()
      await until('the move to reach the API', async () => (await card('Design the logo')).list === lists['In progress'])
    })
  })

  test('moves a card with the keyboard (Space, arrows, Space), and c / ? / j work outside fields only', async () => {
    await inBrowser(async (page) => {
      await openBoard(page)
      await tile(page, 'Plan the keynote').focus()
      await page.keyboard.press('Space')
      await page.locator('.card.lifted').waitFor()
      await page.keyboard.press('ArrowRight')
      await page.keyboard.press('ArrowRight')
      await page.keyboard.press('Space')
      await column(page, 'Done').locator('.card', { hasText: 'Plan the keynote' }).waitFor()
      await until('the keyboard move to reach the API', async () => (await card('Plan the keynote')).list === lists['Done'])
      // j/k move the focus between cards of a column.
      await tile(page, 'Write the launch post').focus()
      await page.keyboard.press('j')
      const next = (await card('Fix the login bug')).key
      await page.waitForFunction((key) => (document.activeElement as HTMLElement | null)?.dataset.key === key, next)
      // ? opens the help; c opens a new card's field, where typing c does not open another.
      await page.keyboard.press('?')
      await page.locator('dialog.help[open]').waitFor()
      await page.keyboard.press('Escape')
      await page.keyboard.press('c')
      const field = page.locator('.new-card textarea')
      await field.waitFor()
      await field.type('Made with the c key')
      await page.keyboard.press('Enter')
      await column(page, 'To do').locator('.card', { hasText: 'Made with the c key' }).waitFor()
    })
  })

  test('moves a card with its "Move to…" menu on a phone', async () => {
    await inBrowser(async (page) => {
      await openBoard(page)
      await tile(page, 'Move me on a phone').locator('.move-button').click()
      await page.locator('dialog.move-menu[open]').waitFor()
      await page.screenshot({ path: path.join(SHOTS, 'move-menu-360.png'), ...SHOT })
      await page.click('button[aria-label="Move to the bottom of In progress"]')
      // The card's detail on a phone.
      await tile(page, 'Write the launch post').click()
      await page.locator('dialog.card-dialog[open] .description.markdown').waitFor()
      await page.screenshot({ path: path.join(SHOTS, 'card-360.png'), ...SHOT })
      await until('the Move to… move to reach the API', async () => (await card('Move me on a phone')).list === lists['In progress'])
      await column(page, 'In progress').locator('.card', { hasText: 'Move me on a phone' }).waitFor({ state: 'attached' })
    }, PHONE)
  })

  test('card detail: renders Markdown safely, edits the title and description, adds a comment and a checklist item, a file and time', async () => {
    await inBrowser(async (page) => {
      const key = (await card('Write the launch post')).key
      await page.goto(`${server.url}/cards/${key}`)
      const dialog = page.locator('dialog.card-dialog[open]')
      await dialog.locator('.description strong', { hasText: 'bold' }).waitFor()
      assert.equal(await dialog.locator('.description a').getAttribute('rel'), 'noopener noreferrer nofollow')
      await page.screenshot({ path: path.join(SHOTS, 'card-1280.png'), ...SHOT })
      await accessible(page, 'the card detail')
      // The title.
      await page.fill('#card-title', 'Write the launch post (edited)')
      await page.keyboard.press('Enter')
      await until('the title to be saved', async () => (await card('Write the launch post')).title === 'Write the launch post (edited)')
      // The description, with raw HTML that must not become HTML.
      const key2 = (await card('Edit me in detail')).key
      await page.goto(`${server.url}/cards/${key2}`)
      await dialog.locator('text=Old text').waitFor()
      await dialog.locator('button', { hasText: 'Edit' }).click()
      await page.fill('#desc-text', 'New *text* <img src=x onerror=alert(1)>')
      await dialog.locator('button', { hasText: 'Save' }).click()
      await dialog.locator('.description em', { hasText: 'text' }).waitFor()
      assert.equal(await dialog.locator('.description img').count(), 0)
      // A comment.
      await page.fill('#new-comment', 'Looks **good**')
      await dialog.locator('button', { hasText: 'Comment' }).click()
      await dialog.locator('.comment strong', { hasText: 'good' }).waitFor()
      const comments = await call('GET', `/v1/comments?card=${cardIds['Edit me in detail']}`)
      assert.deepEqual(
        comments.items.map((c: { body: string }) => c.body),
        ['Looks **good**'],
      )
      // A checklist and an item, ticked.
      await page.fill('#new-checklist', 'Steps')
      await page.keyboard.press('Enter')
      const item = dialog.locator('.checklist input[placeholder="Add an item"]')
      await item.waitFor()
      await item.fill('First step')
      await page.keyboard.press('Enter')
      await dialog.locator('.checklist label', { hasText: 'First step' }).locator('input').check()
      await until('the item to be ticked', async () => (await card('Edit me in detail')).checklist_progress.done === 1)
      // A file, uploaded and listed with its download link; the timer started and stopped.
      await dialog.locator('.upload input[type=file]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
      const file = dialog.locator('.files a', { hasText: 'notes.txt' })
      await file.waitFor()
      const href = await file.getAttribute('href')
      assert.match(href ?? '', /^\/v1\/files\/\w+\/content$/)
      assert.equal(await (await fetch(server.url + href, { headers: { authorization: `Bearer ${token}` } })).text(), 'hello')
      await dialog.locator('.timer button', { hasText: 'Start' }).click()
      await dialog.locator('.timer-clock').waitFor()
      await dialog.locator('.timer button', { hasText: 'Stop' }).click()
      await dialog.locator('.timer button', { hasText: 'Start' }).waitFor()
      const entries = await call('GET', `/v1/time-entries?card=${cardIds['Edit me in detail']}`)
      assert.equal(entries.items.length, 1)
      // Esc closes the dialog back to the board.
      await page.keyboard.press('Escape')
      await page.waitForURL(new RegExp(`/boards/${boardId}$`))
    })
  })

  test('the filter bar takes the filter grammar, keeps it in the URL and shows where an error is', async () => {
    await inBrowser(
      async (page) => {
        await openBoard(page)
        await page.fill('#filter-input', 'priority >= ')
        await page.keyboard.press('Enter')
        const error = page.locator('#filter-error')
        await error.waitFor()
        // The field's text is trimmed: "priority >=" ends at 11, and the API says a value was wanted at 12.
        assert.match((await error.textContent()) ?? '', /at 12: expected a value/)
        assert.equal((await error.locator('.caret').textContent())?.split('\n')[1], `${' '.repeat(11)}^`)
        await page.screenshot({ path: path.join(SHOTS, 'filter-error-1280.png'), ...SHOT })
        await page.fill('#filter-input', 'priority >= 3')
        await page.keyboard.press('Enter')
        await page.waitForURL((u) => u.searchParams.get('filter') === 'priority >= 3')
        await error.waitFor({ state: 'detached' })
        await page.waitForFunction(() => document.querySelectorAll('.column .card').length === 1)
        assert.match((await page.locator('.column .card').textContent()) ?? '', /Fix the login bug/)
        // A filter in the URL applies when the page loads.
        await page.reload()
        await page.waitForFunction(() => document.querySelectorAll('.column .card').length === 1)
      },
      DESKTOP,
      [/status of 400/],
    )
  })

  test('search: / opens it, results link to their cards', async () => {
    await inBrowser(async (page) => {
      await openBoard(page)
      await page.keyboard.press('/')
      await page.waitForURL(/\/search$/)
      await page.locator('#search-input:focus').waitFor()
      await page.keyboard.type('logo')
      await page.keyboard.press('Enter')
      const hit = page.locator('.results a', { hasText: 'Design the logo' })
      await hit.waitFor()
      await hit.click()
      await page.locator('dialog.card-dialog[open] #card-title').waitFor()
      assert.equal(await page.inputValue('#card-title'), 'Design the logo')
    })
  })

  test('a change made through the API appears on an open board without a reload', async () => {
    await inBrowser(async (page) => {
      await openBoard(page)
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1))
      await page.locator('.live-dot.live').waitFor()
      await call('POST', '/v1/cards', { board: boardId, list: lists['In progress'], title: 'Made elsewhere' })
      await call('PATCH', `/v1/cards/${cardIds['Fix the login bug']}`, { title: 'Fix the login bug (renamed elsewhere)' })
      await column(page, 'In progress').locator('.card', { hasText: 'Made elsewhere' }).waitFor()
      await tile(page, 'Fix the login bug (renamed elsewhere)').waitFor()
      assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 1, 'the page was reloaded')
    })
  })

  test('settings: an agent is added, owned by the person who added it, with local access', async () => {
    await inBrowser(async (page) => {
      await page.goto(`${server.url}/settings/agents`)
      const form = page.locator('form', { has: page.locator('text=Add agent') })
      await form.locator('label:has-text("New agent") input').fill('Desk helper')
      await form.locator('button[type=submit]').click()
      await page.locator('tr', { hasText: 'Desk helper' }).locator('td', { hasText: 'local_access' }).waitFor()
    })
    const agents = (await call('GET', `/v1/users?per_page=500&filter=${encodeURIComponent('kind = "agent"')}`)).items.filter(
      (u: { name: string }) => u.name === 'Desk helper',
    )
    assert.equal(agents.length, 1)
    assert.deepEqual(agents[0].agent.powers, ['local_access'])
  })

  test('settings: a webhook is created, sends a test delivery and shows it in its delivery log', async () => {
    const received: string[] = []
    const receiver = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        received.push(body)
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    try {
      await inBrowser(async (page) => {
        await page.goto(`${server.url}/`)
        await page.click('text=Settings')
        await page.click('.settings-nav >> text=Webhooks')
        await page.waitForURL(/\/settings\/webhooks$/)
        const form = page.locator('form', { has: page.locator('text=Add webhook') })
        await form.locator('label:has-text("Name") input').fill('Local receiver')
        await form.locator('label:has-text("URL") input').fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`)
        await form.locator('button[type=submit]').click()
        const record = page.locator('.records li', { hasText: 'Local receiver' })
        await record.waitFor()
        await page.locator('code.secret').waitFor()
        await record.locator('button', { hasText: 'Send test' }).click()
        await until('the test delivery to arrive', () => received.some((b) => b.includes('webhook.test')))
        await record.locator('button', { hasText: 'Delivery log' }).click()
        await until('the delivery log to show it', async () => {
          await record.locator('button', { hasText: 'Refresh' }).click()
          return (await record.locator('.log td', { hasText: 'delivered' }).count()) > 0
        })
        await page.screenshot({ path: path.join(SHOTS, 'settings-webhooks-1280.png'), ...SHOT })
        await accessible(page, 'the webhook settings')
      })
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()))
    }
  })

  /**
   * A finger's press, hold and move from `from` to `to`: in Chromium real touch input (CDP's Input.dispatchTouchEvent,
   * which the browser turns into touch and pointer events of type "touch"); in Firefox, whose BiDi driver sends no touch
   * moves, the pointer events of type "touch" that the app listens to, dispatched in the page. `held` resolves when the
   * app has picked the card up (after its press delay), `over` when it shows where the card would land.
   */
  async function touchDrag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }, over: () => Promise<void>): Promise<void> {
    const held = () => page.locator('.card.dragging').waitFor({ state: 'attached' })
    const steps = 8
    const at = (i: number) => ({ x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps })
    if (!FIREFOX) {
      const cdp = await page.context().newCDPSession(page)
      try {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [from] })
        await held()
        for (let i = 1; i <= steps; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at(i)] })
        await over()
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] })
      } finally {
        await cdp.detach()
      }
      return
    }
    const send = (type: string, p: { x: number; y: number }) =>
      page.evaluate(
        ({ type, x, y }) => {
          const target = document.elementFromPoint(x, y) ?? document.body
          const init = { bubbles: true, cancelable: true, composed: true, pointerId: 9, pointerType: 'touch', isPrimary: true, clientX: x, clientY: y }
          target.dispatchEvent(new PointerEvent(type, { ...init, button: type === 'pointermove' ? -1 : 0, buttons: type === 'pointerup' ? 0 : 1 }))
        },
        { type, ...p },
      )
    await send('pointerdown', from)
    await held()
    for (let i = 1; i <= steps; i++) await send('pointermove', at(i))
    await over()
    await send('pointerup', to)
  }

  test('moves a card by dragging it with a finger (press, hold, move, lift)', async () => {
    const title = 'Drag me with a finger'
    cardIds[title] = (await call('POST', '/v1/cards', { board: boardId, list: lists['To do'], title })).card.id
    await inBrowser(
      async (page) => {
        await openBoard(page)
        await tile(page, title).scrollIntoViewIfNeeded()
        const from = await tile(page, title).boundingBox()
        const to = await column(page, 'Done').locator('.cards').boundingBox()
        assert.ok(from && to)
        await touchDrag(page, { x: from.x + from.width / 2, y: from.y + from.height / 2 }, { x: to.x + to.width / 2, y: to.y + 20 }, () =>
          page.locator('.column.drop-over .drop-gap').waitFor(),
        )
        await column(page, 'Done').locator('.card', { hasText: title }).waitFor()
        await until('the touch move to reach the API', async () => (await card(title)).list === lists['Done'])
      },
      DESKTOP,
      [],
      { hasTouch: !FIREFOX },
    )
  })

  test('card detail: an agent run proposed done is approved, another is returned with feedback', async () => {
    const owner = (await call('GET', '/v1/users/me')).user
    const agent = (await call('POST', '/v1/users', { kind: 'agent', name: 'Copy writer', agent: { owner: owner.id, powers: ['local_access'] } })).user
    await call('POST', `/v1/boards/${boardId}/members`, { user: agent.id })
    const agentToken = (await call('POST', '/v1/tokens', { name: 'Copy writer', user: agent.id, permission: 'write' })).value as string
    const runs: Record<string, { run: string; key: string }> = {}
    for (const title of ['Approve my draft', 'Return my draft']) {
      const made = (await call('POST', '/v1/cards', { board: boardId, list: lists['In progress'], title })).card
      await call('POST', '/v1/agent-kickoffs', { card: made.id, agent: agent.id })
      // The owner's desktop app claims it (local access): delivered, the run starts; the agent then proposes it done.
      // Waits for the kickoff (a long-poll answered as soon as it can be claimed), rather than asking once.
      const claimed = await call('POST', '/v1/agent-kickoffs/claim', { wait_seconds: 10 })
      assert.equal(claimed.card.id, made.id)
      const run = claimed.kickoff.run as string
      await callAs(agentToken, 'POST', `/v1/agent-runs/${run}/activity`, { type: 'started' })
      await callAs(agentToken, 'POST', `/v1/agent-runs/${run}/activity`, { type: 'done_proposed', summary: 'The draft is **ready**' })
      runs[title] = { run, key: made.key }
    }
    const status = async (title: string) => (await call('GET', `/v1/agent-runs/${runs[title].run}`)).agent_run.status
    await inBrowser(async (page) => {
      const dialog = page.locator('dialog.card-dialog[open]')
      await page.goto(`${server.url}/cards/${runs['Approve my draft'].key}`)
      const proposed = dialog.locator('.runs li', { hasText: 'Copy writer' })
      await proposed.locator('strong', { hasText: 'ready' }).waitFor()
      await proposed.locator('button', { hasText: 'Approve' }).click()
      await proposed.locator('.status', { hasText: 'completed' }).waitFor()
      assert.equal(await status('Approve my draft'), 'completed')
      // Approving completes the card too.
      await dialog.locator('label.check', { hasText: 'Completed' }).locator('input:checked').waitFor()

      await page.goto(`${server.url}/cards/${runs['Return my draft'].key}`)
      const other = dialog.locator('.runs li', { hasText: 'Copy writer' })
      await other.getByLabel('Feedback for Copy writer').fill('Shorter, please')
      await other.locator('button', { hasText: 'Return' }).click()
      await other.locator('.status', { hasText: 'running' }).waitFor()
      assert.equal(await status('Return my draft'), 'running')
    })
  })

  test('card detail: a number and a select custom field are edited and kept', async () => {
    const estimate = (await call('POST', '/v1/xattr', { board: boardId, name: 'Estimate', type: 'number' })).xattr_field
    const stage = (await call('POST', '/v1/xattr', { board: boardId, name: 'Stage', type: 'select', options: ['Design', 'Build', 'Ship'] })).xattr_field
    const build = stage.options.find((o: { name: string }) => o.name === 'Build').id
    const title = 'Give me custom fields'
    const made = (await call('POST', '/v1/cards', { board: boardId, list: lists['To do'], title })).card
    cardIds[title] = made.id
    await inBrowser(async (page) => {
      await page.goto(`${server.url}/cards/${made.key}`)
      const fieldset = page.locator('dialog.card-dialog[open] fieldset.custom-fields')
      await fieldset.getByLabel('Estimate').fill('8')
      await fieldset.getByLabel('Estimate').press('Tab')
      await fieldset.getByLabel('Stage').selectOption({ label: 'Build' })
      await until('the values to reach the API', async () => {
        const x = (await card(title)).xattr
        return x[estimate.key] === 8 && x[stage.key] === build
      })
      // Read back after a reload: the values are the card's.
      await page.reload()
      await page.waitForFunction(() => (document.querySelector('fieldset.custom-fields input[type=number]') as HTMLInputElement | null)?.value === '8')
      assert.equal(await fieldset.getByLabel('Stage').inputValue(), build)
    })
  })

  test('settings: an automation made with the form (event, filter, two actions) runs; another from JSON', async () => {
    const title = 'Ship the release notes'
    cardIds[title] = (await call('POST', '/v1/cards', { board: boardId, list: lists['To do'], title, priority: 3 })).card.id
    await inBrowser(async (page) => {
      await page.goto(`${server.url}/settings/automations`)
      const form = page.locator('form.automation-form')
      await form.getByLabel('Name', { exact: true }).fill('Thank and file')
      await form.locator('select[name=board]').selectOption({ label: 'Launch' })
      await form.getByLabel('Events').fill('card.completed')
      await form.getByLabel('Only for cards matching').fill('priority >= 3')
      await form.getByLabel('Comment', { exact: true }).fill('Done: {event.data.title}')
      await form.locator('button', { hasText: 'Add an action' }).click()
      const second = form.locator('fieldset.automation-action').nth(1)
      await second.locator('select[name=action-2]').selectOption('move_card')
      await second.locator('select[name=list-2]').selectOption({ label: 'Done' })
      // From the top: a full-page screenshot of a scrolled page shows the sticky header where the scroll left it.
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.screenshot({ path: path.join(SHOTS, 'settings-automations-1280.png'), fullPage: true, ...SHOT })
      await accessible(page, 'the automation settings')
      await form.locator('button[type=submit]').click()
      await page.locator('.records li', { hasText: 'Thank and file' }).waitFor()

      // What the form does not cover, as JSON, started from the form.
      await page.locator('details.automation-json summary').click()
      await page.locator('button', { hasText: 'Copy the form as JSON' }).click()
      const json = JSON.parse(await page.locator('#automation-json').inputValue())
      assert.equal(json.trigger.type, 'event')
      const written = { ...json, name: 'Raise urgent ones', steps: [{ type: 'update_card', card: '{event.data.id}', priority: 4 }] }
      await page.locator('#automation-json').fill(JSON.stringify(written))
      await page.locator('button', { hasText: 'Create from JSON' }).click()
      await page.locator('.records li', { hasText: 'Raise urgent ones' }).waitFor()
    })
    const made = (await call('GET', '/v1/automations?per_page=100')).items.find((a: { name: string }) => a.name === 'Thank and file')
    assert.deepEqual(made.trigger, { type: 'event', events: ['card.completed'], filter: 'priority >= 3' })
    assert.deepEqual(made.steps, [
      { type: 'add_comment', card: '{event.data.id}', body: 'Done: {event.data.title}' },
      { type: 'move_card', card: '{event.data.id}', list: lists['Done'] },
    ])
    // It runs: completing a matching card comments on it, then moves it.
    await call('PATCH', `/v1/cards/${cardIds[title]}`, { completed: true })
    await until('the automation to comment', async () =>
      (await call('GET', `/v1/comments?card=${cardIds[title]}`)).items.some((c: { body: string }) => c.body === `Done: ${title}`),
    )
    await until('the automation to move the card', async () => (await card(title)).list === lists['Done'])
  })
})
