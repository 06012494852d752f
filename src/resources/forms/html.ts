// The HTML of a public form: plain server-rendered pages that work with JavaScript off and carry none (the CSP forbids
// it too). Every text that comes from the form or from a submitter is escaped here; nothing else is inserted.
import type { ErrorDetail } from '../../errors.js'
import { HONEYPOT, type PublicFormView } from './schema.js'

const ESCAPED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPED[c])

/**
 * No script, no plugin, no frame, no other origin: styles inline only, and the form may post only back to this address.
 * `frame-ancestors 'none'` keeps the page out of other sites' frames (no clickjacking of the submit button).
 */
export const FORM_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}' +
  'label{display:block;font-weight:600;margin:1rem 0 .25rem}input,select,textarea{font:inherit;width:100%;box-sizing:border-box;padding:.4rem}' +
  'textarea{min-height:8rem}.desc{white-space:pre-wrap}.err{color:#a00;margin:.25rem 0}.errors{border:1px solid #a00;padding:.5rem 1rem}' +
  'button{font:inherit;margin-top:1.5rem;padding:.5rem 1.5rem}.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}'

/** A whole page: the title is escaped here, `content` is HTML already built from escaped parts. */
export const page = (title: string, content: string): string =>
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>\n` +
  `<body><main>\n${content}\n</main></body></html>\n`

const INPUT_TYPE: Record<string, string> = { text: 'text', email: 'email', number: 'number', date: 'date' }

/** One field's control, with its label, its earlier answer (after a refusal) and its problem. */
function control(f: PublicFormView['fields'][number], value: string, problem: string | undefined): string {
  const id = `f-${f.key}`
  const name = escapeHtml(f.key)
  const req = f.required ? ' required' : ''
  const described = problem ? ` aria-invalid="true" aria-describedby="${id}-err"` : ''
  const label = `<label for="${id}">${escapeHtml(f.label)}${f.required ? ' <span aria-hidden="true">*</span>' : ''}</label>`
  let input: string
  if (f.type === 'long_text') input = `<textarea id="${id}" name="${name}" maxlength="10000"${req}${described}>${escapeHtml(value)}</textarea>`
  else if (f.type === 'select') {
    const options = (f.options ?? []).map((o) => `<option${o === value ? ' selected' : ''}>${escapeHtml(o)}</option>`).join('')
    input = `<select id="${id}" name="${name}"${req}${described}><option value=""${value === '' ? ' selected' : ''}>—</option>${options}</select>`
  } else if (f.type === 'file') input = `<input id="${id}" name="${name}" type="file"${req}${described}>`
  else {
    const extra = f.type === 'number' ? ' step="any"' : f.type === 'text' ? ' maxlength="1000"' : ''
    input = `<input id="${id}" name="${name}" type="${INPUT_TYPE[f.type]}" value="${escapeHtml(value)}"${extra}${req}${described}>`
  }
  const err = problem ? `<p class="err" id="${id}-err">${escapeHtml(problem)}</p>` : ''
  return `<div>${label}${input}${err}</div>`
}

/**
 * The form's page: its name, description and fields, posting back to this address (multipart when it has a file field,
 * else urlencoded). After a refused submission: the answers given (files must be chosen again) and each problem.
 */
export function formPage(form: PublicFormView, given: ReadonlyMap<string, string> = new Map(), problems: readonly ErrorDetail[] = []): string {
  const byKey = new Map(problems.map((p) => [p.path, p.message]))
  const multipart = form.fields.some((f) => f.type === 'file')
  const summary = problems.length
    ? `<div class="errors" role="alert"><p>The form could not be sent:</p><ul>${problems.map((p) => `<li>${escapeHtml(p.message)}</li>`).join('')}</ul></div>\n`
    : ''
  const fields = form.fields.map((f) => control(f, given.get(f.key) ?? '', byKey.get(f.key))).join('\n')
  // The honeypot: out of sight and out of the tab order; a person leaves it empty, a bot filling every input does not.
  const honeypot = `<div class="hp" aria-hidden="true"><label for="f-hp">Leave this empty</label><input id="f-hp" name="${HONEYPOT}" type="text" tabindex="-1" autocomplete="off"></div>`
  return page(
    form.name,
    `<h1>${escapeHtml(form.name)}</h1>\n${form.description ? `<p class="desc">${escapeHtml(form.description)}</p>\n` : ''}${summary}` +
      `<form method="post"${multipart ? ' enctype="multipart/form-data"' : ''}>\n${fields}\n${honeypot}\n` +
      `<button type="submit">Send</button>\n</form>`,
  )
}

/** The page after an accepted submission: the form's thank-you message. */
export const thankYouPage = (formName: string, message: string): string =>
  page(formName, `<h1>${escapeHtml(formName)}</h1>\n<p class="desc" role="status">${escapeHtml(message)}</p>`)

/** Any other answer as a page (not found, too many submissions, too large, unreadable). */
export const messagePage = (title: string, message: string): string => page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`)
