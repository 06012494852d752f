// The package version, for --version, the OpenAPI document and the User-Agent of deliveries; imports nothing heavy.
import { asset } from './assets.js'

export const VERSION: string = (JSON.parse(asset('package.json').toString()) as { version: string }).version
