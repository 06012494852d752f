// The entry of the single binary (scripts/build-binary.mjs bundles it as CommonJS): a read-pool process when the read
// pool started it (TASKD_READ_DB and an IPC channel, src/db/read-pool.ts), else the taskd command. Each part is loaded
// only when used, so a read process never loads the server.
if (process.env.TASKD_READ_DB && process.send) void import('./db/read-worker.js')
else void import('./cli/index.js').then((cli) => cli.main(process.argv))
