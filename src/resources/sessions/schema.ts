// Sessions: the record, the sign-in body and its answer, and the password fields PATCH /v1/users/me takes.
import { z } from 'zod'
import { UserRef } from '../../http/schemas.js'
import { thousands } from '../../zod-messages.js'
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARS, passwordProblem } from './password.js'

/** How a session was signed in: with a password, or with a login link. */
export const SESSION_VIA = ['password', 'link'] as const

const EXAMPLE_SESSION = {
  id: '2s4vwyd1zzcel93k',
  user: { id: '2s4vwyc0a1b2c3d4', name: 'Ada' },
  via: 'password',
  created: '2026-11-21T12:00:00.000Z',
  last_used: '2026-11-21T12:30:00.000Z',
  expires: '2026-12-21T12:30:00.000Z',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
  address: '203.0.113.7',
  current: true,
}

export const SessionSchema = z
  .strictObject({
    id: z.string(),
    user: UserRef,
    via: z.enum(SESSION_VIA).meta({ description: 'How it was signed in: `password`, or `link` (a login link).' }),
    created: z.string(),
    last_used: z.string().meta({ description: 'The last request made with it (written at most once a minute).' }),
    expires: z.string().meta({
      description:
        'When it ends unless used: each use moves it to the idle limit from then (TASKD_SESSION_IDLE_DAYS), never past TASKD_SESSION_MAX_DAYS after sign-in.',
    }),
    user_agent: z.string().nullable().meta({ description: 'The browser that signed in, as it named itself (at most 256 characters).' }),
    address: z.string().nullable().meta({ description: 'The address it signed in from (behind TASKD_TRUST_PROXY, the client’s).' }),
    current: z.boolean().meta({ description: 'Whether this request came with this session’s cookie.' }),
  })
  .meta({ id: 'Session', example: EXAMPLE_SESSION })
export type SessionView = z.infer<typeof SessionSchema>

export const SignedInSchema = z
  .strictObject({
    session: SessionSchema,
    csrf_token: z.string().meta({
      description: 'Send it as `X-CSRF-Token` on every write (POST, PUT, PATCH, DELETE) made with the session cookie; GET /v1/sessions/current gives it again.',
    }),
    password_set: z.boolean().meta({ description: 'Whether you have a password (after a login link, maybe not yet: set one with PATCH /v1/users/me).' }),
  })
  .meta({
    id: 'SignedIn',
    example: { session: EXAMPLE_SESSION, csrf_token: 'k0dG1x4bZ6V0nq3pTq0wz5Yc7uQm1sJrXh2LwA9fE8c', password_set: true },
  })
export type SignedIn = z.infer<typeof SignedInSchema>

/** A password as sent to sign in or to confirm a change: any text up to the longest a password may be. */
const givenPassword = (name: string) =>
  z.string().refine((s) => Buffer.byteLength(s, 'utf8') <= PASSWORD_MAX_BYTES, `${name} must be at most ${thousands(PASSWORD_MAX_BYTES)} bytes (UTF-8).`)

export const CreateSessionBody = z
  .strictObject({
    email: z.string().trim().max(320).optional(),
    password: givenPassword('password').optional(),
    link_token: z.string().max(200).optional().meta({ description: 'The last part of a login link (`{base_url}/login/<link_token>`).' }),
  })
  .superRefine((b, ctx) => {
    if (b.link_token !== undefined) {
      for (const key of ['email', 'password'] as const)
        if (b[key] !== undefined)
          ctx.addIssue({ code: 'custom', path: [key], message: `Send either email and password, or link_token; not ${key} with link_token.` })
      return
    }
    if (b.email === undefined) ctx.addIssue({ code: 'custom', path: ['email'], message: 'email is required (or link_token).' })
    if (b.password === undefined) ctx.addIssue({ code: 'custom', path: ['password'], message: 'password is required (or link_token).' })
  })
  .meta({
    id: 'CreateSessionBody',
    description: 'Either `email` and `password`, or `link_token` (a login link from `taskd user login-link EMAIL`).',
    examples: [{ email: 'ada@example.com', password: 'correct horse battery staple' }, { link_token: 'tl_Jq2Vw0x9Yb3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R9' }],
  })
export type CreateSessionInput = z.infer<typeof CreateSessionBody>

/** A new password: the rules `PATCH /v1/users/me` and `taskd user set-password` hold it to. */
export const NewPassword = z
  .string()
  .superRefine((s, ctx) => {
    const problem = passwordProblem(s)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })
  .meta({
    description: `A new password: at least ${PASSWORD_MIN_CHARS} characters, at most ${thousands(PASSWORD_MAX_BYTES)} bytes (UTF-8). Stored only as a salted scrypt hash; never shown.`,
    format: 'password',
  })

/** The password fields of PATCH /v1/users/me. */
export const passwordFields = {
  password: NewPassword.optional(),
  current_password: givenPassword('current_password').optional().meta({
    description: 'Your password now: required to change one you have. Leave it out when you set your first one (from a session a login link made).',
    format: 'password',
  }),
}
