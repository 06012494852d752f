// Decides whether an outgoing webhook URL may be saved and whether the address a delivery connects to may be used (SSRF guard).
import dns from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

export const MAX_URL_LENGTH = 2048

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string }
export type TargetCheck = { ok: true } | { ok: false; reason: string }
export type ResolvedAddress = { address: string; family: number }
/** Resolves a host name to every address it has; `dns.promises.lookup(host, { all: true })` in production. */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>

export const systemLookupAll: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true })

/** Error raised when a target is refused; its code lets the sender report `refused_target`. */
export class TargetRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_TARGET_REFUSED'
  constructor(message: string) {
    super(message)
    this.name = 'TargetRefusedError'
  }
}

/** Syntax rules only: no DNS, no address policy. */
export function checkWebhookUrl(raw: string): UrlCheck {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'URL is required' }
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `URL must be at most ${MAX_URL_LENGTH} characters` }
  if (!/^https?:\/\//i.test(raw)) return { ok: false, reason: 'URL must start with http:// or https://' }
  // The WHATWG parser silently strips tabs/newlines and treats "\" as "/", so other parsers could
  // read such a string differently from us; refuse them rather than guess.
  if (/[\s\x00-\x1f\x7f]/.test(raw)) return { ok: false, reason: 'URL must not contain spaces or control characters' }
  if (raw.includes('\\')) return { ok: false, reason: 'URL must not contain backslashes' }
  // Checked on the raw text: `new URL` drops an empty fragment, but a webhook URL may carry no "#" at all.
  if (raw.includes('#')) return { ok: false, reason: 'URL must not contain a # fragment' }
  const authority = raw.slice(raw.indexOf('//') + 2).split(/[/?]/, 1)[0] ?? ''
  // A raw check, because `new URL('http:///x')` quietly turns the path into the host.
  if (authority === '') return { ok: false, reason: 'URL must have a host' }
  if (authority.includes('@')) return { ok: false, reason: 'URL must not contain credentials (user:password@)' }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: 'URL is not valid' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'URL must start with http:// or https://' }
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'URL must not contain credentials (user:password@)' }
  if (url.hostname === '') return { ok: false, reason: 'URL must have a host' }
  return { ok: true, url }
}

/**
 * The path and query to send for a checked URL, as written: `.` and `..` segments written out are resolved as a browser
 * would, but a percent-encoded dot (`%2E`) stays part of its segment. The WHATWG parser would read `%2E%2E` as `..` and
 * climb, so a placeholder that filled a segment with `..` (encoded by the automation as `%2E%2E`) could reach another
 * path; sent this way a filled-in value is one segment, and the path keeps the number of segments its template has.
 */
export function requestTarget(raw: string, url: URL): string {
  const afterScheme = raw.indexOf('//') + 2
  const pathStart = raw.slice(afterScheme).search(/[/?]/)
  const rest = pathStart < 0 ? '' : raw.slice(afterScheme + pathStart)
  const query = rest.indexOf('?')
  const rawPath = query < 0 ? rest : rest.slice(0, query)
  const segments: string[] = []
  const written = rawPath.split('/').slice(1)
  for (const [i, segment] of written.entries()) {
    const last = i === written.length - 1
    if (segment === '.' || segment === '..') {
      if (segment === '..') segments.pop()
      if (last) segments.push('')
      continue
    }
    // The segment encoded as the WHATWG parser encodes one (spaces, quotes, non-ASCII...), behind a letter so that it
    // is never read as a dot segment.
    segments.push(new URL(`http://h/x${segment}`).pathname.slice(2))
  }
  return `/${segments.join('/')}${url.search}`
}

function parseIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  if (!ipaddr.isValid(bare)) return null
  return ipaddr.parse(bare)
}

function isPrivateV4(v4: ipaddr.IPv4): boolean {
  // ipaddr.js names every special-purpose block (loopback, private, linkLocal incl. 169.254.169.254,
  // carrierGradeNat, multicast, unspecified 0/8, broadcast, reserved, ...); only 'unicast' is global.
  return v4.range() !== 'unicast'
}

function v4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
}

function isPrivateV6(v6: ipaddr.IPv6): boolean {
  const p = v6.parts
  const range = v6.range()
  // Forms that carry an IPv4 address inside: judge the embedded address, since that is where
  // the packets end up (::ffff:a.b.c.d, ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002:aabb:ccdd::).
  if (range === 'ipv4Mapped' || range === 'rfc6145') return isPrivateV4(v4FromParts(p[6], p[7]))
  if (range === 'rfc6052') {
    // 64:ff9b:1::/48 is local-use NAT64 (RFC 8215): where the v4 sits depends on local setup.
    if (p[2] !== 0) return true
    return isPrivateV4(v4FromParts(p[6], p[7]))
  }
  if (range === '6to4') return isPrivateV4(v4FromParts(p[1], p[2]))
  // Teredo tunnels to an obfuscated, unverifiable v4 endpoint; nothing legitimate needs it here.
  if (range === 'teredo') return true
  // Everything else must be plain global unicast inside 2000::/3; this also refuses the
  // deprecated IPv4-compatible ::a.b.c.d, site-local fec0::/10 and discard 100::/64.
  if (range !== 'unicast') return true
  return (p[0] & 0xe000) !== 0x2000
}

