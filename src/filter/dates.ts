// Date literals of the filter: a quoted `YYYY-MM-DD` (a whole UTC day) or a full ISO 8601 date-time (an instant).

export type DateLiteral =
  /** `day` and the day after, both `YYYY-MM-DD`: the day is the half-open text range [day, next). */
  | { kind: 'day'; day: string; next: string }
  /** Normalised to the stored form `YYYY-MM-DDTHH:MM:SS.sssZ`, so text order is time order. */
  | { kind: 'instant'; iso: string }

// Anchored and without nested repetition, so matching is linear in the literal's length.
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/

/** Parses a date literal; null when it is not a real date (2026-02-30, 24:00, month 13…). */
export function parseDateLiteral(text: string): DateLiteral | null {
  const m = DATE.exec(text)
  if (!m) return null
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null
  if (m[4] === undefined) {
    const next = utc(y, mo, d + 1, 0, 0, 0, 0)
    // After 9999-12-31 there is no 4-digit day; "9999-12-32" still sorts after every stored value of that day.
    return { kind: 'day', day: text, next: next.getUTCFullYear() > 9999 ? '9999-12-32' : next.toISOString().slice(0, 10) }
  }
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)]
  if (h > 23 || mi > 59 || s > 59) return null
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'))
  let offset = 0
  if (m[9] !== undefined) {
    const [oh, om] = [Number(m[10]), Number(m[11])]
    if (oh > 23 || om > 59) return null
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om)
  }
  // A time without a zone is read as UTC, so the answer never depends on the server's time zone.
  const t = utc(y, mo, d, h, mi - offset, s, ms)
  if (t.getUTCFullYear() < 0 || t.getUTCFullYear() > 9999) return null
  return { kind: 'instant', iso: t.toISOString() }
}

function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): Date {
  // setUTCFullYear, unlike Date.UTC, does not turn years 0–99 into 1900–1999.
  const t = new Date(0)
  t.setUTCFullYear(y, mo - 1, d)
  t.setUTCHours(h, mi, s, ms)
  return t
}

function daysInMonth(y: number, mo: number): number {
  if (mo === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28
  return mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31
}
