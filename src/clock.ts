// Injectable time, so expiry and retry schedules are tested without sleeping.
export interface Clock {
  now(): number
}
export const systemClock: Clock = { now: () => Date.now() }
export const isoAt = (ms: number): string => new Date(ms).toISOString()
export const DAY_MS = 86_400_000
/** The UTC day (`YYYY-MM-DD`) of an ISO 8601 UTC time as stored. */
export const dayOf = (iso: string): string => iso.slice(0, 10)
