// Billing rates: a user's hourly rate, in force from a day until their next rate starts. Owners and admins manage them.
import { z } from 'zod'
import { orNull, UserRef } from '../../http/schemas.js'

export const UserBillingRateSchema = z
  .strictObject({
    id: z.string(),
    user: UserRef,
    hourly_rate: z.number().meta({ description: 'Per hour, in `currency`.' }),
    currency: z.string().meta({ description: 'ISO 4217 code, e.g. `EUR`.' }),
    starts_on: z.string().meta({ description: "`YYYY-MM-DD` (UTC): in force from this day until the user's next rate starts." }),
    created_by: orNull(UserRef),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'UserBillingRate' })
export type UserBillingRateView = z.infer<typeof UserBillingRateSchema>

const hourlyRate = z.number().min(0, 'Must not be negative.').max(1_000_000_000, 'At most 1,000,000,000.')
const currency = z
  .string()
  .regex(/^[A-Z]{3}$/, 'Must be a 3-letter ISO 4217 code in capitals, like EUR.')
  .meta({ description: 'ISO 4217 code in capitals, e.g. `EUR`.' })
const startsOn = z.iso.date().meta({ description: "`YYYY-MM-DD`: in force from this day (UTC) until the user's next rate starts." })

export const CreateBillingRateBody = z
  .strictObject({ user: z.string().min(1), hourly_rate: hourlyRate, currency, starts_on: startsOn })
  .meta({ id: 'CreateBillingRateBody' })
export type CreateBillingRateInput = z.infer<typeof CreateBillingRateBody>
export const UpdateBillingRateBody = z
  .strictObject({ hourly_rate: hourlyRate.optional(), currency: currency.optional(), starts_on: startsOn.optional() })
  .meta({ id: 'UpdateBillingRateBody' })
export type UpdateBillingRateInput = z.infer<typeof UpdateBillingRateBody>