/** True for anything that is not plainly global unicast; an unparseable string counts as private (fail closed). */
export function isPrivateAddress(ip: string): boolean {
  const addr = parseIp(ip)
  if (addr === null) return true
  return addr.kind() === 'ipv4' ? isPrivateV4(addr as ipaddr.IPv4) : isPrivateV6(addr as ipaddr.IPv6)
}

/** The IP address a URL host denotes, or null when the host is a name. `new URL()` already turned
 *  decimal, hex, octal and short IPv4 forms into dotted quads, so only dotted quads and [v6] remain. */
export function hostLiteralAddress(hostname: string): string | null {
  if (hostname.startsWith('[')) return hostname.slice(1, -1)
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : null
}

const INTERNAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa', 'lan']

/** Names that only mean something inside a network: localhost (and *.localhost), mDNS .local,
 *  .internal/.localdomain/.home.arpa/.lan, and single-label names resolved through search domains. */
export function isInternalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '')
  if (name === '' || !name.includes('.')) return true
  return INTERNAL_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`))
}

function describeAddress(host: string, address: string): string {
  return host === address ? `${address} is a private or reserved address` : `${host} resolves to ${address}, a private or reserved address`
}

async function resolveAll(hostname: string, lookup: LookupAll): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[]
  try {
    addresses = await lookup(hostname)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOTFOUND' || code === 'ENODATA') throw new TargetRefusedError(`host ${hostname} does not resolve`)
    throw new TargetRefusedError(`host ${hostname} could not be resolved${code ? ` (${code})` : ''}`)
  }
  if (addresses.length === 0) throw new TargetRefusedError(`host ${hostname} does not resolve`)
  return addresses
}

/** The address policy on a bare URL host (no DNS): literal private IPs and internal names are refused. */
export function checkHostLiteral(hostname: string): TargetCheck {
  const literal = hostLiteralAddress(hostname)
  if (literal !== null) return isPrivateAddress(literal) ? { ok: false, reason: describeAddress(literal, literal) } : { ok: true }
  if (isInternalName(hostname)) return { ok: false, reason: `${hostname} is an internal host name` }
  return { ok: true }
}

/** Save-time check: syntax, then (unless private targets are allowed) the host literal and every
 *  address the name resolves to. Any private address refuses: a name mixing public and private
 *  answers could be steered to the private one at delivery. */
export async function checkTargetAtSave(url: string, opts: { allowPrivate: boolean; lookup?: LookupAll }): Promise<TargetCheck> {
  const syntax = checkWebhookUrl(url)
  if (!syntax.ok) return syntax
  // With private targets allowed there is nothing left to protect, and names that resolve only
  // on the delivery host (container networks) must still be savable.
  if (opts.allowPrivate) return { ok: true }
  const host = syntax.url.hostname
  const literal = checkHostLiteral(host)
  if (!literal.ok || hostLiteralAddress(host) !== null) return literal
  try {
    await resolveForDelivery(host, { allowPrivate: false, lookup: opts.lookup })
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) }
  }
  return { ok: true }
}

/** Delivery-time resolution: the addresses returned are the only ones the socket may use.
 *  Throws TargetRefusedError when the name does not resolve or (unless allowed) any answer is private. */
export async function resolveForDelivery(hostname: string, opts: { allowPrivate: boolean; lookup?: LookupAll }): Promise<ResolvedAddress[]> {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  const literalFamily = isIP(host)
  if (literalFamily !== 0) {
    if (!opts.allowPrivate && isPrivateAddress(host)) throw new TargetRefusedError(describeAddress(host, host))
    return [{ address: host, family: literalFamily }]
  }
  if (!opts.allowPrivate && isInternalName(host)) throw new TargetRefusedError(`${host} is an internal host name`)
  const addresses = await resolveAll(host, opts.lookup ?? systemLookupAll)
  if (!opts.allowPrivate) {
    const bad = addresses.find((a) => isPrivateAddress(a.address))
    if (bad) throw new TargetRefusedError(describeAddress(host, bad.address))
  }
  return addresses
}

/** A `net.connect` lookup that resolves through resolveForDelivery, so the checked address is the
 *  one connected to (no second DNS query an attacker could answer differently: no rebinding gap). */
export function createPinnedLookup(opts: { allowPrivate: boolean; lookup?: LookupAll }): LookupFunction {
  return (hostname, options, callback) => {
    resolveForDelivery(hostname, opts).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all
        if (wanted.length === 0) {
          callback(new TargetRefusedError(`host ${hostname} has no IPv${options.family} address`), '', 0)
        } else if (options.all) {
          // Node's happy-eyeballs connect (autoSelectFamily, default on Node 20) asks for every address.
          callback(null, wanted)
        } else {
          callback(null, wanted[0].address, wanted[0].family)
        }
      },
      (err: Error) => callback(err, '', 0),
    )
  }
}
