// Injectable time, so expiry and retry schedules are tested without sleeping.
export interface Clock {
  now(): number
}
export const systemClock: Clock = { now: () => Date.now() }
export const isoAt = (ms: number): string => new Date(ms).toISOString()
