// Tests the webhook URL rules and the SSRF address policy against hostile URLs in every notation.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  checkTargetAtSave,
  checkWebhookUrl,
  createPinnedLookup,
  isInternalName,
  isPrivateAddress,
  type LookupAll,
  type ResolvedAddress,
} from '../../src/delivery/url-safety.js'

const PUBLIC_V4 = '93.184.215.14'
const fixed =
  (...addresses: string[]): LookupAll =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
const publicLookup = fixed(PUBLIC_V4)

const HOSTILE: Array<[label: string, url: string]> = [
  ['decimal IPv4', 'http://2130706433/'],
  ['hex IPv4', 'http://0x7f000001/'],
  ['hex short IPv4', 'http://0x7f.1/'],
  ['octal IPv4', 'http://0177.0.0.1/'],
  ['short IPv4', 'http://127.1/'],
  ['percent-encoded IPv4', 'http://%31%32%37.0.0.1/'],
  ['loopback with port', 'http://127.0.0.1:8080/hook'],
  ['unspecified 0.0.0.0', 'http://0.0.0.0/'],
  ['bare 0', 'http://0/'],
  ['IPv6 loopback', 'http://[::1]/'],
  ['IPv6 unspecified', 'http://[::]/'],
  ['IPv4-mapped dotted', 'http://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped hex', 'http://[::ffff:7f00:1]/'],
  ['IPv4-mapped metadata', 'http://[::ffff:169.254.169.254]/'],
  ['IPv4-compatible', 'http://[::127.0.0.1]/'],
  ['NAT64 of 10.0.0.1', 'http://[64:ff9b::a00:1]/'],
  ['local-use NAT64', 'http://[64:ff9b:1::a00:1]/'],
  ['6to4 of 127.0.0.1', 'http://[2002:7f00:1::1]/'],
  ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
  ['CGNAT', 'http://100.64.0.1/'],
  ['10/8', 'http://10.1.2.3/'],
  ['172.16/12 low', 'http://172.16.0.1/'],
  ['172.16/12 high', 'http://172.31.255.254/'],
  ['192.168/16', 'http://192.168.1.1/'],
  ['IPv6 link-local', 'http://[fe80::1]/'],
  ['IPv6 unique-local fc00', 'http://[fc00::1]/'],
  ['IPv6 unique-local fd', 'http://[fd12:3456::1]/'],
  ['IPv6 site-local', 'http://[fec0::1]/'],
  ['IPv4 multicast', 'http://224.0.0.1/'],
  ['IPv6 multicast', 'http://[ff02::1]/'],
  ['broadcast', 'http://255.255.255.255/'],
  ['reserved 240/4', 'http://240.0.0.1/'],
  ['documentation range', 'http://192.0.2.10/'],
  ['localhost', 'http://localhost/'],
  ['localhost with dot', 'http://localhost./'],
  ['localhost upper case', 'http://LOCALHOST:3000/'],
  ['sub.localhost', 'http://foo.localhost/'],
  ['mDNS .local', 'http://printer.local/'],
  ['.internal', 'http://metadata.google.internal/'],
  ['.localdomain', 'http://box.localdomain/'],
  ['.home.arpa', 'http://router.home.arpa/'],
  ['single-label name', 'http://intranet/'],
  ['credentials', 'http://user:pass@example.com/'],
  ['user only', 'http://user@example.com/'],
  ['empty userinfo', 'http://@example.com/'],
  ['ftp', 'ftp://example.com/'],
  ['javascript', 'javascript:alert(1)'],
  ['file', 'file:///etc/passwd'],
  ['gopher', 'gopher://example.com/'],
  ['data', 'data:text/plain,hi'],
  ['scheme-relative', '//example.com/hook'],
  ['fragment', 'https://example.com/hook#x'],
  ['bare fragment', 'https://example.com/hook#'],
  ['over-long', 'https://example.com/' + 'a'.repeat(2100)],
  ['missing host', 'http:///path'],
  ['nothing after scheme', 'http://'],
  ['backslash trick', 'http://example.com\\@127.0.0.1/'],
  ['tab inside host', 'http://exa\tmple.com/'],
  ['empty', ''],
]

test('WHATWG URL normalizes odd IPv4 notations to a dotted quad (the save check relies on it)', () => {
  for (const u of ['http://2130706433/', 'http://0x7f000001/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/']) {
    assert.equal(new URL(u).hostname, '127.0.0.1', u)
  }
  assert.equal(new URL('http://[::ffff:127.0.0.1]/').hostname, '[::ffff:7f00:1]')
})

test(`refuses ${HOSTILE.length} hostile URLs at save without consulting DNS for them`, async () => {
  assert.ok(HOSTILE.length >= 30)
  for (const [label, url] of HOSTILE) {
    const asked: string[] = []
    const lookup: LookupAll = async (h) => {
      asked.push(h)
      return publicLookup(h)
    }
    const res = await checkTargetAtSave(url, { allowPrivate: false, lookup })
    assert.equal(res.ok, false, `${label}: ${url.slice(0, 80)} should be refused`)
    if (!res.ok) assert.ok(res.reason.length > 5, `${label}: has a readable reason`)
    assert.deepEqual(asked, [], `${label}: refused before any lookup`)
  }
})

test('accepts ordinary public URLs', async () => {
  for (const url of [
    'https://example.com/hooks/taskd',
    'http://hooks.example.org:8080/path?x=1&y=2',
    'HTTPS://Example.COM/x',
    'https://203.0.114.10/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://[64:ff9b::808:808]/nat64-of-public',
  ]) {
    assert.deepEqual(await checkTargetAtSave(url, { allowPrivate: false, lookup: publicLookup }), { ok: true }, url)
  }
})

