// The package version, for --version, the OpenAPI document and the User-Agent of deliveries; imports nothing heavy.
import { createRequire } from 'node:module'

export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version
