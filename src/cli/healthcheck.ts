// taskd healthcheck: exit 0 when the local server answers GET /healthz with 200, else 1 with the reason. For container
// health checks (deploy/Dockerfile), where the image has no curl: the binary checks itself.
import { httpUrl, loadConfig } from '../config.js'
import type { DbFlags } from './options.js'

export async function healthcheck(o: DbFlags & { port?: string }): Promise<void> {
  const { host, port } = loadConfig({ port: o.port, db: o.db, config: o.config })
  // A server listening on every address answers on loopback.
  const url = `${httpUrl(host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host, port)}/healthz`
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) }).catch((err: Error) => {
    throw new Error(`cannot reach ${url}: ${(err.cause as Error | undefined)?.message ?? err.message}`)
  })
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`)
}