test('refuses a name resolving to a private address, even beside a public one', async () => {
  const one = await checkTargetAtSave('https://evil.example.com/', { allowPrivate: false, lookup: fixed('127.0.0.1') })
  assert.deepEqual(one, { ok: false, reason: 'evil.example.com resolves to 127.0.0.1, a private or reserved address' })
  const mixed = await checkTargetAtSave('https://mixed.example.com/', { allowPrivate: false, lookup: fixed(PUBLIC_V4, '10.0.0.7') })
  assert.equal(mixed.ok, false)
  const v6 = await checkTargetAtSave('https://v6.example.com/', { allowPrivate: false, lookup: fixed('::ffff:192.168.0.1') })
  assert.equal(v6.ok, false)
})

test('refuses a name that does not resolve, with a readable reason', async () => {
  const notFound: LookupAll = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
  }
  assert.deepEqual(await checkTargetAtSave('https://nope.example.com/', { allowPrivate: false, lookup: notFound }), {
    ok: false,
    reason: 'host nope.example.com does not resolve',
  })
  assert.equal((await checkTargetAtSave('https://empty.example.com/', { allowPrivate: false, lookup: fixed() })).ok, false)
})

test('allowPrivate lets private targets through but keeps the syntax rules', async () => {
  const lookup = fixed('10.0.0.1')
  for (const url of ['http://127.0.0.1:3000/hook', 'http://localhost/', 'http://[::1]/', 'http://svc.internal/']) {
    assert.deepEqual(await checkTargetAtSave(url, { allowPrivate: true, lookup }), { ok: true }, url)
  }
  for (const url of ['ftp://localhost/', 'http://localhost/#x', 'http://a:b@localhost/']) {
    assert.equal((await checkTargetAtSave(url, { allowPrivate: true, lookup })).ok, false, url)
  }
})

test('checkWebhookUrl gives specific reasons', () => {
  const reason = (u: string) => {
    const r = checkWebhookUrl(u)
    return r.ok ? 'ok' : r.reason
  }
  assert.equal(reason('ftp://x.example/'), 'URL must start with http:// or https://')
  assert.equal(reason('https://x.example/#'), 'URL must not contain a # fragment')
  assert.equal(reason('https://u:p@x.example/'), 'URL must not contain credentials (user:password@)')
  assert.equal(reason('http:///x'), 'URL must have a host')
  assert.equal(reason('https://x.example/' + 'a'.repeat(2048)), 'URL must be at most 2048 characters')
  const ok = checkWebhookUrl('https://x.example/a?b=c')
  assert.ok(ok.ok && ok.url.hostname === 'x.example')
})

test('isPrivateAddress: public and private addresses', () => {
  for (const ip of ['8.8.8.8', '1.1.1.1', PUBLIC_V4, '2606:4700:4700::1111', '2a00:1450:4001::1', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
    assert.equal(isPrivateAddress(ip), false, ip)
  }
  for (const ip of [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '0.1.2.3',
    '255.255.255.255',
    '224.0.0.251',
    '240.0.0.1',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fdff::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:0:7f00:1',
    '::7f00:1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::808:808',
    '2002:a00:1::',
    '2002:c0a8:101::',
    '2001::1',
    '2001:db8::1',
    '100::1',
    'not-an-ip',
    '',
  ]) {
    assert.equal(isPrivateAddress(ip), true, ip)
  }
})

test('isInternalName', () => {
  for (const n of ['localhost', 'localhost.', 'a.b.localhost', 'nas.local', 'x.internal', 'h.localdomain', 'r.home.arpa', 'intranet', 'intranet.']) {
    assert.equal(isInternalName(n), true, n)
  }
  for (const n of ['example.com', 'example.com.', 'localhost.example.com', 'local.example.org']) assert.equal(isInternalName(n), false, n)
})

function callPinned(lookup: LookupAll, allowPrivate: boolean, host: string, all: boolean) {
  return new Promise<{ err: Error | null; address: string | ResolvedAddress[]; family?: number }>((resolve) => {
    createPinnedLookup({ allowPrivate, lookup })(host, { all }, (err, address, family) => resolve({ err, address, family }))
  })
}

test('pinned lookup hands back the checked addresses, in both callback shapes', async () => {
  const single = await callPinned(publicLookup, false, 'hooks.example.com', false)
  assert.deepEqual(single, { err: null, address: PUBLIC_V4, family: 4 })
  const many = await callPinned(fixed(PUBLIC_V4, '2606:4700::1'), false, 'hooks.example.com', true)
  assert.equal(many.err, null)
  assert.deepEqual(many.address, [
    { address: PUBLIC_V4, family: 4 },
    { address: '2606:4700::1', family: 6 },
  ])
})

test('pinned lookup refuses a private answer unless private targets are allowed', async () => {
  const refused = await callPinned(fixed('127.0.0.1'), false, 'rebind.example.com', true)
  assert.match(String(refused.err?.message), /rebind\.example\.com resolves to 127\.0\.0\.1/)
  assert.equal((refused.err as NodeJS.ErrnoException).code, 'ERR_WEBHOOK_TARGET_REFUSED')
  const allowed = await callPinned(fixed('127.0.0.1'), true, 'rebind.example.com', false)
  assert.deepEqual(allowed, { err: null, address: '127.0.0.1', family: 4 })
})
