// Checks every real response of the tests against the OpenAPI document, with Ajv (an independent JSON Schema validator).
import fs from 'node:fs'
import path from 'node:path'
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
// The document's schemas are not checked against JSON Schema's meta-schema here (compiling the meta-schema is most of
// a test process's validation cost): test/api/openapi.test.ts lints the whole document.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, code: { optimize: false } })
addFormats(ajv)
const DOC_ID = 'taskd-openapi'
const cache = new Map<string, ValidateFunction | null>()

/**
 * The document, built once per run: scripts/test.sh gives every test process one fresh folder, TASKD_TEST_CACHE, where
 * the first process to need it writes it (building it costs some 0.3 s of CPU, which each of the suite's ~200 test
 * processes would otherwise spend). Without that folder (a test file run by hand), each process builds its own.
 */
function sharedDocument(routes: RouteSpec<any, any, any>[]): Doc {
  const dir = process.env.TASKD_TEST_CACHE
  if (!dir) return buildOpenApi(routes) as Doc
  const file = path.join(dir, 'openapi.json')
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Doc
  const built = buildOpenApi(routes) as Doc
  // Written whole, then renamed: another process reads it complete or not at all.
  const part = `${file}.${process.pid}`
  fs.writeFileSync(part, JSON.stringify(built))
  fs.renameSync(part, file)
  return built
}

export function documentFor(routes: RouteSpec<any, any, any>[]): Doc {
  if (!doc) {
    doc = sharedDocument(routes)
    // Added once, so the components a response's schema refers to are compiled once for all of them.
    ajv.addSchema(doc as object, DOC_ID)
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
    const pointer = ['paths', match.template, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema']
    cache.set(key, schema ? ajv.compile({ $ref: `${DOC_ID}#/${pointer.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}` }) : null)
  }
  const validate = cache.get(key)
  if (validate && !validate(body)) {
    throw new Error(`OpenAPI: ${key} body does not match its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`)
  }
}
