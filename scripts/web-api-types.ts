// Generates web/src/api/schema.d.ts (the web app's types of the API) from the OpenAPI document createApp() serves, with
// openapi-typescript. `npm run web:types` rewrites the file; test/web/build.test.ts fails when the committed file
// differs from what this makes.
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import { createApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/open.js'
import { createLogger } from '../src/log.js'
import { createDeps } from '../src/server.js'
import { systemClock } from '../src/clock.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
export const webTypesFile = path.join(root, 'web/src/api/schema.d.ts')

/** The OpenAPI document as GET /v1/openapi.json answers it, from an app on a scratch SQLite database. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-openapi-'))
  try {
    const config = loadConfig({ db: path.join(dir, 'taskd.db'), port: 0, masterKey: 'a'.repeat(64) }, {})
    const db = await openDatabase(config)
    const deps = createDeps(db, config, systemClock)
    const { app } = createApp(deps, { logger: createLogger('silent') })
    const server = http.createServer(app)
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/openapi.json`)
      return (await res.json()) as Record<string, unknown>
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      deps.claimWaiters.close()
      deps.feedWaiters.close()
      await db.close()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The text of web/src/api/schema.d.ts. */
export async function generateWebTypes(): Promise<string> {
  const ast = await openapiTS((await openApiDocument()) as never, { alphabetize: false, defaultNonNullable: false })
  return `// Generated from the OpenAPI document by scripts/web-api-types.ts (npm run web:types). Do not edit by hand.\n\n${astToString(ast)}`
}

if (process.argv.includes('--write')) {
  fs.writeFileSync(webTypesFile, await generateWebTypes())
  console.log(`wrote ${path.relative(root, webTypesFile)}`)
}
