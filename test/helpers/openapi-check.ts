// Checks every real response of the tests against the OpenAPI document, with Ajv (an independent JSON Schema validator).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { RouteSpec } from '../../src/http/route.js'
import { buildOpenApi } from '../../src/http/openapi.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>
  components: object
}

let doc: Doc | undefined
let matchers: { re: RegExp; template: string }[] = []
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
const cache = new Map<string, ValidateFunction | null>()

export function documentFor(routes: RouteSpec<any, any, any>[]): Doc {
  if (!doc) {
    doc = buildOpenApi(routes) as Doc
    matchers = Object.keys(doc.paths)
      .map((template) => ({ template, re: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}/?$`) }))
      .sort((a, b) => a.template.split('{').length - b.template.split('{').length)
  }
  return doc
}

/** Throws when a response's status or body is not what the document says for that route. */
export function checkResponse(routes: RouteSpec<any, any, any>[], method: string, urlPath: string, status: number, body: unknown): void {
  const d = documentFor(routes)
  const pathname = urlPath.split('?')[0]
  const match = matchers.find((m) => m.re.test(pathname) && d.paths[m.template][method.toLowerCase()])
  if (!match) return // not an API route (docs, unknown route): nothing documented to check
  const op = d.paths[match.template][method.toLowerCase()]
  const response = op.responses[String(status)]
  if (!response) throw new Error(`OpenAPI: ${method} ${match.template} answered ${status}, which is not documented`)
  const key = `${method} ${match.template} ${status}`
  if (!cache.has(key)) {
    const schema = response.content?.['application/json']?.schema
    cache.set(key, schema ? ajv.compile({ ...schema, components: d.components }) : null)
  }
  const validate = cache.get(key)
  if (validate && !validate(body)) {
    throw new Error(`OpenAPI: ${key} body does not match its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`)
  }
}
