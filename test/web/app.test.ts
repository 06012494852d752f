// The web app in a real browser: Debian's Chromium driven by playwright-core (no browser download), against `taskd
// serve` on 127.0.0.1 with a fresh database. One browser for the file, a context per test. Every test fails on a
// request to another origin (aborted), a console error, an uncaught page error or a Content-Security-Policy violation.
// Screenshots of the views go to dist/web-screenshots/ (TASKD_WEB_SCREENSHOTS=DIR for another folder).
// Without Chromium the file skips with a notice, or fails where TASKD_TEST_REQUIRE_BROWSER=1 (CI).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { runCli } from '../helpers/cli.js'
import { cleanEnv, ROOT, serve, type Served } from '../helpers/serve.js'
import { until } from '../helpers/until.js'

const CHROMIUM = process.env.TASKD_TEST_CHROMIUM ?? '/usr/bin/chromium'
const haveBrowser = fs.existsSync(CHROMIUM)
if (!haveBrowser && process.env.TASKD_TEST_REQUIRE_BROWSER === '1') {
  test('Chromium is installed for the web app tests', () => assert.fail(`no Chromium at ${CHROMIUM} (apt-get install chromium)`))
}
if (!haveBrowser) console.log(`# web app browser tests SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set TASKD_TEST_CHROMIUM)`)

const SHOTS = process.env.TASKD_WEB_SCREENSHOTS ?? path.join(ROOT, 'dist/web-screenshots')
const EMAIL = 'owner@localhost'
const PASSWORD = 'a long test passphrase'
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 360, height: 740 }

describe('the web app in Chromium', { skip: !haveBrowser }, () => {
  let dir: string
  let server: Served
  let browser: Browser
  let token: string
  let boardId: string
  const lists: Record<string, string> = {}
  const cardIds: Record<string, string> = {}

  const call = async (method: string, p: string, body?: unknown): Promise<any> => {
    const res = await fetch(server.url + p, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    assert.ok(res.ok, `${method} ${p}: ${res.status} ${text}`)
    return text ? JSON.parse(text) : undefined
  }
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
    const { chromium } = await import('playwright-core')
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
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
  async function open(viewport = DESKTOP, allow: RegExp[] = []): Promise<Opened> {
    const context = await browser.newContext({ viewport })
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
    await context.addInitScript(() => localStorage.setItem('taskd-signed-in', '1'))
  }

  /** Runs `fn` in a signed-in context at `viewport`, checks the guards, closes the context. */
  async function inBrowser(fn: (page: Page) => Promise<void>, viewport = DESKTOP, allow: RegExp[] = []): Promise<void> {
    const o = await open(viewport, allow)
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

  test('signs in with a password, shows boards by folder, signs out', async () => {
    const o = await open()
    try {
      const { page } = o
      await page.goto(`${server.url}/boards/${boardId}`)
      await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('next') === `/boards/${boardId}`)
      await page.screenshot({ path: path.join(SHOTS, 'sign-in-1280.png') })
      await page.fill('input[name=email]', EMAIL)
      await page.fill('input[name=password]', PASSWORD)
      await page.click('button[type=submit]')
      // Back at the page asked for first.
      await page.waitForSelector('.column .card')
      await page.click('a.brand')
      await page.locator('section.folder[aria-label="Product"] .board-tile', { hasText: 'Launch' }).waitFor()
      await page.locator('section.folder[aria-label="Not in a folder"] .board-tile', { hasText: 'Side project' }).waitFor()
      await page.screenshot({ path: path.join(SHOTS, 'boards-1280.png') })
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
        await page.screenshot({ path: path.join(SHOTS, `board-${viewport.width}.png`) })
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
      await page.screenshot({ path: path.join(SHOTS, 'drag-1280.png') })
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
      await page.screenshot({ path: path.join(SHOTS, 'move-menu-360.png') })
      await page.click('button[aria-label="Move to the bottom of In progress"]')
      // The card's detail on a phone.
      await tile(page, 'Write the launch post').click()
      await page.locator('dialog.card-dialog[open] .description.markdown').waitFor()
      await page.screenshot({ path: path.join(SHOTS, 'card-360.png') })
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
      await page.screenshot({ path: path.join(SHOTS, 'card-1280.png') })
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
        await page.screenshot({ path: path.join(SHOTS, 'filter-error-1280.png') })
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
        await page.screenshot({ path: path.join(SHOTS, 'settings-webhooks-1280.png') })
      })
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()))
    }
  })
})
